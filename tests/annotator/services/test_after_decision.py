"""What follows a decision: the span service tells `annotator.services.after_decision` what
each write did, and that one module lists, in order, what it sets off (propagation,
learning, quality, the lead's review of a refusal)."""

from __future__ import annotations

import logging
from typing import Any

import kombu.exceptions
import pytest
from django.core.cache import cache

from annotator import tasks
from annotator.models import (
    DocumentStatus,
    PendingPropagation,
    ReviewItem,
    SpanSource,
    SpanStatus,
)
from annotator.services import after_decision, learning, propagation, quality
from annotator.services.review import attempts
from annotator.services.review.scan import review_scan_request
from annotator.services.span_events import Decided, NewChoice, Refused
from annotator.services.spans import (
    SpanChange,
    document_status_set,
    span_create,
    span_delete,
    span_update,
)
from annotator.services.table import SurfaceConflict, surface_decide
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard(monkeypatch: Any) -> dict[str, list[Any]]:
    """What follows a decision replaced by two lists that hear every event."""
    events: dict[str, list[Any]] = {"decided": [], "refused": []}
    monkeypatch.setattr(after_decision, "decided", events["decided"].append)
    monkeypatch.setattr(after_decision, "refused", events["refused"].append)
    return events


def test_what_follows_a_decision_is_one_list_in_order(team: Team, monkeypatch: Any) -> None:
    """Issue 32: the steps registered themselves as their modules were imported, so a reader
    of `span_update` could not see them, nor their order. One module calls them, in order."""
    called: list[str] = []
    steps = [(propagation, "new_choices_propagate"), (learning, "decisions_count"),
             (quality, "document_done"), (attempts, "refusal_record")]  # fmt: skip
    for module, name in steps:
        monkeypatch.setattr(module, name, lambda event, name=name: called.append(name))
    after_decision.decided(event(team, span_ids=(7,)))
    after_decision.refused(object())  # type: ignore[arg-type]
    assert called == [name for _, name in steps]


def test_a_decision_publishes_one_event_and_sends_nothing_itself(
    team: Team, heard: dict[str, list[Any]], django_capture_on_commit_callbacks: Any
) -> None:
    document = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    span = SpanFactory(document=document, start=0, end=11, label="PER", source="ner")
    with django_capture_on_commit_callbacks() as callbacks:
        decided_span = span_update(
            document=document, span_id=span.pk, actor=team.annotator_en, version=1,
            change=SpanChange(status=SpanStatus.ACCEPTED),
        )  # fmt: skip
    assert callbacks == []  # what follows is replaced: it would send
    (event,) = heard["decided"]
    assert event.project == team.project and event.document_id == document.pk
    assert (event.language, event.replica, event.done) == ("en", False, False)
    assert event.actor_id == team.annotator_en.pk and event.span_ids == (span.pk,)
    (new,) = event.new_choices
    assert new.span_id == span.pk and new.alias_id > 0
    assert decided_span.entity_id is not None


def test_each_write_publishes_what_it_did(team: Team, heard: dict[str, list[Any]]) -> None:
    document = DocumentFactory(project=team.project, text="Moshe Chaya met Alice Martin.")
    added = span_create(document=document, actor=team.annotator_en, start=0, end=11, label="PER")
    again = SpanFactory(document=document, start=16, end=28, label="PER", source="ner")
    surface_decide(project=team.project, surface="Alice Martin", language="en", label="PER",
                   decision="pseudonymize", actor=team.lead)  # fmt: skip
    span_update(document=document, span_id=again.pk, actor=team.annotator_en, version=1,
                change=SpanChange(status=SpanStatus.ACCEPTED))  # fmt: skip
    span_delete(document=document, span_id=added.pk, actor=team.annotator_en, version=1)
    document_status_set(document=document, actor=team.annotator_en, status=DocumentStatus.DONE)
    created, accepted, deleted, done = heard["decided"]
    assert created.span_ids == (added.pk,) and len(created.new_choices) == 1
    assert accepted.span_ids == (again.pk,) and accepted.new_choices == ()  # known already
    assert deleted.span_ids == (added.pk,) and deleted.new_choices == ()
    assert done.span_ids == () and done.done is True
    assert heard["refused"] == []


def test_a_replica_says_so(team: Team, heard: dict[str, list[Any]]) -> None:
    original = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    replica = DocumentFactory(project=team.project, text=original.text, replica_of=original)
    span_create(document=replica, actor=team.annotator_en, start=0, end=11, label="PER")
    (event,) = heard["decided"]
    assert event.replica is True and event.new_choices == ()


def test_a_refused_decision_is_published_after_the_rollback(
    team: Team, heard: dict[str, list[Any]]
) -> None:
    surface_decide(project=team.project, surface="Moshe Chaya", language="en", label="PER",
                   decision="pseudonymize", actor=team.lead)  # fmt: skip
    document = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    span = SpanFactory(document=document, start=0, end=11, label="PER", source="ner")
    with pytest.raises(SurfaceConflict):
        span_update(document=document, span_id=span.pk, actor=team.annotator_en, version=1,
                    change=SpanChange(decision="keep", keep_reason="public"))  # fmt: skip
    (event,) = heard["refused"]
    assert (event.document, event.span_id, event.decision) == (document, span.pk, "keep")
    assert event.keep_reason == "public" and event.actor == team.annotator_en
    assert heard["decided"] == []  # rolled back: nothing decided
    assert not ReviewItem.objects.exists()  # what follows a refusal replaced


# --- Each subscriber, on its own ----------------------------------------------------------------


def event(team: Team, **kwargs: Any) -> Decided:
    fields: dict[str, Any] = {
        "project": team.project, "document_id": 1, "language": "en", "replica": False,
        "actor_id": None,
    }  # fmt: skip
    return Decided(**(fields | kwargs))


def test_propagation_records_each_new_choice_and_sends_one_pass_after_commit(
    team: Team, monkeypatch: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CLOAK_PROPAGATION_WINDOW = 2
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.propagate, "apply_async", lambda **kwargs: sent.append(kwargs))
    cache.delete(f"cloak:propagation-pass:{team.project.pk}")
    with django_capture_on_commit_callbacks(execute=True):
        propagation.new_choices_propagate(
            event(team, span_ids=(7,), new_choices=(NewChoice(3, 7),))
        )
        propagation.new_choices_propagate(event(team, span_ids=(8,)))
        propagation.new_choices_propagate(
            event(team, span_ids=(9,), new_choices=(NewChoice(4, 9),))
        )
        assert sent == []
    pending = PendingPropagation.objects.filter(project=team.project)
    assert set(pending.values_list("alias_id", "source_span_id")) == {(3, 7), (4, 9)}
    # One pass for both, a window after the first.
    assert sent == [{"args": [team.project.pk], "kwargs": {"retry": 0}, "countdown": 2}]
    cache.delete(f"cloak:propagation-pass:{team.project.pk}")


def test_learning_counts_each_decision_on_an_original_after_commit(
    team: Team, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    noted: list[tuple[Any, str]] = []
    monkeypatch.setattr(learning, "learning_note_decision", lambda p, lang: noted.append((p, lang)))
    with django_capture_on_commit_callbacks(execute=True):
        learning.decisions_count(event(team, span_ids=(7,)))
        learning.decisions_count(event(team, span_ids=(8,), replica=True))
        learning.decisions_count(event(team, done=True))
        assert noted == []
    assert noted == [(team.project, "en")]


def test_quality_warms_when_a_document_is_done(team: Team, monkeypatch: Any) -> None:
    asked: list[Any] = []
    monkeypatch.setattr(quality, "quality_warm_request", asked.append)
    quality.document_done(event(team, span_ids=(7,)))
    quality.document_done(event(team, done=True))
    assert asked == [team.project]


def test_review_records_a_refused_decision(team: Team) -> None:
    choice = surface_decide(project=team.project, surface="Moshe Chaya", language="en",
                            label="PER", decision="pseudonymize", actor=team.lead)  # fmt: skip
    document = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    span = SpanFactory(document=document, start=0, end=11, label="PER", source=SpanSource.NER)
    conflict = SurfaceConflict("decided otherwise", choice)
    attempts.refusal_record(Refused(document=document, actor=team.annotator_en, conflict=conflict,
                            decision="keep", span_id=span.pk))  # fmt: skip
    (item,) = ReviewItem.objects.all()
    assert item.span_id == span.pk and item.raised_by == team.annotator_en


# --- A task that is no job's ----------------------------------------------------------------


def test_a_broker_that_refuses_a_task_is_logged_by_kind_and_the_write_stands(
    team: Team, monkeypatch: Any, django_capture_on_commit_callbacks: Any, caplog: Any
) -> None:
    def down(*args: Any) -> None:
        raise kombu.exceptions.OperationalError("Moshe Chaya")

    monkeypatch.setattr(tasks.review_scan, "delay", down)
    with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
        assert review_scan_request(project=team.project, force=True) is True
    assert "annotator.tasks.review_scan could not be sent (OperationalError)" in caplog.text
    assert "Moshe" not in caplog.text
