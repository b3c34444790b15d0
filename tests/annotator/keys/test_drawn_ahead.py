"""Pseudonyms drawn ahead (`annotator.keys.drawn_ahead`): the worker draws what a decision
would, and the decision takes it; when a pseudonym is drawn changes, never which."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from annotator.keys import surfaces as key_surfaces
from annotator.keys.models import DrawnAhead, UndoNote
from annotator.models import Project, SpanStatus
from annotator.services import draw_ahead as draw_ahead_service
from annotator.services.draw_ahead import document_draw_ahead, draw_ahead_ask
from annotator.services.imports import documents_import
from annotator.services.jobs import task
from annotator.services.table import (
    project_keys_delete,
    pseudonyms_draw_ahead,
    surface_choice,
    surface_decide,
    undo_note_write,
)
from tests.data import SAMPLE_CORPUS
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory

pytestmark = pytest.mark.django_db

SECRET = "one-secret-for-both-projects-drawn-ahead-0123456789"


def gold_surfaces() -> list[tuple[str, str, str]]:
    """(surface, label, language) of the sample corpus's gold spans, in order, once each."""
    seen: dict[tuple[str, str, str], None] = {}
    for line in SAMPLE_CORPUS.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for span in record.get("spans", []):
            surface = record["text"][span["start"] : span["end"]]
            seen.setdefault((surface, span["label"], record["lang"]), None)
    return list(seen)


def project_with_corpus(slug: str) -> Project:
    project = ProjectFactory(slug=slug, languages=["en", "fr", "ar"])
    Project.objects.filter(pk=project.pk).update(secret=SECRET)
    project.refresh_from_db()
    documents_import(project=project, path=SAMPLE_CORPUS)
    return project


def decide_all(project: Project, wanted: list[tuple[str, str, str]]) -> dict[str, str | None]:
    chosen: dict[str, str | None] = {}
    for surface, label, language in wanted:
        choice = surface_decide(
            project=project, surface=surface, language=language, label=label,
            decision="pseudonymize",
        )  # fmt: skip
        chosen[f"{surface}|{label}"] = choice.replacement
    return chosen


@pytest.fixture
def no_draw(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Record the surfaces a decision draws for itself."""
    drawn: list[str] = []
    real = key_surfaces._draw

    def counted(scope: Any, surface: str, *args: Any, **kwargs: Any) -> str:
        drawn.append(surface)
        return real(scope, surface, *args, **kwargs)

    monkeypatch.setattr(key_surfaces, "_draw", counted)
    yield drawn


def test_drawing_ahead_gives_every_surface_of_the_sample_the_pseudonym_it_would_draw(
    no_draw: list[str],
) -> None:
    wanted = gold_surfaces()
    assert len(wanted) > 40
    drawn_in_the_request = decide_all(project_with_corpus("drawn-here"), wanted)
    asked = len(no_draw)
    assert asked > 20

    ahead = project_with_corpus("drawn-ahead")
    assert pseudonyms_draw_ahead(ahead, wanted) > 20
    no_draw.clear()
    drawn_before = decide_all(ahead, wanted)
    assert drawn_before == drawn_in_the_request
    # Most decisions took theirs: the rest drew again past one another surface took first
    # (two surfaces drawn ahead alike), or a name they follow.
    assert len(no_draw) < asked / 4, (len(no_draw), asked)
    assert DrawnAhead.objects.filter(project_id=ahead.pk).count() < len(wanted) / 2


def test_a_pseudonym_drawn_ahead_that_became_an_original_is_drawn_past() -> None:
    here, ahead = project_with_corpus("past-here"), project_with_corpus("past-ahead")
    wanted = [("Zebulon Marchetti", "PER", "en")]
    pseudonyms_draw_ahead(ahead, wanted)
    taken = DrawnAhead.objects.get(project_id=ahead.pk).replacement
    # Meanwhile someone's name turns out to be that pseudonym, in both projects alike.
    for project in (here, ahead):
        surface_decide(project=project, surface=taken, language="en", label="PER",
                       decision="keep", keep_reason="public figure")  # fmt: skip
    first = decide_all(here, wanted)
    assert decide_all(ahead, wanted) == first
    assert first["Zebulon Marchetti|PER"] != taken


def test_a_pseudonym_drawn_ahead_that_another_surface_took_is_drawn_past() -> None:
    ahead = project_with_corpus("taken-ahead")
    pseudonyms_draw_ahead(ahead, [("Zebulon Marchetti", "PER", "en")])
    taken = DrawnAhead.objects.get(project_id=ahead.pk).replacement
    other = surface_decide(project=ahead, surface="Quirin Abadi", language="en", label="PER",
                           decision="pseudonymize", replacement=taken)  # fmt: skip
    assert other.replacement == taken
    choice = surface_decide(project=ahead, surface="Zebulon Marchetti", language="en",
                            label="PER", decision="pseudonymize")  # fmt: skip
    assert choice.replacement and choice.replacement != taken
    assert not DrawnAhead.objects.filter(project_id=ahead.pk).exists()


def test_a_pseudonym_drawn_ahead_that_a_new_document_holds_is_drawn_past(tmp_path: Any) -> None:
    ahead = project_with_corpus("corpus-ahead")
    pseudonyms_draw_ahead(ahead, [("Zebulon Marchetti", "PER", "en")])
    taken = DrawnAhead.objects.get(project_id=ahead.pk).replacement
    path = tmp_path / "later.jsonl"
    path.write_text(json.dumps({"id": "later", "lang": "en", "text": f"Hello {taken}."}) + "\n")
    documents_import(project=ahead, path=path)
    choice = surface_decide(project=ahead, surface="Zebulon Marchetti", language="en",
                            label="PER", decision="pseudonymize")  # fmt: skip
    assert choice.replacement and choice.replacement != taken


def test_what_is_drawn_for_a_surface_decided_otherwise_is_forgotten() -> None:
    project = ProjectFactory(slug="forgotten", languages=["en"])
    pseudonyms_draw_ahead(project, [("Zebulon Marchetti", "PER", "en")])
    surface_decide(project=project, surface="Zebulon Marchetti", language="en", label="PER",
                   decision="keep", keep_reason="public figure")  # fmt: skip
    assert DrawnAhead.objects.filter(project_id=project.pk).count() == 1
    assert pseudonyms_draw_ahead(project, [("Zebulon Marchetti", "PER", "en")]) == 0
    assert not DrawnAhead.objects.filter(project_id=project.pk).exists()


def test_a_document_opened_asks_once_and_draws_its_proposals_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache.clear()
    sent: list[int] = []
    monkeypatch.setattr(draw_ahead_service, "task_send_on_commit", lambda name, pk: sent.append(pk))
    project = ProjectFactory(slug="opened", languages=["en"])
    text = "Zebulon Marchetti met Quirin Abadi and Ottoline Vexley."
    document = DocumentFactory(project=project, language="en", text=text)
    for surface, status, decision in [
        ("Zebulon Marchetti", SpanStatus.PROPOSED, "pseudonymize"),
        ("Quirin Abadi", SpanStatus.PROPOSED, "delete"),  # deleted: nothing to draw
        ("Ottoline Vexley", SpanStatus.REJECTED, "pseudonymize"),
    ]:
        start = text.index(surface)
        SpanFactory(document=document, start=start, end=start + len(surface), label="PER",
                    status=status, decision=decision)  # fmt: skip
    assert draw_ahead_ask(document) and not draw_ahead_ask(document)
    assert sent == [document.pk]
    assert task(draw_ahead_service.TASK).name == "annotator.tasks.pseudonyms_draw_ahead"
    replica = DocumentFactory(project=project, language="en", text=text, replica_of=document)
    assert not draw_ahead_ask(replica)

    assert document_draw_ahead(document.pk) == 1
    assert document_draw_ahead(replica.pk) == 0
    assert surface_choice(project, "Zebulon Marchetti") is None  # drawn, not decided


def test_a_deleted_project_leaves_nothing_drawn_ahead_nor_undo_notes() -> None:
    project = ProjectFactory(slug="gone", languages=["en"])
    pseudonyms_draw_ahead(project, [("Zebulon Marchetti", "PER", "en")])
    undo_note_write(project, step_id=424242, pseudonyms={1: "Raj Avrom"})
    project_keys_delete(project.pk)
    assert not DrawnAhead.objects.filter(project_id=project.pk).exists()
    assert not UndoNote.objects.filter(project_id=project.pk).exists()


def test_a_cache_down_leaves_the_document_open_and_draws_nothing_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def down(*args: Any, **kwargs: Any) -> bool:
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(draw_ahead_service.cache, "add", down)
    sent: list[int] = []
    monkeypatch.setattr(draw_ahead_service, "task_send_on_commit", lambda name, pk: sent.append(pk))
    document = DocumentFactory(project=ProjectFactory(slug="cache-down", languages=["en"]))
    assert not draw_ahead_ask(document)
    assert sent == []
