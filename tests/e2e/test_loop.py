"""The whole loop on the stack Cloak ships on (tests/e2e/stack.py), as each role, through the
API and in Chromium, with nothing wrapped in a test transaction:

- the admin imports a trilingual file on the Imports page and starts a pre-annotation run
  through the API, which a real worker carries out (NER on the `ner` queue);
- each annotator, in the browser, picks a suggested pseudonym with `s`, rejects and undoes,
  accepts, adds a span from a selection, moves its edge, relabels, flags a span, and marks the
  document done; their second document goes through the API;
- the lead resolves every flag and gives the person named in every language a new pseudonym
  in the key table;
- the admin cuts a release under every strategy and downloads it.

Then no original of any identifier is in any release, the person named in English, French
and Arabic has one pseudonym in all of them, and no process logged an original.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import unicodedata
import zlib
from typing import Any

import pytest

from tests.e2e.conftest import PROJECT, Api, log_in, wait_for
from tests.e2e.corpus import CROSS_LANGUAGE, POSTS, Post, as_jsonl, by_id, originals
from tests.e2e.stack import KEYS_SCHEMA, Stack
from tests.e2e.workspace import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

STRATEGIES = ("S0", "S1", "S2", "S3", "realistic")
# What the lead types in the key table for the person named in every language.
LEAD_PSEUDONYM = "Jonas Whitfield"
# The document each annotator works on in the browser, and what they do there. `add` is
# selected and given `label`, then its end moved one word (to `added`); `relabel` is added
# as a person and relabelled as a place; `flag` is accepted, then flagged for the lead.
BROWSER_WORK = {
    "en": {
        "post": "en-1", "email": "moshe.chaya@example.org", "add": "Globex",
        "added": "Globex Corporation", "relabel": "Lyon", "flag": "+44 7700 900123",
    },
    "fr": {
        "post": "fr-1", "email": "elodie.martin@exemple.fr", "add": "Banque",
        "added": "Banque Laurentide", "relabel": "Marseille", "flag": "Élodie Martin",
    },
    "ar": {
        "post": "ar-1", "email": "omar.hashimi@example.com", "add": "شركة Globex",
        "added": "شركة Globex Corporation", "relabel": "القاهرة", "flag": "عمر الهاشمي",
    },
}  # fmt: skip
API_WORK = {"en": "en-2", "fr": "fr-2", "ar": "ar-2"}


def test_the_whole_loop_as_each_role(stack: Stack, api: dict[str, Api], browser: Any) -> None:
    documents = admin_imports(stack, api["admin"], browser)
    admin_preannotates(api["admin"])
    stack.wait_idle()

    chosen: dict[str, str] = {}
    for language, work in BROWSER_WORK.items():
        annotator = api[f"annotator_{language}"]
        post = by_id(work["post"])
        chosen[language] = annotate_in_the_browser(
            stack, browser, annotator, documents[post.external_id], post, work
        )
        second = by_id(API_WORK[language])
        annotate_through_the_api(annotator, documents[second.external_id], second)
        # Propagation of this person's choices runs on the worker; the next person sees it.
        stack.wait_idle()
    # One person, one pseudonym: the French and Arabic annotators were offered, first, the
    # pseudonym the English one picked.
    assert chosen["fr"] == chosen["en"] and chosen["ar"] == chosen["en"], chosen

    lead_reviews(stack, browser, api["lead"])
    stack.wait_idle()
    assert_every_document_done(api["admin"], documents)

    releases = admin_releases(stack, browser, api["admin"])
    assert_no_original_in(releases, api["admin"], documents)
    assert_one_pseudonym_across_languages(releases, api["admin"], documents)
    assert_the_keys_reads_were_audited(api["admin"])
    assert_no_original_logged(stack)
    assert_no_pseudonym_where_the_web_role_reads(stack)


# --- The admin: import and pre-annotate ----------------------------------------------------------


def admin_imports(stack: Stack, admin: Api, browser: Any) -> dict[str, int]:
    """Upload the corpus on the Imports page; the worker imports it. The documents' ids."""
    upload = stack.folder / "corpus.jsonl"
    upload.write_bytes(as_jsonl())
    page = log_in(browser, stack, "admin")
    page.goto(f"/projects/{PROJECT}/imports/")
    page.set_input_files("input[type=file]", str(upload))
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Upload and import").click()
    assert answer.value.status < 400, answer.value.text()
    jobs = wait_for(
        lambda: admin.get("imports/")["results"],
        lambda rows: rows and rows[0]["status"] in ("done", "failed"),
        120,
        "the import",
    )
    assert jobs[0]["status"] == "done", jobs[0]
    page.context.close()

    listed = admin.get("documents/?limit=100")["results"]
    ids = {row["external_id"]: row["id"] for row in listed}
    assert set(ids) == {post.external_id for post in POSTS}
    for post in POSTS:  # stored as imported, character for character (CRLF, marks, emoji)
        assert admin.get(f"documents/{ids[post.external_id]}/")["text"] == post.text
    return ids


def admin_preannotates(admin: Api) -> None:
    run = admin.post("runs/", {}, expect=202)
    run = wait_for(
        lambda: admin.get(f"runs/{run['id']}/"),
        lambda row: row["status"] in ("done", "failed"),
        300,
        "the pre-annotation run",
    )
    assert run["status"] == "done", run
    assert run["spans_created"] > 0
    # English and French have an offline NER model; it ran on the `ner` queue.
    assert run["models_used"]["en"] and run["models_used"]["fr"], run["models_used"]
    # What each source proposed, kept by the worker as it wrote (through COPY, each span with
    # every source that proposed it): the model's, the patterns' and the Arabic lexicons'.
    sources = run["sources"]
    assert sources["ner"]["proposed"] > 0 and sources["regex"]["proposed"] > 0, sources
    assert all(0 <= row["alone"] <= row["proposed"] for row in sources.values()), sources
    assert sum(row["alone"] for row in sources.values()) <= run["spans_created"]
    assert max(row["proposed"] for row in sources.values()) <= run["spans_created"]


# --- The annotators ------------------------------------------------------------------------------


def label_key(page: Any, label: str) -> str:
    labels = page.evaluate(
        "() => JSON.parse(document.getElementById('workspace-labels').textContent)"
    )
    position = labels.index(label) + 1
    assert position <= 9, f"{label} has no digit key"
    return str(position)


def annotate_in_the_browser(
    stack: Stack, browser: Any, annotator: Api, document_id: int, post: Post, work: dict[str, str]
) -> str:
    """Every action of the page on one document; the pseudonym picked for CROSS_LANGUAGE."""
    page = log_in(browser, stack, f"annotator_{post.language}")
    ws = Workspace(page, annotator, document_id).open()
    assert ws.text() == post.text  # CRLF, emoji, marks and Arabic, exactly

    # A suggested pseudonym for the person named everywhere: `s`, then `1`.
    start = post.text.index(CROSS_LANGUAGE)
    person = ws.span_at(start, start + len(CROSS_LANGUAGE))
    if person is None or person["status"] != "proposed":
        ws.select(CROSS_LANGUAGE)
        ws.press(label_key(page, "PER"))
        person = ws.span_at(start, start + len(CROSS_LANGUAGE))
        assert person is not None and person["source"] == "human"
    ws.pick_suggestion(person["id"], 1)
    person = ws.span(person["id"])
    assert person["status"] == "accepted" and person["replacement"], person

    # Reject the e-mail address, undo, accept it.
    start = post.text.index(work["email"])
    email = ws.span_at(start, start + len(work["email"]))
    assert email is not None and email["status"] == "proposed", (
        f"the pattern's e-mail proposal in {post.external_id} is gone: {email}"
    )
    ws.focus(email["id"])
    ws.press("x")
    assert ws.span(email["id"])["status"] == "rejected"
    ws.press("u")
    assert ws.span(email["id"])["status"] == "proposed"
    ws.focus(email["id"])
    ws.press("a")
    assert ws.span(email["id"])["status"] == "accepted"

    # Add a span from a selection, then move its end by one word.
    ws.select(work["add"])
    ws.press(label_key(page, "ORG"))
    start = post.text.index(work["add"])
    added = ws.span_at(start, start + len(work["add"]))
    assert added is not None and added["source"] == "human" and added["label"] == "ORG"
    ws.editor(added["id"])
    ws.click_in_editor(added["id"], "End one word later (adds it)")
    added = ws.span(added["id"])
    assert post.text[added["start"] : added["end"]] == work["added"], added

    # Add a place as a person by mistake, then relabel it with its key.
    ws.select(work["relabel"])
    ws.press(label_key(page, "PER"))
    start = post.text.index(work["relabel"])
    place = ws.span_at(start, start + len(work["relabel"]))
    assert place is not None and place["label"] == "PER"
    ws.focus(place["id"])
    ws.press_confirming(label_key(page, "LOC"))  # asked if propagation echoed it elsewhere
    assert ws.span(place["id"])["label"] == "LOC"

    # Accept a span, then flag it for the lead with a comment.
    start = post.text.index(work["flag"])
    flagged = ws.span_at(start, start + len(work["flag"]))
    if flagged is None or flagged["status"] == "rejected":
        ws.select(work["flag"])
        ws.press(label_key(page, next(i.label for i in post.identifiers
                                      if i.surface == work["flag"])))  # fmt: skip
        flagged = ws.span_at(start, start + len(work["flag"]))
        assert flagged is not None
    elif flagged["status"] == "proposed":
        ws.focus(flagged["id"])
        ws.press("a")
    ws.flag(flagged["id"], "Is this the author's own, or someone they quote?")
    assert ws.span(flagged["id"])["flagged"] is True

    # What is left, as a careful person decides it: the page's "Accept all" for what is
    # right, then "Mark done" on the page.
    sort_the_proposals(annotator, document_id, post)
    ws.open()
    ws.accept_all()
    add_what_was_missed(annotator, document_id, post)
    ws.open()
    ws.mark_done()
    document = annotator.get(f"documents/{document_id}/")
    assert document["status"] == "done", document
    page.context.close()
    return str(person["replacement"])


def annotate_through_the_api(annotator: Api, document_id: int, post: Post) -> None:
    sort_the_proposals(annotator, document_id, post)
    spans_path = f"documents/{document_id}/spans/"
    labels = {s["label"] for s in annotator.get(f"{spans_path}?limit=1000")["results"]
              if s["status"] == "proposed"}  # fmt: skip
    for label in sorted(labels):
        outcome = annotator.post(f"{spans_path}bulk/", {"status": "accepted", "label": label})
        assert outcome["conflicts"] == 0, outcome
    add_what_was_missed(annotator, document_id, post)
    version = annotator.get(f"documents/{document_id}/")["version"]
    done = annotator.patch(f"documents/{document_id}/", {"status": "done", "version": version})
    assert done["status"] == "done", done


def sort_the_proposals(annotator: Api, document_id: int, post: Post) -> None:
    """Reject each proposal that is not exactly an identifier, and give each one that is its
    label: what an annotator who reads every word does before accepting the rest at once.
    Every write names the version read."""
    gold = {(start, end): identifier for start, end, identifier in post.occurrences()}
    spans_path = f"documents/{document_id}/spans/"
    for span in annotator.get(f"{spans_path}?limit=1000")["results"]:
        identifier = gold.get((span["start"], span["end"]))
        if span["status"] != "proposed":
            continue
        if identifier is None:
            change = {"version": span["version"], "status": "rejected"}
        elif span["label"] != identifier.label:
            change = {"version": span["version"], "label": identifier.label}
        else:
            continue
        annotator.patch(f"{spans_path}{span['id']}/", change)


def add_what_was_missed(annotator: Api, document_id: int, post: Post) -> None:
    """Add each identifier no accepted span holds exactly."""
    spans_path = f"documents/{document_id}/spans/"
    decided = {
        (span["start"], span["end"])
        for span in annotator.get(f"{spans_path}?limit=1000")["results"]
        if span["status"] == "accepted"
    }
    for start, end, identifier in post.occurrences():
        if (start, end) not in decided:
            annotator.post(
                spans_path,
                {"start": start, "end": end, "label": identifier.label},
                expect=201,
            )


def assert_every_document_done(admin: Api, documents: dict[str, int]) -> None:
    for external_id, document_id in documents.items():
        document = admin.get(f"documents/{document_id}/")
        assert document["status"] == "done", (external_id, document["status"])
        spans = admin.get(f"documents/{document_id}/spans/?limit=1000")["results"]
        assert not [s for s in spans if s["status"] == "proposed"], external_id


# --- The lead ------------------------------------------------------------------------------------


def lead_reviews(stack: Stack, browser: Any, lead: Api) -> None:
    """Resolve every flag on the review page; give the person named everywhere a pseudonym
    of the lead's own in the key table."""
    flags = lead.get("review/?kind=flag&status=open")["results"]
    assert len(flags) == len(BROWSER_WORK), flags  # one per annotator
    page = log_in(browser, stack, "lead")
    for item in flags:
        page.goto(f"/projects/{PROJECT}/review/{item['id']}/")
        page.select_option("select[name=decision]", "pseudonymize")
        page.fill("textarea[name=rationale], input[name=rationale]", "Checked: it identifies them.")
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            page.get_by_role("button", name="Resolve").click()
        assert answer.value.status < 400, answer.value.status
    assert lead.get("review/?kind=flag&status=open")["count"] == 0

    # The key table: search (posted, sealed), open the entity, type the new pseudonym.
    page.goto(f"/projects/{PROJECT}/keys/")
    page.fill("input[name=q]", "chaya")
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.get_by_role("button", name="Search").click()
    page.wait_for_timeout(200)
    assert "chaya" not in page.url.casefold()  # the name never reaches the address
    row = page.locator("#key-table tbody tr").filter(
        has=page.locator("bdi.surface", has_text=CROSS_LANGUAGE)
    )
    row.first.locator("th a").click()
    page.wait_for_selector(".key-aliases-table")
    rows = page.locator(".key-aliases-table tbody tr:not(.key-token)").filter(
        has=page.locator("bdi.surface", has_text=CROSS_LANGUAGE)
    )
    assert rows.count() >= 1
    for index in range(rows.count()):
        rows.nth(index).locator("input").fill(LEAD_PSEUDONYM)
    with page.expect_navigation():
        page.get_by_role("button", name="Save").click()
    assert not page.locator(".field-error").count(), page.locator(".field-error").all_inner_texts()
    page.context.close()

    found = lead.get(f"entities/?q={CROSS_LANGUAGE.split()[1]}")["results"]
    person = [row for row in found if any(
        alias["original"] == CROSS_LANGUAGE for alias in row["aliases"]
    )]  # fmt: skip
    assert person, found
    replacements = {
        alias["replacement"]
        for alias in person[0]["aliases"]
        if alias["original"] == CROSS_LANGUAGE
    }
    assert replacements == {LEAD_PSEUDONYM}, replacements


# --- The admin: releases -------------------------------------------------------------------------


def admin_releases(stack: Stack, browser: Any, admin: Api) -> dict[str, list[dict[str, Any]]]:
    """A release under every strategy through the API (JSONL), and one more on the Releases
    page (CSV); each downloaded. The released documents by strategy (`S3-csv` for the page's)."""
    released: dict[str, list[dict[str, Any]]] = {}
    for strategy in STRATEGIES:
        release = admin.post("releases/", {"strategy": strategy, "format": "jsonl"}, expect=202)
        release = wait_for(
            lambda release=release: admin.get(f"releases/{release['id']}/"),
            lambda row: row["status"] not in ("queued", "running"),
            120,
            f"the {strategy} release",
        )
        assert release["status"] == "done", json.dumps(
            [strategy, release["status"], release["error"], release["leak_report"]]
        )
        body = admin.call("GET", f"releases/{release['id']}/download/", expect=200).content
        released[strategy] = [json.loads(line) for line in body.decode().splitlines() if line]
        assert len(released[strategy]) == len(POSTS)

    page = log_in(browser, stack, "admin")
    page.goto(f"/projects/{PROJECT}/releases/")
    page.select_option("select[name=strategy]", "S3")
    page.select_option("select[name=format]", "csv")
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.get_by_role("button", name="Cut a release").click()
    rows = wait_for(
        lambda: admin.get("releases/")["results"],
        lambda rows: rows[0]["format"] == "csv" and rows[0]["status"] == "done",
        120,
        "the release cut on the page",
    )
    page.goto(f"/projects/{PROJECT}/releases/{rows[0]['id']}/")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the data").click()
    text = download.value.path().read_text(encoding="utf-8")
    released["S3-csv"] = [
        {**row, "spans": json.loads(row["spans"])} for row in csv.DictReader(io.StringIO(text))
    ]
    page.context.close()
    return released


def _folded(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def assert_no_original_in(
    releases: dict[str, list[dict[str, Any]]], admin: Api, documents: dict[str, int]
) -> None:
    """Neither an identifier the corpus names nor the surface of any span a person accepted
    (and did not keep) is in any released text, case and Unicode form aside."""
    every = {_folded(surface) for surface in originals()}
    for post in POSTS:
        spans = admin.get(f"documents/{documents[post.external_id]}/spans/?limit=1000")
        every |= {
            _folded(post.text[s["start"] : s["end"]])
            for s in spans["results"]
            if s["status"] == "accepted" and s["decision"] != "keep"
        }
    for strategy, documents in releases.items():
        for document in documents:
            text = _folded(document["text"])
            leaked = sorted(original for original in every if original in text)
            assert not leaked, f"{strategy} {document['id']}: {len(leaked)} originals left"


def assert_one_pseudonym_across_languages(
    releases: dict[str, list[dict[str, Any]]], admin: Api, documents: dict[str, int]
) -> None:
    """Where CROSS_LANGUAGE stood, every document of every language shows the same text: the
    lead's pseudonym when realistic, one numbered placeholder under S3."""
    for strategy in ("realistic", "S3", "S3-csv"):
        shown: set[str] = set()
        for document in releases[strategy]:
            post = by_id(document["id"])
            spans = admin.get(f"documents/{documents[post.external_id]}/spans/?limit=1000")
            decided = sorted(
                (s["start"], s["end"]) for s in spans["results"] if s["status"] == "accepted"
            )
            rendered = sorted(document["spans"], key=lambda s: (s["start"], s["end"]))
            assert len(rendered) == len(decided), (strategy, post.external_id)
            for (start, end), span in zip(decided, rendered, strict=True):
                if post.text[start:end] == CROSS_LANGUAGE:
                    shown.add(document["text"][span["start"] : span["end"]])
        assert len(shown) == 1, (strategy, shown)
        if strategy == "realistic":
            assert shown == {LEAD_PSEUDONYM}


def assert_the_keys_reads_were_audited(admin: Api) -> None:
    reads = admin.get("audit/?action=key_read,key_search&actor=lead")["results"]
    assert reads, "the lead's reads of the key table left no audit event"


def _session_payload(data: str) -> str:
    """What a `django_session` row holds, as anyone who reads it can decode it: the signed
    value's payload, base64 and perhaps zlib, needs no key (only the signature does)."""
    payload = data.split(":", 1)[0]
    compressed = payload.startswith(".")
    payload = payload.lstrip(".")
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    text = (zlib.decompress(raw) if compressed else raw).decode("utf-8")
    return json.dumps(json.loads(text), ensure_ascii=False)  # "\u0639" as written


def assert_no_pseudonym_where_the_web_role_reads(stack: Stack) -> None:
    """Issue 32: with the documents' text, a pseudonym beside offsets or a span is a key. After
    the whole loop, every table the web role reads in `public` holds no pseudonym of the
    table: neither in a column nor in a session (the undo stack kept them there)."""
    pseudonyms = {
        row[0] for row in stack.sql(
            f"SELECT replacement FROM {KEYS_SCHEMA}.keys_alias WHERE length(replacement) > 3"
        )
    }  # fmt: skip
    assert pseudonyms, "the loop decided nothing?"
    tables = [
        row[0] for row in stack.sql_as_web(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
        )
    ]  # fmt: skip
    assert "annotator_span" in tables and "django_session" in tables, tables
    found: dict[str, int] = {}
    for table in tables:
        rows = [row[0] for row in stack.sql_as_web(f'SELECT t::text FROM "{table}" t')]
        if table == "django_session":
            rows = [_session_payload(row[0]) for row in
                    stack.sql_as_web("SELECT session_data FROM django_session")]  # fmt: skip
        held = {pseudonym for pseudonym in pseudonyms for row in rows if pseudonym in row}
        if held:
            found[table] = len(held)
    assert not found, f"pseudonyms the web role reads, by table: {found}"


def assert_no_original_logged(stack: Stack) -> None:
    every = {_folded(surface) for surface in originals()}
    for name, text in stack.logs().items():
        folded = _folded(text)
        logged = [original for original in every if original in folded]
        assert not logged, f"the {name} log holds {len(logged)} original(s)"
