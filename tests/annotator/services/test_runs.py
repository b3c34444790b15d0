"""Pre-annotation runs: batches, replacement of untouched proposals, labels, retries, resume."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import kombu.exceptions
import pytest
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext

from annotator import tasks
from annotator.celery import app as celery_app
from annotator.errors import DomainError
from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    DocumentStatus,
    JobStatus,
    PreannotationRun,
    RunBatch,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.services import runs
from annotator.services.jobs import job_fail, jobs_reap
from pseudonymizer.detection import Detection, Detector
from pseudonymizer.schemas import preset
from pseudonymizer.spans import Span as EngineSpan
from tests.conftest import Team
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory

pytestmark = pytest.mark.django_db

EMAIL_TEXT = "Write to moshe@example.org or see #freedom."
EMAIL = (9, 26)  # moshe@example.org
HASHTAG = (34, 42)  # #freedom


@pytest.fixture(autouse=True)
def _no_models(settings: Any) -> None:
    # Patterns and known entities only, unless a test names a model.
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}


def start(django_capture_on_commit_callbacks: Any, **kwargs: Any) -> PreannotationRun:
    """Start a run and let its (eager) tasks run, as they would once the run commits."""
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_create(actor=None, **kwargs)
    run.refresh_from_db()
    return run


def machine_spans(document: Document) -> list[tuple[int, int, str, str]]:
    return list(
        Span.objects.filter(document=document, run__isnull=False)
        .order_by("start")
        .values_list("start", "end", "label", "source")
    )


def fake_ner(found: dict[str, Sequence[tuple[int, int, str]]]) -> Callable[..., Detection]:
    """Detector.ner that tags each text's given (start, end, label) without a model."""

    def ner(self: Detector, texts: Sequence[str], language: str) -> Detection:
        spans = [
            [EngineSpan(s, e, label, 0.9, source="ner") for s, e, label in found.get(text, ())]
            for text in texts
        ]
        return Detection(spans=spans, errors={})

    return ner


# --- Starting ---------------------------------------------------------------------------------


def test_a_run_proposes_pattern_spans_and_finishes(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    document = DocumentFactory(project=team.project, text=EMAIL_TEXT)
    run = start(django_capture_on_commit_callbacks, project=team.project)
    assert run.status == JobStatus.DONE
    assert run.started_at and run.finished_at
    assert (run.documents_done, run.documents_total, run.spans_created) == (1, 1, 2)
    assert machine_spans(document) == [(*EMAIL, "EMAIL", "regex"), (*HASHTAG, "HASHTAG", "regex")]
    assert Span.objects.filter(run=run, status=SpanStatus.PROPOSED).count() == 2
    document.refresh_from_db()
    assert document.status == DocumentStatus.PREANNOTATED
    assert run.recognizers == ["regex", "known"]
    # English, and Arabic that reads its stretches in Arabic letters: neither has a model.
    assert run.models_used == {"en": "", "ar": ""}


def test_documents_are_cut_into_batches_by_language_in_order(team: Team, settings: Any) -> None:
    settings.CLOAK_RUN_BATCH_SIZE = 2
    english = [DocumentFactory(project=team.project, language="en") for _ in range(5)]
    french = DocumentFactory(project=team.project, language="fr")
    run = runs.run_create(project=team.project, actor=team.admin)
    batches = list(run.batches.order_by("number").values_list("number", "language", "document_ids"))
    ids = [document.pk for document in english]
    assert batches == [
        (1, "en", ids[0:2]),
        (2, "en", ids[2:4]),
        (3, "en", ids[4:5]),
        (4, "fr", [french.pk]),
    ]
    assert run.documents_total == 6
    assert run.status == JobStatus.QUEUED


def test_a_run_of_one_language_takes_only_its_documents(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    english = DocumentFactory(project=team.project, language="en", text=EMAIL_TEXT)
    french = DocumentFactory(project=team.project, language="fr", text=EMAIL_TEXT)
    run = start(django_capture_on_commit_callbacks, project=team.project, language="fr")
    assert run.language == "fr" and run.documents_total == 1
    assert machine_spans(english) == []
    assert len(machine_spans(french)) == 2


def test_starting_a_run_is_audited(team: Team) -> None:
    DocumentFactory(project=team.project)
    run = runs.run_create(project=team.project, actor=team.admin, profile="precise")
    event = AuditEvent.objects.get(action=AuditAction.PREANNOTATE)
    assert event.actor == team.admin and event.project == team.project
    assert event.target == f"run:{run.pk}"
    assert event.detail["profile"] == "precise" and event.detail["documents"] == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"language": "de"}, "not one of the project's"),
        ({"profile": "greedy"}, "unknown detection profile"),
        ({"language": "ar"}, "no documents in ar"),
    ],
)
def test_a_run_that_cannot_be_is_refused(team: Team, kwargs: dict[str, str], message: str) -> None:
    DocumentFactory(project=team.project, language="en")
    with pytest.raises(DomainError, match=message):
        runs.run_create(project=team.project, actor=team.admin, **kwargs)
    assert not PreannotationRun.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditAction.PREANNOTATE).exists()


def test_a_second_run_over_the_same_documents_waits_for_the_first(team: Team) -> None:
    DocumentFactory(project=team.project, language="en")
    DocumentFactory(project=team.project, language="fr")
    first = runs.run_create(project=team.project, actor=team.admin, language="en")
    with pytest.raises(DomainError, match=f"run {first.pk} is still queued"):
        runs.run_create(project=team.project, actor=team.admin)
    # Another language's documents are not the first run's.
    runs.run_create(project=team.project, actor=team.admin, language="fr")


# --- What a run replaces, and what it never touches ---------------------------------------------


def test_spans_a_person_decided_and_imported_spans_stay(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    document = DocumentFactory(project=team.project, text=EMAIL_TEXT + " Ring +33 6 12 34 56 78.")
    earlier = PreannotationRun.objects.create(project=team.project, status=JobStatus.DONE)
    machine = {"run": earlier, "source": SpanSource.REGEX}
    accepted = SpanFactory(
        document=document, start=0, end=5, label="ORG", status="accepted", **machine
    )
    edited = SpanFactory(
        document=document, start=6, end=8, label="ORG", updated_by=team.lead, **machine
    )
    rejected = SpanFactory(
        document=document, start=9, end=26, label="URL", status="rejected", **machine
    )
    human = SpanFactory(document=document, start=27, end=29, label="PER", source=SpanSource.HUMAN)
    imported = SpanFactory(
        document=document, start=30, end=33, label="LOC", source=SpanSource.IMPORT
    )
    propagated = SpanFactory(
        document=document, start=34, end=42, label="ORG", source=SpanSource.KNOWN
    )
    untouched = SpanFactory(document=document, start=44, end=48, label="PER", **machine)
    kept = {accepted.pk, edited.pk, rejected.pk, human.pk, imported.pk, propagated.pk}

    run = start(django_capture_on_commit_callbacks, project=team.project)

    remaining = set(Span.objects.filter(document=document).values_list("pk", flat=True))
    assert kept <= remaining
    assert untouched.pk not in remaining
    rejected.refresh_from_db()
    assert (rejected.status, rejected.label) == ("rejected", "URL")
    # The e-mail and the hashtag lie whole in spans that stay: only the phone number is new.
    assert list(Span.objects.filter(run=run).values_list("label", flat=True)) == ["PHONE"]
    assert run.spans_created == 1


def test_a_new_span_reaching_beyond_one_that_stays_is_proposed_beside_it(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    document = DocumentFactory(project=team.project, text=EMAIL_TEXT)
    # A person marked the name inside the address: the address is still proposed whole, or
    # "@example.org" would go out unseen beside the name's pseudonym.
    person = SpanFactory(document=document, start=9, end=14, label="PER", source=SpanSource.HUMAN,
                         status="accepted")  # fmt: skip
    start(django_capture_on_commit_callbacks, project=team.project)
    assert machine_spans(document) == [(*EMAIL, "EMAIL", "regex"), (*HASHTAG, "HASHTAG", "regex")]
    person.refresh_from_db()
    assert (person.start, person.end, person.status) == (9, 14, "accepted")


def test_a_rerun_replaces_untouched_proposals_and_never_duplicates(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    document = DocumentFactory(project=team.project, text=EMAIL_TEXT)
    first = start(django_capture_on_commit_callbacks, project=team.project)
    # A person accepts the e-mail; the hashtag stays untouched.
    Span.objects.filter(run=first, label="EMAIL").update(status="accepted", decided_by=team.admin)
    second = start(django_capture_on_commit_callbacks, project=team.project)
    spans = list(
        Span.objects.filter(document=document).order_by("start").values_list("label", "run_id")
    )
    assert spans == [("EMAIL", first.pk), ("HASHTAG", second.pk)]
    third = start(django_capture_on_commit_callbacks, project=team.project)
    assert Span.objects.filter(document=document).count() == 2
    assert third.spans_created == 1


def test_a_document_someone_works_on_keeps_its_status(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    new = DocumentFactory(project=team.project, text=EMAIL_TEXT)
    busy = DocumentFactory(project=team.project, text=EMAIL_TEXT, status=DocumentStatus.IN_PROGRESS)
    start(django_capture_on_commit_callbacks, project=team.project)
    new.refresh_from_db()
    busy.refresh_from_db()
    assert (new.status, new.version) == (DocumentStatus.PREANNOTATED, 2)
    assert (busy.status, busy.version) == (DocumentStatus.IN_PROGRESS, 1)


# --- Labels -----------------------------------------------------------------------------------


def test_labels_are_mapped_onto_the_schema_and_unmapped_ones_dropped(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    team.project.label_schema = preset("multigrascco")
    team.project.save(update_fields=["label_schema"])
    text = "Mail moshe@example.org from 192.168.1.20 #freedom"
    document = DocumentFactory(project=team.project, text=text)
    start(django_capture_on_commit_callbacks, project=team.project)
    labels = [label for _, _, label, _ in machine_spans(document)]
    # EMAIL → CONTACT_EMAIL, IP → ID, HASHTAG → OTHER (multigrascco's catch-all).
    assert labels == ["CONTACT_EMAIL", "ID", "OTHER"]

    team.project.label_schema = {"labels": [{"name": "EMAIL"}]}
    team.project.save(update_fields=["label_schema"])
    start(django_capture_on_commit_callbacks, project=team.project)
    assert [label for _, _, label, _ in machine_spans(document)] == ["EMAIL"]


def test_known_surfaces_are_proposed_again(
    team: Team, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runs, "known_surfaces", lambda project: [("Moshe Chaya", "PER")])
    document = DocumentFactory(project=team.project, text="We met MOSHE CHAYA again.")
    start(django_capture_on_commit_callbacks, project=team.project)
    assert machine_spans(document) == [(7, 18, "PER", "known")]


# --- NER ----------------------------------------------------------------------------------------


def queues_of_batches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queue each batch step ran on, in order ("ner", "default"), as the run goes."""
    sent: list[str] = []
    real_ner, real_batch = runs.run_batch_ner, runs.run_batch_detect
    monkeypatch.setattr(runs, "run_batch_ner", lambda **kw: sent.append("ner") or real_ner(**kw))
    monkeypatch.setattr(
        runs, "run_batch_detect", lambda **kw: sent.append("default") or real_batch(**kw)
    )
    return sent


def test_a_language_with_a_model_goes_through_the_ner_queue_first(
    team: Team,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.CLOAK_NER_MODELS = {"en": "some-model", "fr": ""}
    text = "Moshe Chaya wrote to moshe@example.org"
    monkeypatch.setattr(Detector, "ner", fake_ner({text: [(0, 11, "PER")]}))
    sent = queues_of_batches(monkeypatch)
    english = DocumentFactory(project=team.project, language="en", text=text)
    french = DocumentFactory(project=team.project, language="fr", text=text)
    run = start(django_capture_on_commit_callbacks, project=team.project)
    assert run.status == JobStatus.DONE
    assert run.models_used == {"en": "some-model", "fr": "", "ar": ""}
    assert run.recognizers == ["regex", "known", "ner"]
    assert sent == ["ner", "default", "default"]
    assert machine_spans(english) == [(0, 11, "PER", "ner"), (21, 38, "EMAIL", "regex")]
    assert machine_spans(french) == [(21, 38, "EMAIL", "regex")]
    assert Span.objects.get(document=english, label="PER").score == pytest.approx(0.9)


def test_an_arabic_post_goes_through_the_ner_queue_for_its_latin_names(
    team: Team,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 29, 3: Arabic has no model, but the English one reads its Latin stretches: the
    batch goes to the `ner` queue, never running a model on the default one."""
    settings.CLOAK_NER_MODELS = {"en": "some-model", "fr": "", "ar": ""}
    text = "كتب Haytham Tarabishi منشورا"
    name = text.index("Haytham")
    monkeypatch.setattr(Detector, "ner", fake_ner({text: [(name, name + 17, "PER")]}))
    sent = queues_of_batches(monkeypatch)
    arabic = DocumentFactory(project=team.project, language="ar", text=text)
    run = start(django_capture_on_commit_callbacks, project=team.project, language="ar")
    assert run.models_used == {"ar": "", "en": "some-model"}
    assert sent == ["ner", "default"]
    assert (name, name + 17, "PER", "ner") in machine_spans(arabic)


def test_a_model_that_cannot_load_leaves_a_warning_and_the_pattern_spans(
    team: Team, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CLOAK_NER_MODELS = {"en": "spacy:no_such_pipeline"}
    document = DocumentFactory(project=team.project, text=EMAIL_TEXT)
    run = start(django_capture_on_commit_callbacks, project=team.project)
    assert run.status == JobStatus.DONE
    assert len(machine_spans(document)) == 2
    assert [(w["language"], w["recognizer"]) for w in run.warnings] == [("en", "ner")]
    assert run.warnings[0]["reason"]


def test_no_ner_records_no_model(team: Team, settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "some-model"}
    DocumentFactory(project=team.project)
    run = runs.run_create(project=team.project, actor=None, use_ner=False)
    assert run.models_used == {"en": ""}  # no model, and none for another script
    assert "ner" not in run.recognizers


# --- Safe to run twice --------------------------------------------------------------------------


def queued_run(team: Team, count: int = 2, **kwargs: Any) -> PreannotationRun:
    for _ in range(count):
        DocumentFactory(project=team.project, text=EMAIL_TEXT)
    return runs.run_create(project=team.project, actor=None, dispatch=False, **kwargs)


def test_a_retried_batch_writes_once(team: Team) -> None:
    run = queued_run(team)
    batch = run.batches.get()
    claimed_at = runs.run_batch_claim(batch_id=batch.pk)
    assert claimed_at is not None
    found = {pk: [EngineSpan(9, 26, "EMAIL", 1.0, source="regex")] for pk in batch.document_ids}
    assert runs.run_batch_write(batch_id=batch.pk, claimed_at=claimed_at, spans_by_document=found)
    assert not runs.run_batch_write(
        batch_id=batch.pk, claimed_at=claimed_at, spans_by_document=found
    )
    run.refresh_from_db()
    assert (run.documents_done, run.spans_created, run.status) == (2, 2, JobStatus.DONE)
    assert Span.objects.filter(run=run).count() == 2
    # The task delivered again finds the batch done and does nothing.
    tasks.preannotate_batch.apply(args=(None, batch.pk))
    assert Span.objects.filter(run=run).count() == 2


def test_a_batch_whose_claim_was_taken_over_writes_nothing(team: Team) -> None:
    run = queued_run(team)
    batch = run.batches.get()
    stale = runs.run_batch_claim(batch_id=batch.pk)
    assert stale is not None
    # Its worker was taken for dead and another took the batch over.
    current = runs.run_batch_claim(batch_id=batch.pk, retried=True)
    assert current is not None and current != stale
    found = {pk: [EngineSpan(9, 26, "EMAIL", 1.0, source="regex")] for pk in batch.document_ids}
    assert not runs.run_batch_write(batch_id=batch.pk, claimed_at=stale, spans_by_document=found)
    assert not Span.objects.filter(run=run).exists()
    assert runs.run_batch_write(batch_id=batch.pk, claimed_at=current, spans_by_document=found)
    assert RunBatch.objects.get(pk=batch.pk).attempts == 2


def test_writing_locks_the_documents_and_costs_the_same_for_more_spans() -> None:
    def second_write(documents: int) -> list[str]:
        """The queries of a batch that replaces the proposals of an earlier run."""
        project = ProjectFactory(languages=["en"])
        for _ in range(documents):
            DocumentFactory(project=project, text=EMAIL_TEXT)
        queries = []
        for _ in range(2):
            run = runs.run_create(project=project, actor=None, dispatch=False)
            batch = run.batches.get()
            claimed_at = runs.run_batch_claim(batch_id=batch.pk)
            assert claimed_at is not None
            found = {
                pk: [EngineSpan(i, i + 1, "PER", 0.5, source="ner") for i in range(0, 40, 2)]
                for pk in batch.document_ids
            }
            with CaptureQueriesContext(connection) as captured:
                runs.run_batch_write(
                    batch_id=batch.pk, claimed_at=claimed_at, spans_by_document=found
                )
            queries = [query["sql"] for query in captured.captured_queries]
        assert Span.objects.filter(document__project=project).count() == 20 * documents
        return queries

    one, ten = second_write(1), second_write(10)
    assert len(one) == len(ten), "\n".join(one + ["-----"] + ten)
    assert any('FROM "annotator_document"' in sql and "FOR UPDATE" in sql for sql in one)


def test_a_bug_fails_its_batch_and_the_run_without_logging_text(
    team: Team,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(self: Detector, texts: Sequence[str], language: str, **kwargs: Any) -> Detection:
        raise ValueError(f"cannot read {texts[0]}")

    monkeypatch.setattr(Detector, "detect", broken)
    DocumentFactory(project=team.project, text="Moshe Chaya lives here")
    with caplog.at_level(logging.DEBUG):
        run = start(django_capture_on_commit_callbacks, project=team.project)
    assert run.status == JobStatus.FAILED
    assert "1 of 1 batch failed" in run.error
    batch = run.batches.get()
    assert batch.status == JobStatus.FAILED and "ValueError" in batch.error
    assert run.warnings[0]["recognizer"] == "batch"
    assert "ValueError" in caplog.text
    assert "Moshe" not in caplog.text and "Moshe" not in batch.error


def test_a_transient_failure_is_tried_again(team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = Detector.detect

    def flaky(self: Detector, *args: Any, **kwargs: Any) -> Detection:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Detector, "detect", flaky)
    run = queued_run(team, count=1)
    batch = run.batches.get()
    tasks.preannotate_batch.apply(args=(None, batch.pk), throw=False)
    run.refresh_from_db()
    assert len(calls) == 2
    assert run.status == JobStatus.DONE and run.spans_created == 2
    assert run.batches.get().attempts == 2


def test_a_transient_failure_that_lasts_fails_the_batch(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(self: Detector, *args: Any, **kwargs: Any) -> Detection:
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(Detector, "detect", down)
    monkeypatch.setattr(tasks.preannotate_batch, "max_retries", 1)
    run = queued_run(team, count=1)
    batch = run.batches.get()
    # A worker does not hand the failure to its caller; eager tasks would by default.
    celery_app.conf.task_eager_propagates = False
    try:
        result = tasks.preannotate_batch.apply(args=(None, batch.pk))
    finally:
        celery_app.conf.task_eager_propagates = True
    assert result.failed()
    batch.refresh_from_db()
    run.refresh_from_db()
    assert batch.status == JobStatus.FAILED and "OperationalError" in batch.error
    assert batch.attempts == 2
    assert run.status == JobStatus.FAILED


# --- Resuming ---------------------------------------------------------------------------------


def test_resume_finishes_a_run_whose_worker_died_without_duplicates(
    team: Team, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CLOAK_RUN_BATCH_SIZE = 1
    run = queued_run(team, count=3)
    first, second, _ = run.batches.order_by("number")
    # Batch 1 written; batch 2 claimed by a worker that was then killed; batch 3 never sent.
    assert runs.run_batch_detect(batch_id=first.pk)
    assert runs.run_batch_claim(batch_id=second.pk) is not None
    run.refresh_from_db()
    assert run.status == JobStatus.RUNNING and run.documents_done == 1

    with django_capture_on_commit_callbacks(execute=True):
        resumed = runs.run_resume(run=run, actor=team.admin)
    assert resumed.status in (JobStatus.RUNNING, JobStatus.QUEUED)
    run.refresh_from_db()
    assert run.status == JobStatus.DONE
    assert (run.documents_done, run.documents_total) == (3, 3)
    assert set(run.batches.values_list("status", flat=True)) == {JobStatus.DONE}
    for document in Document.objects.filter(project=team.project):
        assert len(machine_spans(document)) == 2  # the e-mail once, the hashtag once
    assert AuditEvent.objects.filter(action=AuditAction.PREANNOTATE, detail__resumed=True).exists()


def test_resume_sends_failed_batches_again_and_forgets_their_warnings(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    run = queued_run(team, count=1)
    batch = run.batches.get()
    runs.run_batch_claim(batch_id=batch.pk)
    runs.run_batch_fail(batch_id=batch.pk, reason="internal error (KeyError)")
    run.refresh_from_db()
    assert run.status == JobStatus.FAILED and run.warnings
    with django_capture_on_commit_callbacks(execute=True):
        runs.run_resume(run=run)
    run.refresh_from_db()
    assert (run.status, run.error, run.warnings) == (JobStatus.DONE, "", [])


def test_a_done_run_is_not_resumed(team: Team, django_capture_on_commit_callbacks: Any) -> None:
    DocumentFactory(project=team.project, text=EMAIL_TEXT)
    run = start(django_capture_on_commit_callbacks, project=team.project)
    with pytest.raises(DomainError, match="nothing to resume"):
        runs.run_resume(run=run)


def test_a_run_reaped_after_its_last_batch_resumes_to_done(team: Team) -> None:
    run = queued_run(team, count=1)
    batch = run.batches.get()
    RunBatch.objects.filter(pk=batch.pk).update(status=JobStatus.DONE)
    PreannotationRun.objects.filter(pk=run.pk).update(status=JobStatus.FAILED, error="reaped")
    run = runs.run_resume(run=run)
    assert (run.status, run.error) == (JobStatus.DONE, "")


def test_here_runs_every_batch_in_this_process(team: Team, settings: Any) -> None:
    settings.CLOAK_RUN_BATCH_SIZE = 1
    run = queued_run(team, count=3)
    seen: list[int] = []
    run = runs.run_execute(run=run, progress=lambda current: seen.append(current.documents_done))
    assert run.status == JobStatus.DONE
    assert seen == [1, 2, 3]


# --- A run that ended: its batches still in the broker do nothing ------------------------------


def run_counters(run: PreannotationRun) -> tuple[str, int, int]:
    run.refresh_from_db()
    return run.status, run.documents_done, run.spans_created


def test_the_batches_of_a_reaped_run_write_nothing_until_it_is_resumed(
    team: Team, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CLOAK_RUN_BATCH_SIZE = 1
    run = queued_run(team, count=3)
    first, second, third = run.batches.order_by("number")
    # Batch 1 written; batch 2 in the hands of a worker that was killed; batch 3 in the broker.
    assert runs.run_batch_detect(batch_id=first.pk)
    assert runs.run_batch_claim(batch_id=second.pk) is not None
    assert jobs_reap(older_than=timedelta(0))["runs_failed"] == 1
    assert run_counters(run) == (JobStatus.FAILED, 1, 2)

    # The broker still holds the tasks of batches 2 and 3 (and hands batch 2's out again).
    for batch in (second, third, second):
        tasks.preannotate_batch.apply(args=(None, batch.pk))

    assert run_counters(run) == (JobStatus.FAILED, 1, 2)
    assert Span.objects.filter(run=run).count() == 2
    assert set(run.batches.exclude(pk=first.pk).values_list("status", flat=True)) == {
        JobStatus.QUEUED
    }
    assert RunBatch.objects.get(pk=third.pk).attempts == 0  # never claimed

    with django_capture_on_commit_callbacks(execute=True):
        runs.run_resume(run=run, actor=team.admin)
    assert run_counters(run) == (JobStatus.DONE, 3, 6)
    for document in Document.objects.filter(project=team.project):
        assert len(machine_spans(document)) == 2  # the e-mail and the hashtag, once each


def test_the_ner_half_spends_no_gpu_time_on_a_batch_of_a_failed_run(
    team: Team, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.CLOAK_NER_MODELS = {"en": "some-model", "fr": "", "ar": ""}
    called: list[int] = []

    def ner(self: Detector, texts: Sequence[str], language: str) -> Detection:
        called.append(len(texts))
        return Detection(spans=[[] for _ in texts], errors={})

    monkeypatch.setattr(Detector, "ner", ner)
    run = queued_run(team, count=1)
    batch = run.batches.get()
    job_fail(PreannotationRun, run.pk, "the worker stopped")

    tasks.preannotate_ner.apply(args=(batch.pk,))
    assert runs.run_batch_ner(batch_id=batch.pk) is None

    assert called == []
    assert RunBatch.objects.get(pk=batch.pk).status == JobStatus.QUEUED


def test_a_batch_whose_run_failed_after_its_ner_half_writes_nothing_and_waits_for_a_resume(
    team: Team, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.CLOAK_NER_MODELS = {"en": "some-model", "fr": "", "ar": ""}
    monkeypatch.setattr(Detector, "ner", fake_ner({EMAIL_TEXT: [(0, 5, "PER")]}))
    run = queued_run(team, count=1)
    batch = run.batches.get()
    payload = runs.run_batch_ner(batch_id=batch.pk)
    assert payload is not None
    # The reaper failed the run while the GPU worked; the payload reaches the default queue.
    job_fail(PreannotationRun, run.pk, "the worker stopped")

    assert not runs.run_batch_detect(batch_id=batch.pk, ner=payload)

    assert run_counters(run) == (JobStatus.FAILED, 0, 0)
    assert not Span.objects.filter(run=run).exists()
    assert RunBatch.objects.get(pk=batch.pk).status == JobStatus.QUEUED


def test_a_claimed_batch_of_a_run_failed_meanwhile_writes_nothing_and_waits_for_a_resume(
    team: Team,
) -> None:
    run = queued_run(team, count=2)
    batch = run.batches.get()
    claimed_at = runs.run_batch_claim(batch_id=batch.pk)
    assert claimed_at is not None
    # The reaper failed the run between the batch's claim and its write.
    assert job_fail(PreannotationRun, run.pk, "the worker stopped")
    found = {pk: [EngineSpan(*EMAIL, "EMAIL", 1.0, source="regex")] for pk in batch.document_ids}

    assert not runs.run_batch_write(
        batch_id=batch.pk, claimed_at=claimed_at, spans_by_document=found
    )

    assert run_counters(run) == (JobStatus.FAILED, 0, 0)
    assert not Span.objects.filter(run=run).exists()
    statuses = Document.objects.filter(project=team.project).values_list("status", flat=True)
    assert set(statuses) == {DocumentStatus.NEW}
    assert RunBatch.objects.get(pk=batch.pk).status == JobStatus.QUEUED
    runs.run_resume(run=run, dispatch=False)
    assert runs.run_execute(run=run).status == JobStatus.DONE
    assert run_counters(run) == (JobStatus.DONE, 2, 4)


def test_a_run_whose_batches_cannot_be_sent_fails_at_once_and_resumes(
    team: Team, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broker_down(*args: Any, **kwargs: Any) -> None:
        raise kombu.exceptions.OperationalError("Error 111 connecting to redis:6379")

    DocumentFactory(project=team.project, text=EMAIL_TEXT)
    with monkeypatch.context() as patch:
        patch.setattr(tasks.preannotate_batch, "delay", broker_down)
        run = start(django_capture_on_commit_callbacks, project=team.project)

    assert run.status == JobStatus.FAILED
    assert "could not be sent" in run.error and "OperationalError" in run.error
    assert "Resume the run" in run.error
    assert run.batches.get().status == JobStatus.QUEUED
    with django_capture_on_commit_callbacks(execute=True):
        runs.run_resume(run=run)
    assert run_counters(run) == (JobStatus.DONE, 1, 2)
