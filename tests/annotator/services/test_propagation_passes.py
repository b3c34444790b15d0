"""Propagation in passes: the decisions of a window go out in one pass, which never waits for
a person's write and loses nothing when it fails."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from annotator import tasks
from annotator.models import Document, PendingPropagation, Span, SpanSource, SpanStatus
from annotator.selectors import corpus
from annotator.services import propagation
from annotator.services.propagation import propagation_pass, propagation_run
from annotator.services.spans import SpanChange, span_update
from annotator.services.table import surface_decide
from tests.conftest import Team
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory

NAMES = [
    "Moshe Chaya", "Sarah Levi", "Karim Benali", "Ana Silva", "Tom Reddle", "Marie Delattre",
    "Omar Rossi", "Lina Haddad", "Paul Weber", "Ines Costa", "Yusuf Said", "Zara Quinn",
]  # fmt: skip


@pytest.fixture
def sent(monkeypatch: Any) -> Iterator[list[dict[str, Any]]]:
    """The passes sent (their task is not run)."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.propagate, "apply_async", lambda **kwargs: calls.append(kwargs))
    yield calls


def decide(project: Any, surface: str, language: str = "en") -> Any:
    return surface_decide(
        project=project, surface=surface, language=language, label="PER", decision="pseudonymize"
    )


def accept(document: Document, start: int, end: int, actor: Any) -> Span:
    span = SpanFactory(document=document, start=start, end=end, label="PER", source="ner")
    return span_update(
        document=document, span_id=span.pk, actor=actor, version=1,
        change=SpanChange(status="accepted"),
    )  # fmt: skip


def test_the_decisions_of_a_window_are_proposed_in_one_pass(
    team: Team, sent: list[dict[str, Any]], settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CLOAK_PROPAGATION_WINDOW = 3
    cache.delete(f"cloak:propagation-pass:{team.project.pk}")  # none left by an earlier run
    names = NAMES[:3]
    decided = [DocumentFactory(project=team.project, text=f"{name} wrote first.") for name in names]
    elsewhere = [
        DocumentFactory(project=team.project, text=f"Later, {name} and nobody else.")
        for name in names
    ]
    for document, name in zip(decided, names, strict=True):
        with django_capture_on_commit_callbacks(execute=True):
            accept(document, 0, len(name), team.annotator_en)
    # Three decisions new to the table: one pass, sent a window after the first.
    assert sent == [{"args": [team.project.pk], "kwargs": {"retry": 0}, "countdown": 3}]
    assert PendingPropagation.objects.filter(project=team.project).count() == 3

    summary = propagation_run(project_id=team.project.pk)

    assert (summary.choices, summary.proposed, summary.skipped) == (3, 3, 0)
    for document, name in zip(elsewhere, names, strict=True):
        (span,) = Span.objects.filter(document=document)
        assert document.text[span.start : span.end] == name
        assert (span.source, span.status) == (SpanSource.KNOWN, SpanStatus.PROPOSED)
    assert not PendingPropagation.objects.exists()
    # The decided documents keep their one span: a pass never proposes over its source.
    assert all(Span.objects.filter(document=d).count() == 1 for d in decided)
    # A decision once the pass has begun gets a pass of its own.
    late = DocumentFactory(project=team.project, text=f"{NAMES[5]} came late.")
    with django_capture_on_commit_callbacks(execute=True):
        accept(late, 0, len(NAMES[5]), team.annotator_en)
    assert len(sent) == 2


def test_a_decision_that_rolls_back_leaves_nothing_to_propagate(
    team: Team, sent: list[dict[str, Any]], django_capture_on_commit_callbacks: Any
) -> None:
    document = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        accept(document, 0, 11, team.annotator_en)
        raise RuntimeError("the request failed after the decision")
    assert sent == []
    assert not PendingPropagation.objects.exists()


def test_many_surfaces_are_found_as_one_would_be(team: Team) -> None:
    """Past a few surfaces, the pass narrows in one read and matches the whole text once: it
    finds what the per-surface search finds, proclitics and other spellings included."""
    texts = [f"Post: {name} and {name.upper()} again." for name in NAMES]
    documents = [DocumentFactory(project=team.project, text=text) for text in texts]
    arabic = DocumentFactory(
        project=team.project, language="ar", text="قال لموشيه حايا وموشيه حايا"
    )
    untouched = DocumentFactory(project=team.project, text="Nobody named here.")
    for name in NAMES:
        PendingPropagation.objects.create(
            project=team.project, alias_id=decide(team.project, name).alias_id
        )
    PendingPropagation.objects.create(
        project=team.project, alias_id=decide(team.project, "موشيه حايا", "ar").alias_id
    )
    assert len(NAMES) + 1 > max(corpus.FEW_KEYS, propagation._Finder.FEW)

    summary = propagation_pass(project_id=team.project.pk)

    assert summary.choices == len(NAMES) + 1
    for document, name in zip(documents, NAMES, strict=True):
        spans = Span.objects.filter(document=document).order_by("start")
        assert [document.text[s.start : s.end] for s in spans] == [name, name.upper()]
    found = [
        arabic.text[s.start : s.end] for s in Span.objects.filter(document=arabic).order_by("start")
    ]
    assert found == ["موشيه حايا", "موشيه حايا"]
    assert not Span.objects.filter(document=untouched).exists()


@pytest.mark.parametrize("few", [0, 100])
def test_the_narrowing_is_the_same_read_by_the_database_or_by_the_automaton(
    db: Any, monkeypatch: Any, few: int
) -> None:
    monkeypatch.setattr(corpus, "FEW_KEYS", few)
    project = ProjectFactory(languages=["en"])
    holding = [
        DocumentFactory(project=project, text="Moshé CHAYA wrote."),
        DocumentFactory(project=project, text="and sarah_levi% too"),
    ]
    DocumentFactory(project=project, text="Nobody named here.")
    DocumentFactory(project=project, replica_of=holding[0], text=holding[0].text)  # a replica
    DocumentFactory(text="Moshe Chaya, in another project.")
    keys = ["moshe chaya", "sarah_levi%", "absent"]
    assert list(corpus.documents_holding(project.pk, keys)) == [d.pk for d in holding]
    within = [holding[1].pk]
    assert list(corpus.documents_holding(project.pk, keys, within=within)) == within


def test_a_failed_pass_puts_its_choices_back(team: Team, monkeypatch: Any) -> None:
    first = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    second = DocumentFactory(project=team.project, text="Sarah Levi wrote.")
    for name in ("Moshe Chaya", "Sarah Levi"):
        PendingPropagation.objects.create(
            project=team.project, alias_id=decide(team.project, name).alias_id
        )
    monkeypatch.setattr(propagation, "GROUP", 1)
    write = propagation._occurrences_write
    calls: list[int] = []

    def crash_on_second(*args: Any, **kwargs: Any) -> set[int]:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the worker broke in the middle")
        return write(*args, **kwargs)

    monkeypatch.setattr(propagation, "_occurrences_write", crash_on_second)
    with pytest.raises(RuntimeError):
        propagation_pass(project_id=team.project.pk)
    assert Span.objects.filter(document=first).count() == 1  # written before the crash
    pending = PendingPropagation.objects.filter(project=team.project)
    assert pending.count() == 2 and not pending.filter(claim__isnull=False).exists()

    monkeypatch.setattr(propagation, "_occurrences_write", write)
    summary = propagation_pass(project_id=team.project.pk)
    assert (summary.choices, summary.proposed) == (2, 1)  # the first is in place already
    assert Span.objects.filter(document=first).count() == 1
    assert Span.objects.filter(document=second).count() == 1
    assert not PendingPropagation.objects.exists()


def test_a_dead_workers_claim_is_taken_over_once_stale(team: Team, settings: Any) -> None:
    settings.CLOAK_JOB_STALE_AFTER = 600
    document = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    alias_id = decide(team.project, "Moshe Chaya").alias_id
    row = PendingPropagation.objects.create(
        project=team.project, alias_id=alias_id, claim=uuid.uuid4(), claimed_at=timezone.now()
    )
    assert propagation_pass(project_id=team.project.pk).choices == 0  # another pass holds it
    assert not Span.objects.filter(document=document).exists()
    PendingPropagation.objects.filter(pk=row.pk).update(
        claimed_at=timezone.now() - timedelta(seconds=601)
    )
    assert propagation_pass(project_id=team.project.pk).proposed == 1
    assert not PendingPropagation.objects.exists()


def test_the_reaper_sends_a_pass_for_choices_no_pass_is_coming_for(
    team: Team, sent: list[dict[str, Any]], settings: Any
) -> None:
    settings.CLOAK_PROPAGATION_WINDOW = 2
    settings.CLOAK_JOB_STALE_AFTER = 600
    other = ProjectFactory()
    key = propagation._pass_key
    for project in (team.project, other):
        cache.delete(key(project.pk))
    now = timezone.now()
    alias_id = decide(team.project, "Moshe Chaya").alias_id
    # Recorded while the broker was away: nothing was sent, nothing is claimed.
    forgotten = PendingPropagation.objects.create(project=team.project, alias_id=alias_id)
    # Just recorded: its own pass is on its way. Claimed by a live pass: being written.
    PendingPropagation.objects.create(project=other, alias_id=alias_id)
    held = PendingPropagation.objects.create(
        project=other, alias_id=alias_id, claim=uuid.uuid4(), claimed_at=now
    )
    PendingPropagation.objects.filter(pk=held.pk).update(created_at=now - timedelta(hours=1))
    PendingPropagation.objects.filter(pk=forgotten.pk).update(created_at=now - timedelta(hours=1))

    counts = tasks.jobs_reap()

    assert counts["propagation_passes"] == 1
    assert sent == [{"args": [team.project.pk], "kwargs": {"retry": 0}, "countdown": 2}]
    # A dead worker's claim is swept too, once stale.
    PendingPropagation.objects.filter(pk=held.pk).update(claimed_at=now - timedelta(hours=1))
    assert tasks.jobs_reap()["propagation_passes"] == 1
    assert sent[-1]["args"] == [other.pk]


@pytest.mark.django_db(transaction=True)
def test_a_document_a_person_holds_is_skipped_and_proposed_in_a_later_pass(
    sent: list[dict[str, Any]],
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    project = ProjectFactory(languages=["en"])
    free, held = (
        DocumentFactory(project=project, text=f"Post {n}: Moshe Chaya was here.") for n in (1, 2)
    )
    PendingPropagation.objects.create(
        project=project, alias_id=decide(project, "Moshe Chaya").alias_id
    )
    locked, release = threading.Event(), threading.Event()

    def person_writing() -> None:
        # Another connection: a person's write that holds the document's row.
        try:
            with transaction.atomic():
                Document.objects.select_for_update().get(pk=held.pk)
                locked.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    person = threading.Thread(target=person_writing)
    person.start()
    try:
        assert locked.wait(timeout=30)
        summary = propagation_run(project_id=project.pk)  # does not wait for the person
    finally:
        release.set()
        person.join()

    assert (summary.proposed, summary.skipped) == (1, 1)
    assert Span.objects.filter(document=free).count() == 1
    assert not Span.objects.filter(document=held).exists()
    (row,) = PendingPropagation.objects.filter(project=project)
    assert (row.document_ids, row.claim) == ([held.pk], None)
    # The task sends itself again, later, for the document it skipped.
    assert [call["kwargs"] for call in sent] == [{"retry": 1}]
    assert sent[0]["countdown"] > 0

    summary = propagation_run(project_id=project.pk, retry=1)
    assert (summary.documents_searched, summary.proposed, summary.skipped) == (1, 1, 0)
    assert Span.objects.filter(document=held).count() == 1
    assert not PendingPropagation.objects.exists()
