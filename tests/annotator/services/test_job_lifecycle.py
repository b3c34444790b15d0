"""One job lifecycle: every job model is a kind the reaper knows, and a bug in any job's work
fails it the same way, leaving no text of a document in the logs or in the job's error."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator import tasks
from annotator.models import (
    ImportJob,
    Job,
    JobStatus,
    LearnedModel,
    PreannotationRun,
    Release,
    ReleaseBatch,
    RunBatch,
)
from annotator.services import imports, jobs, runs
from annotator.services.imports import import_job_create, import_job_run
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

SECRET = "Moshe Chaya"  # a name from a document


def test_every_job_model_is_a_registered_kind_in_the_reapers_order() -> None:
    kinds = list(jobs.job_kinds())

    assert {kind.model for kind in kinds} == set(Job.__subclasses__())
    assert [kind.model for kind in kinds] == [
        ImportJob,
        PreannotationRun,
        RunBatch,
        Release,
        ReleaseBatch,
        LearnedModel,
    ]
    assert list(jobs.jobs_reap()) == [
        "imports_failed",
        "runs_failed",
        "batches_requeued",
        "releases_failed",
        "models_failed",
        "jobs_resent",
        "jobs_never_taken",
        "uploads_deleted",
    ]


def test_each_kind_offers_the_statuses_it_had() -> None:
    def offered(model: type[Job]) -> list[tuple[str, str]]:
        return list(model._meta.get_field("status").choices or [])

    lifecycle = [("queued", "Queued"), ("running", "Running"), ("done", "Done")]
    assert offered(ImportJob) == offered(RunBatch) == offered(ReleaseBatch)
    assert offered(ImportJob) == [*lifecycle, ("failed", "Failed")]
    assert offered(PreannotationRun) == [
        *lifecycle,
        ("failed", "Failed"),
        ("cancelled", "Cancelled"),
    ]
    assert offered(Release) == [*lifecycle, ("refused", "Refused (leak)"), ("failed", "Failed")]
    assert offered(LearnedModel) == [
        ("queued", "Queued"),
        ("running", "Training"),
        ("done", "Ready"),
        ("failed", "Failed"),
    ]


def _quoting(*args: Any, **kwargs: Any) -> Any:
    raise ValueError(f"cannot read {SECRET!r} in the document")


def _no_trace(caplog: pytest.LogCaptureFixture, *stored: str) -> None:
    logged = caplog.text + "\n".join(str(record.args) for record in caplog.records)
    assert "ValueError" in caplog.text  # the kind of the error is logged...
    for where in (logged, *stored):
        assert "Moshe" not in where and "Chaya" not in where  # ...never its message


def test_a_crash_quoting_a_document_in_a_batch_task_leaves_no_trace(
    team: Team, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    DocumentFactory(project=team.project, text=f"{SECRET} lives here")
    run = runs.run_create(project=team.project, actor=team.admin, use_ner=False, dispatch=False)
    batch = run.batches.get()
    monkeypatch.setattr(runs, "run_batch_detect", _quoting)

    with caplog.at_level(logging.DEBUG):
        tasks.preannotate_batch.apply(args=(None, batch.pk))

    batch.refresh_from_db()
    run.refresh_from_db()
    assert batch.status == JobStatus.FAILED and run.status == JobStatus.FAILED
    assert batch.error == "internal error (ValueError); the worker's log has the trace"
    _no_trace(caplog, batch.error, run.error, str(run.warnings))


def test_a_crash_quoting_a_document_in_an_import_leaves_no_trace(
    team: Team, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    upload = SimpleUploadedFile("corpus.jsonl", f'{{"id": "a", "text": "{SECRET}"}}\n'.encode())
    job = import_job_create(project=team.project, upload=upload, actor=team.admin)
    monkeypatch.setattr(imports, "documents_import", _quoting)

    with caplog.at_level(logging.DEBUG):
        import_job_run(job_id=job.pk)

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error == imports.INTERNAL_ERROR
    _no_trace(caplog, job.error)


def test_a_crash_fails_a_job_as_its_kind_fails_one(
    team: Team, caplog: pytest.LogCaptureFixture
) -> None:
    # A batch fails its run with it: job_crashed goes through the kind, not the row alone.
    DocumentFactory(project=team.project, text=f"{SECRET} lives here")
    run = runs.run_create(project=team.project, actor=team.admin, use_ner=False, dispatch=False)
    batch = run.batches.get()

    try:
        _quoting()
    except ValueError as error:
        assert jobs.job_crashed(batch, error) is True
        assert jobs.job_crashed(batch, error) is False  # failed already

    run.refresh_from_db()
    assert run.status == JobStatus.FAILED and "1 of 1 batch failed" in run.error
    _no_trace(caplog, run.error)
