"""Issue 31: every decision kept whole, on the deployed stack (tests/e2e/stack.py), driven in
Chromium where a person acts on the page.

- A decided change keeps a finished document finished: an edge moved in a done document
  leaves it done, and in the next release.
- Undone work leaves nothing in the table: an edge moved and undone, or a span added and
  undone, takes the surface it made back out of the table (audited), so that it refuses no
  release as an undecided known entity in another document.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Api, import_records, log_in
from tests.e2e.stack import Stack
from tests.e2e.test_loop import label_key
from tests.e2e.test_release_guarantee import _done, _release
from tests.e2e.workspace import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_an_edge_moved_and_undone_leaves_no_surface_in_the_table_to_refuse_a_release(
    stack: Stack, api: dict[str, Api], browser: Any
) -> None:
    admin, lead, annotator = api["admin"], api["lead"], api["annotator_en"]
    name = "Oliver Quarrington"
    text = f"Her brother {name} phoned twice."
    ids = import_records(admin, [
        {"id": "undo-a", "lang": "en", "text": text, "spans": []},
        {"id": "undo-b", "lang": "en", "text": "My brother is at home.", "spans": []},
    ])  # fmt: skip
    page = log_in(browser, stack, "annotator_en")
    ws = Workspace(page, annotator, ids["undo-a"]).open()
    ws.select(name)
    ws.press(label_key(page, "PER"))
    start = text.index(name)
    span = ws.span_at(start, start + len(name))
    assert span is not None and span["status"] == "accepted", span

    # The start moves one word earlier, by mistake: "brother Oliver Quarrington".
    ws.editor(span["id"])
    ws.click_in_editor(span["id"], "Start one word earlier (adds it)")
    moved = ws.span(span["id"])
    assert text[moved["start"] : moved["end"]] == f"brother {name}", moved
    assert moved["entity_id"] != span["entity_id"]
    lead.get(f"entities/{moved['entity_id']}/")  # in the table while a span holds it

    ws.focus(span["id"])
    ws.press("u")
    back = ws.span(span["id"])
    assert (back["start"], back["end"], back["status"]) == (start, start + len(name), "accepted")
    lead.call("GET", f"entities/{moved['entity_id']}/", expect=404)
    lead.get(f"entities/{back['entity_id']}/")
    events = admin.get("audit/?action=key_edit&limit=100")["results"]
    assert any(
        e["target"] == f"entity:{moved['entity_id']}" and e["detail"].get("change") == "withdrawn"
        for e in events
    ), events

    for key in ("undo-a", "undo-b"):
        _done(annotator, ids[key])
    stack.wait_idle()
    release = _release(admin, language="en", strategy="S2")
    named = {leak["document_id"] for leak in release.get("leak_report") or []}
    assert ids["undo-b"] not in named, release.get("leak_report")


def test_an_edge_moved_in_a_finished_document_keeps_it_finished_and_in_the_release(
    stack: Stack, api: dict[str, Api], browser: Any
) -> None:
    """Trap 1: from a refused release's link, an annotator moved one edge in a finished
    document; it went back to "in progress" without a word and the next release left it out."""
    admin, annotator = api["admin"], api["annotator_en"]
    name = "Perpetua Okonkwo"
    text = f"Met {name} at the station."
    ids = import_records(admin, [{"id": "kept-done", "lang": "en", "text": text, "spans": []}])
    document_id = ids["kept-done"]
    start = text.index(name)
    annotator.post(f"documents/{document_id}/spans/",
                   {"start": start, "end": start + len("Perpetua"), "label": "PER"},
                   expect=201)  # fmt: skip
    _done(annotator, document_id)
    assert annotator.get(f"documents/{document_id}/")["status"] == "done"

    page = log_in(browser, stack, "annotator_en")
    ws = Workspace(page, annotator, document_id).open()
    span = ws.span_at(start, start + len("Perpetua"))
    assert span is not None
    ws.focus(span["id"])
    ws.editor(span["id"])
    ws.click_in_editor(span["id"], "End one word later (adds it)")
    moved = ws.span(span["id"])
    assert text[moved["start"] : moved["end"]] == name, moved
    assert annotator.get(f"documents/{document_id}/")["status"] == "done"

    stack.wait_idle()
    release = _release(admin, language="en", strategy="S2")
    documents = (release.get("manifest") or {}).get("documents", {})
    assert document_id not in {row["id"] for row in documents.get("left_out", [])}, documents
