"""The job lifecycle every long task shares (claim, progress, finish, fail) and its reaper."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import kombu.exceptions
import pytest
import redis.exceptions
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from annotator.models import (
    Document,
    ImportJob,
    JobStatus,
    LearnedModel,
    PreannotationRun,
    Release,
    ReleaseBatch,
    RunBatch,
    Span,
)
from annotator.selectors.jobs import job_progress, progress_key
from annotator.services import jobs
from annotator.services.imports import import_job_create
from annotator.services.jobs import (
    job_claim,
    job_fail,
    job_finish,
    job_kinds,
    job_progress_set,
    jobs_reap,
    task,
)
from annotator.services.learning import learned_model_train
from annotator.services.releases.create import release_create
from annotator.services.runs import run_batch_detect, run_create, run_execute, run_resume
from tests.conftest import Team
from tests.factories import (
    DocumentFactory,
    PreannotationRunFactory,
    ProjectFactory,
    RunBatchFactory,
)

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # Progress lives in the cache, keyed by job id; ids come back in another test.
    cache.clear()
    yield
    cache.clear()


def an_upload(settings: Any, name: str = "corpus.jsonl") -> Path:
    folder = Path(settings.MEDIA_ROOT) / "imports" / f"folder-{name}"
    folder.mkdir(parents=True)
    path = folder / name
    path.write_text('{"id": "a", "lang": "en", "text": "Moshe Chaya"}\n')
    return path


def an_import(**fields: Any) -> ImportJob:
    return ImportJob.objects.create(project=ProjectFactory(), filename="corpus.jsonl", **fields)


def heartbeat_at(monkeypatch: Any, job: Any, when: datetime, done: int = 1) -> None:
    """A heartbeat sent at `when`, as by a worker that has been silent since."""
    with monkeypatch.context() as patch:
        patch.setattr(jobs, "_now", lambda: when)
        job_progress_set(job, done, 10)


def test_of_two_claims_only_the_first_gets_the_job() -> None:
    job = an_import()

    assert job_claim(ImportJob, job.pk) is True
    assert job_claim(ImportJob, job.pk) is False
    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING
    assert job.started_at is not None


def test_a_claim_of_a_running_job_with_a_live_heartbeat_gets_nothing() -> None:
    job = an_import()
    job_claim(ImportJob, job.pk)
    job_progress_set(job, 5, 10)

    assert job_claim(ImportJob, job.pk, stale_after=HOUR) is False


def test_a_running_job_whose_worker_fell_silent_is_claimed_again_once(monkeypatch: Any) -> None:
    long_ago = timezone.now() - 2 * HOUR
    job = an_import(status=JobStatus.RUNNING, started_at=long_ago)
    heartbeat_at(monkeypatch, job, long_ago + timedelta(minutes=5))

    assert job_claim(ImportJob, job.pk, stale_after=HOUR) is True
    assert job_claim(ImportJob, job.pk, stale_after=HOUR) is False  # the new heartbeat is live
    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING
    assert job.started_at is not None and job.started_at > long_ago
    assert job_progress(job).done == 0


def test_the_old_worker_can_neither_finish_nor_fail_a_job_claimed_again() -> None:
    long_ago = timezone.now() - 2 * HOUR
    job = an_import(status=JobStatus.RUNNING, started_at=long_ago)
    assert job_claim(ImportJob, job.pk, stale_after=HOUR)

    assert job_finish(ImportJob, job.pk, claimed_at=long_ago, documents_created=3) is False
    assert job_fail(ImportJob, job.pk, "late", claimed_at=long_ago) is False
    job.refresh_from_db()
    assert (job.status, job.documents_created, job.error) == (JobStatus.RUNNING, 0, "")


def test_finish_marks_a_running_job_done_with_its_fields() -> None:
    job = an_import()
    job_claim(ImportJob, job.pk)
    job.refresh_from_db()

    assert job_finish(ImportJob, job.pk, claimed_at=job.started_at, documents_created=7)
    job.refresh_from_db()
    assert (job.status, job.documents_created) == (JobStatus.DONE, 7)
    assert job.finished_at is not None
    assert job_finish(ImportJob, job.pk) is False  # done stays done


def test_a_queued_job_cannot_be_finished() -> None:
    job = an_import()

    assert job_finish(ImportJob, job.pk) is False
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED


def test_fail_records_the_reason_and_never_undoes_a_finished_job() -> None:
    failing, done = an_import(), an_import(status=JobStatus.DONE)
    job_claim(ImportJob, failing.pk)

    assert job_fail(ImportJob, failing.pk, "line 3: invalid JSON") is True
    assert job_fail(ImportJob, done.pk, "too late") is False
    failing.refresh_from_db()
    done.refresh_from_db()
    assert (failing.status, failing.error) == (JobStatus.FAILED, "line 3: invalid JSON")
    assert failing.finished_at is not None
    assert (done.status, done.error) == (JobStatus.DONE, "")


def test_the_lifecycle_serves_runs_and_releases_too() -> None:
    run = PreannotationRunFactory()
    release = Release.objects.create(project=run.project, version=1, strategy="S2", format="jsonl")

    assert job_claim(PreannotationRun, run.pk) and job_claim(Release, release.pk)
    job_progress_set(run, 3, 9, unit="documents")
    assert (job_progress(run).done, job_progress(run).total) == (3, 9)
    assert job_progress((PreannotationRun, run.pk)).unit == "documents"
    assert job_fail(Release, release.pk, "the leak check could not run")
    assert job_finish(PreannotationRun, run.pk, documents_done=0)
    release.refresh_from_db()
    assert release.status == "failed"
    assert release.error == "the leak check could not run"
    assert release.finished_at is not None


@pytest.mark.django_db(transaction=True)
def test_progress_is_readable_while_the_jobs_transaction_is_open() -> None:
    job = an_import()
    job_claim(ImportJob, job.pk)
    document = DocumentFactory.build(project=job.project)
    reported, release = threading.Event(), threading.Event()

    def worker() -> None:
        try:
            with transaction.atomic():
                document.save()
                job_progress_set((ImportJob, job.pk), 1, 2, unit="documents")
                reported.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert reported.wait(10)
        progress = job_progress(job)
        assert (progress.done, progress.total, progress.unit) == (1, 2, "documents")
        assert progress.updated_at is not None
        assert progress.updated_at > timezone.now() - timedelta(minutes=1)
        assert not Document.objects.filter(pk=document.pk).exists()  # still uncommitted
    finally:
        release.set()
        thread.join(10)


# --- The reaper -------------------------------------------------------------------------------


def test_the_reaper_fails_a_dead_import_and_deletes_its_upload(
    settings: Any, monkeypatch: Any
) -> None:
    long_ago = timezone.now() - 2 * HOUR
    upload = an_upload(settings)
    job = an_import(status=JobStatus.RUNNING, started_at=long_ago, stored_path=str(upload))
    heartbeat_at(monkeypatch, job, long_ago)

    counts = jobs_reap(older_than=HOUR)

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert "worker stopped" in job.error and "nothing was written" in job.error
    assert job.finished_at is not None
    assert not upload.parent.exists()
    assert counts["imports_failed"] == 1 and counts["uploads_deleted"] == 1


def test_the_reaper_fails_a_dead_release_and_deletes_its_half_written_file(
    settings: Any, monkeypatch: Any
) -> None:
    from annotator.services.releases.files import project_releases_folder

    long_ago = timezone.now() - 2 * HOUR
    project = ProjectFactory()
    release = Release.objects.create(project=project, version=3, strategy="S2", format="jsonl")
    assert job_claim(Release, release.pk)
    Release.objects.filter(pk=release.pk).update(started_at=long_ago)
    heartbeat_at(monkeypatch, release, long_ago)
    folder = project_releases_folder(project) / "3"
    folder.mkdir(parents=True)
    (folder / f".{project.slug}-v3-S2.jsonl.0123.part").write_text('{"text": "half"}\n')

    counts = jobs_reap(older_than=HOUR)

    release.refresh_from_db()
    assert release.status == JobStatus.FAILED
    assert "nothing was released" in release.error
    assert counts["releases_failed"] == 1
    assert not folder.exists()


def test_the_reaper_fails_a_training_whose_worker_died_and_leaves_a_live_one(
    monkeypatch: Any,
) -> None:
    long_ago = timezone.now() - 2 * HOUR
    project = ProjectFactory()
    dead, live = (
        LearnedModel.objects.create(project=project, language=language, version=1)
        for language in ("en", "fr")
    )
    for model in (dead, live):
        assert job_claim(LearnedModel, model.pk)
        LearnedModel.objects.filter(pk=model.pk).update(started_at=long_ago)
    heartbeat_at(monkeypatch, dead, long_ago)
    job_progress_set(live, 3, 20)  # a pass just ended: the worker is training

    counts = jobs_reap(older_than=HOUR)

    dead.refresh_from_db()
    live.refresh_from_db()
    assert dead.status == JobStatus.FAILED and "new version" in dead.error
    assert live.status == JobStatus.RUNNING
    assert counts["models_failed"] == 1


def test_the_reaper_leaves_a_live_import_and_its_upload_alone(settings: Any) -> None:
    upload = an_upload(settings)
    job = an_import(stored_path=str(upload))
    job_claim(ImportJob, job.pk)
    ImportJob.objects.filter(pk=job.pk).update(started_at=timezone.now() - 2 * HOUR)
    job_progress_set(job, 10, 100)  # a long import, still reporting

    counts = jobs_reap(older_than=HOUR)

    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING
    assert upload.is_file()
    assert counts["imports_failed"] == 0


def test_the_reaper_fails_at_once_a_job_whose_process_on_this_host_is_gone(
    settings: Any,
) -> None:
    upload = an_upload(settings)
    job = an_import(stored_path=str(upload))
    job_claim(ImportJob, job.pk)
    # The heartbeat of a process that no longer exists (pids stop far below this).
    key = progress_key(ImportJob, job.pk)
    cache.set(key, {**cache.get(key), "pid": 2**22 + 12345})

    assert jobs_reap(older_than=HOUR)["imports_failed"] == 1
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert not upload.parent.exists()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux's /proc tells zombies")
def test_the_reaper_takes_a_process_that_exited_uncollected_for_gone(settings: Any) -> None:
    """A pool process killed with its worker, in a container where nothing reaps orphans,
    stays a zombie: it answers signal 0, yet it is gone."""
    upload = an_upload(settings)
    job = an_import(stored_path=str(upload))
    job_claim(ImportJob, job.pk)
    exited = subprocess.Popen(["true"])  # not waited for: a zombie once it exits
    try:
        while Path(f"/proc/{exited.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
            time.sleep(0.01)
        key = progress_key(ImportJob, job.pk)
        cache.set(key, {**cache.get(key), "pid": exited.pid})

        assert jobs_reap(older_than=HOUR)["imports_failed"] == 1
    finally:
        exited.wait()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


def held_by(monkeypatch: Any, job: Any, node: str, boot: str) -> None:
    """A heartbeat of `job` from the start `boot` of the worker named `node`, by a pid that
    answers (this one's): a restarted container starts its processes at the same low pids."""
    with monkeypatch.context() as patch:
        patch.setattr(jobs, "_worker", jobs.WorkerStart(node, boot))
        job_progress_set(job, 0)


def a_run_with_a_batch_in_hand(monkeypatch: Any, node: str, boot: str) -> tuple[Any, Any]:
    """A run going on now: a batch just written by this worker, one held by `node`'s `boot`."""
    now = timezone.now()
    run = PreannotationRunFactory(status=JobStatus.RUNNING, started_at=now)
    RunBatchFactory(run=run, status=JobStatus.DONE, started_at=now, finished_at=now)
    held = RunBatchFactory(run=run, status=JobStatus.RUNNING, started_at=now)
    RunBatchFactory(run=run, status=JobStatus.QUEUED)
    held_by(monkeypatch, (RunBatch, held.pk), node, boot)
    job_progress_set(run, 2, 6)  # the run's own heartbeat: this worker's last write
    return run, held


def test_a_restarted_worker_reaps_at_once_the_batch_its_earlier_start_held(
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(jobs, "_worker", jobs.WorkerStart("celery@worker-1", "after"))
    run, held = a_run_with_a_batch_in_hand(monkeypatch, "celery@worker-1", "before")

    # Within the stale timeout, its heartbeats fresh and its pid alive: reaped all the same.
    counts = jobs_reap()

    assert (counts["runs_failed"], counts["batches_requeued"]) == (1, 1)
    run.refresh_from_db()
    assert run.status == JobStatus.FAILED and "--resume" in run.error
    assert RunBatch.objects.get(pk=held.pk).status == JobStatus.QUEUED


@pytest.mark.parametrize(
    "node, boot",
    [("celery@worker-1", "after"), ("celery@worker-2", "before")],
    ids=["this-start", "another-worker"],
)
def test_a_batch_held_by_this_start_or_by_another_worker_is_left_alone(
    monkeypatch: Any, node: str, boot: str
) -> None:
    monkeypatch.setattr(jobs, "_worker", jobs.WorkerStart("celery@worker-1", "after"))
    run, held = a_run_with_a_batch_in_hand(monkeypatch, node, boot)

    assert jobs_reap()["runs_failed"] == 0

    run.refresh_from_db()
    assert run.status == JobStatus.RUNNING
    assert RunBatch.objects.get(pk=held.pk).status == JobStatus.RUNNING


def test_a_run_is_judged_by_its_batches_holders_not_by_its_last_writer(monkeypatch: Any) -> None:
    run, _ = a_run_with_a_batch_in_hand(monkeypatch, "celery@worker-2", "before")
    # Its last batch was written by a process of this host that has exited since (a pool
    # process replaced): the batch in hand is another, live one's.
    key = progress_key(PreannotationRun, run.pk)
    cache.set(key, {**cache.get(key), "pid": 2**22 + 12345})

    assert jobs_reap()["runs_failed"] == 0


def test_a_heartbeat_names_the_worker_s_start_unless_no_process_holds_the_job(
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(jobs, "_worker", jobs.WorkerStart("celery@worker-1", "after"))
    job = an_import()

    job_progress_set(job, 1, 2)
    progress = job_progress(job)
    assert (progress.node, progress.boot, progress.pid) == ("celery@worker-1", "after", os.getpid())

    job_progress_set(job, 1, 2, held=False)  # handed on to another queue
    progress = job_progress(job)
    assert (progress.node, progress.boot, progress.pid, progress.done) == ("", "", 0, 1)


def test_a_worker_names_each_start_of_itself_anew(monkeypatch: Any) -> None:
    monkeypatch.setattr(jobs, "_worker", None)  # put back after the test

    first = jobs.worker_started("celery@worker-1")
    second = jobs.worker_started("celery@worker-1")

    assert first.node == second.node and first.boot != second.boot


def test_the_reaper_queues_the_batches_of_a_dead_run_again_and_leaves_it_resumable(
    monkeypatch: Any,
) -> None:
    long_ago = timezone.now() - 2 * HOUR
    run = PreannotationRunFactory(status=JobStatus.RUNNING, started_at=long_ago)
    done = RunBatchFactory(run=run, status=JobStatus.DONE, started_at=long_ago)
    running = RunBatchFactory(run=run, status=JobStatus.RUNNING, started_at=long_ago)
    queued = RunBatchFactory(run=run, status=JobStatus.QUEUED)
    heartbeat_at(monkeypatch, run, long_ago)
    heartbeat_at(monkeypatch, (RunBatch, running.pk), long_ago)  # its claim's

    counts = jobs_reap(older_than=HOUR)

    run.refresh_from_db()
    assert run.status == JobStatus.FAILED
    assert f"preannotate --resume {run.pk}" in run.error
    statuses = dict(RunBatch.objects.filter(run=run).values_list("id", "status"))
    assert statuses == {
        done.pk: JobStatus.DONE,
        running.pk: JobStatus.QUEUED,
        queued.pk: JobStatus.QUEUED,
    }
    assert (counts["runs_failed"], counts["batches_requeued"]) == (1, 1)


def test_the_reaper_leaves_a_run_whose_batches_finish_or_wait_for_a_worker() -> None:
    long_ago = timezone.now() - 2 * HOUR
    working = PreannotationRunFactory(status=JobStatus.RUNNING, started_at=long_ago)
    RunBatchFactory(run=working, status=JobStatus.DONE, finished_at=timezone.now())
    RunBatchFactory(run=working, status=JobStatus.RUNNING, started_at=timezone.now())
    waiting = PreannotationRunFactory(status=JobStatus.RUNNING, started_at=long_ago)
    RunBatchFactory(run=waiting, status=JobStatus.QUEUED)

    assert jobs_reap(older_than=HOUR)["runs_failed"] == 0
    assert set(PreannotationRun.objects.values_list("status", flat=True)) == {JobStatus.RUNNING}


def test_the_reaper_deletes_uploads_that_finished_imports_left_behind(settings: Any) -> None:
    done = an_import(status=JobStatus.DONE, stored_path=str(an_upload(settings, "a.jsonl")))
    failed = an_import(status=JobStatus.FAILED, stored_path=str(an_upload(settings, "b.jsonl")))
    queued = an_import(stored_path=str(an_upload(settings, "c.jsonl")))
    just_uploaded = an_upload(settings, "d.jsonl")  # its job is being created

    counts = jobs_reap(older_than=HOUR)

    assert not Path(done.stored_path).exists() and not Path(failed.stored_path).exists()
    assert Path(queued.stored_path).is_file() and just_uploaded.is_file()
    assert counts["uploads_deleted"] == 2


def test_the_reap_jobs_command_reports_what_it_did(
    settings: Any, monkeypatch: Any, capsys: Any
) -> None:
    long_ago = timezone.now() - 2 * HOUR
    job = an_import(
        status=JobStatus.RUNNING, started_at=long_ago, stored_path=str(an_upload(settings))
    )
    heartbeat_at(monkeypatch, job, long_ago)

    call_command("reap_jobs", "--older-than", "3600")

    assert "imports failed: 1" in capsys.readouterr().out
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


def test_the_reaper_runs_as_a_celery_task(settings: Any, monkeypatch: Any) -> None:
    from annotator import tasks

    settings.CLOAK_JOB_STALE_AFTER = 3600
    long_ago = timezone.now() - 2 * HOUR
    job = an_import(status=JobStatus.RUNNING, started_at=long_ago)
    heartbeat_at(monkeypatch, job, long_ago)

    counts = tasks.jobs_reap.delay().get()

    assert counts["imports_failed"] == 1
    assert settings.CELERY_BEAT_SCHEDULE["jobs-reap"]["task"] == "annotator.tasks.jobs_reap"


# --- Queued jobs that no worker took ----------------------------------------------------------


def queued_since(job: Any, when: datetime) -> None:
    type(job).objects.filter(pk=job.pk).update(created_at=when)


def an_hour_ago() -> datetime:
    return timezone.now() - HOUR


def resent_in_vain(job: Any, when: datetime) -> None:
    """The reaper sent the job's work again at `when`, and no worker took it since."""
    type(job).objects.filter(pk=job.pk).update(resent_at=when)


def test_a_queued_import_no_worker_took_even_resent_fails_and_its_upload_is_deleted(
    settings: Any,
) -> None:
    settings.CLOAK_JOB_QUEUED_TIMEOUT = 1800
    upload = an_upload(settings)
    job = an_import(stored_path=str(upload))
    queued_since(job, timezone.now() - 2 * HOUR)
    resent_in_vain(job, timezone.now() - HOUR)

    counts = jobs_reap()

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.finished_at is not None
    assert "No worker took it within 30 minutes" in job.error
    assert "upload it again" in job.error
    assert not upload.parent.exists()
    assert counts["imports_failed"] == 1 and counts["jobs_never_taken"] == 1
    assert counts["uploads_deleted"] == 1


@pytest.mark.parametrize(
    "make, says",
    [
        (
            lambda: Release.objects.create(
                project=ProjectFactory(), version=1, strategy="S2", format="jsonl"
            ),
            "cut the release again",
        ),
        (
            lambda: LearnedModel.objects.create(project=ProjectFactory(), language="en", version=1),
            "ask for a new version",
        ),
    ],
    ids=["release", "training"],
)
def test_a_queued_release_or_training_no_worker_took_even_resent_fails(
    make: Any, says: str
) -> None:
    job = make()
    queued_since(job, timezone.now() - 2 * HOUR)
    resent_in_vain(job, timezone.now() - HOUR)

    assert jobs_reap()["jobs_never_taken"] == 1

    job.refresh_from_db()
    assert job.status == "failed" and "No worker took it" in job.error and says in job.error


def test_a_job_queued_for_less_than_the_timeout_waits(settings: Any) -> None:
    settings.CLOAK_JOB_QUEUED_TIMEOUT = 1800
    upload = an_upload(settings)
    job = an_import(stored_path=str(upload))
    queued_since(job, timezone.now() - timedelta(minutes=20))

    assert jobs_reap()["jobs_never_taken"] == 0

    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED and upload.is_file()


@pytest.mark.parametrize("busy_with", ["a long import", "a batch just written"])
def test_jobs_queued_behind_busy_workers_wait_however_long(settings: Any, busy_with: str) -> None:
    upload = an_upload(settings)
    waiting_import = an_import(stored_path=str(upload))
    queued_since(waiting_import, timezone.now() - 3 * HOUR)
    # Runs queued behind each other, for hours.
    waiting_runs = [PreannotationRunFactory() for _ in range(3)]
    for run in waiting_runs:
        RunBatchFactory(run=run)
        queued_since(run, timezone.now() - 3 * HOUR)
    if busy_with == "a long import":
        working = an_import()
        assert job_claim(ImportJob, working.pk)
        ImportJob.objects.filter(pk=working.pk).update(started_at=timezone.now() - 2 * HOUR)
        job_progress_set(working, 10, 100)  # still reporting
    else:
        # Between two batches of another run: the last one ended a minute ago.
        RunBatchFactory(
            run=PreannotationRunFactory(status=JobStatus.RUNNING, started_at=timezone.now()),
            status=JobStatus.DONE,
            finished_at=timezone.now() - timedelta(minutes=1),
        )

    counts = jobs_reap()

    assert counts["jobs_never_taken"] == 0
    waiting_import.refresh_from_db()
    assert waiting_import.status == JobStatus.QUEUED and upload.is_file()
    statuses = PreannotationRun.objects.filter(pk__in=[r.pk for r in waiting_runs])
    assert set(statuses.values_list("status", flat=True)) == {JobStatus.QUEUED}


def test_a_queued_run_no_worker_took_even_resent_fails_resumable_with_its_batches_queued() -> None:
    run = PreannotationRunFactory()
    batches = [RunBatchFactory(run=run) for _ in range(2)]
    queued_since(run, timezone.now() - 2 * HOUR)
    resent_in_vain(run, timezone.now() - HOUR)

    counts = jobs_reap()

    run.refresh_from_db()
    assert run.status == JobStatus.FAILED and "No worker took it" in run.error
    assert "Resume the run" in run.error
    assert {b.status for b in RunBatch.objects.filter(pk__in=[b.pk for b in batches])} == {
        JobStatus.QUEUED
    }
    assert (counts["runs_failed"], counts["jobs_never_taken"]) == (1, 1)


def a_run_whose_second_batch_was_lost(team: Team, settings: Any) -> PreannotationRun:
    """A run of two batches: the first written an hour ago, the second's task lost by the
    broker (a Redis restart)."""
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}
    settings.CLOAK_RUN_BATCH_SIZE = 1
    for _ in range(2):
        DocumentFactory(project=team.project, text="Write to moshe@example.org")
    run = run_create(project=team.project, actor=None, dispatch=False)
    first = run.batches.order_by("number").first()
    assert first is not None and run_batch_detect(batch_id=first.pk)
    long_ago = timezone.now() - HOUR
    PreannotationRun.objects.filter(pk=run.pk).update(started_at=long_ago)
    RunBatch.objects.filter(pk=first.pk).update(started_at=long_ago, finished_at=long_ago)
    cache.clear()  # its heartbeats are an hour old too
    run.refresh_from_db()
    assert run.status == JobStatus.RUNNING
    return run


def test_a_started_run_whose_queued_batch_was_lost_gets_it_sent_again_and_ends(
    team: Team, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    run = a_run_whose_second_batch_was_lost(team, settings)
    second = run.batches.get(number=2)

    # Sent again, the batch runs (eagerly here, as a worker would take it) and ends the run.
    with django_capture_on_commit_callbacks(execute=True):
        counts = jobs_reap()

    assert (counts["jobs_resent"], counts["runs_failed"], counts["jobs_never_taken"]) == (1, 0, 0)
    run.refresh_from_db()
    assert run.status == JobStatus.DONE and run.documents_done == 2
    assert run.resent_at is not None
    spans = Span.objects.filter(document__project=team.project).count()
    # The lost message turns up after all (a second message for the batch): it changes nothing.
    assert run_batch_detect(batch_id=second.pk) is False
    run.refresh_from_db()
    assert run.documents_done == 2
    assert Span.objects.filter(document__project=team.project).count() == spans
    assert RunBatch.objects.get(pk=second.pk).attempts == 1


def test_a_started_run_whose_resent_batch_no_worker_takes_fails_resumable(
    team: Team, settings: Any
) -> None:
    run = a_run_whose_second_batch_was_lost(team, settings)
    second = run.batches.get(number=2)
    resent_in_vain(run, timezone.now() - HOUR)

    assert jobs_reap()["runs_failed"] == 1

    run.refresh_from_db()
    assert run.status == JobStatus.FAILED and "No worker took it" in run.error
    assert RunBatch.objects.get(pk=second.pk).status == JobStatus.QUEUED
    run = run_resume(run=run, dispatch=False)
    assert run_execute(run=run).status == JobStatus.DONE
    run.refresh_from_db()
    assert run.documents_done == 2


def test_a_run_resumed_long_after_it_started_is_not_taken_for_lost(
    django_capture_on_commit_callbacks: Any,
) -> None:
    long_ago = timezone.now() - 3 * HOUR
    run = PreannotationRunFactory(status=JobStatus.FAILED, started_at=long_ago)
    RunBatchFactory(run=run, status=JobStatus.QUEUED)
    queued_since(run, long_ago)

    with django_capture_on_commit_callbacks(execute=True):
        run_resume(run=run, dispatch=False)
    # Nothing else anywhere, so the workers are idle: only the resumption is a sign of life.
    assert jobs_reap()["jobs_never_taken"] == 0

    run.refresh_from_db()
    assert run.status == JobStatus.QUEUED


def test_the_reap_jobs_command_fails_queued_jobs_after_the_given_time(
    settings: Any, capsys: Any
) -> None:
    job = an_import(stored_path=str(an_upload(settings)))
    queued_since(job, timezone.now() - timedelta(minutes=20))
    resent_in_vain(job, timezone.now() - timedelta(minutes=10))

    call_command("reap_jobs", "--queued-older-than", "300")

    assert "jobs never taken: 1" in capsys.readouterr().out
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


def test_a_queued_import_no_worker_took_is_sent_again_once_then_fails(
    settings: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from annotator import tasks

    settings.CLOAK_JOB_QUEUED_TIMEOUT = 1800
    sent: list[int] = []
    monkeypatch.setattr(tasks.import_run, "delay", sent.append)  # lost again by the broker
    upload = an_upload(settings)
    job = an_import(stored_path=str(upload))
    queued_since(job, timezone.now() - HOUR)

    with django_capture_on_commit_callbacks(execute=True):
        counts = jobs_reap()

    assert (counts["jobs_resent"], counts["jobs_never_taken"]) == (1, 0)
    assert sent == [job.pk]
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED and job.resent_at is not None
    assert upload.is_file()
    # The resend is a sign of life: the job waits the timeout again before anything else.
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_reap()["jobs_resent"] == 0
    assert sent == [job.pk]

    resent_in_vain(job, timezone.now() - HOUR)
    with django_capture_on_commit_callbacks(execute=True):
        counts = jobs_reap()

    assert (counts["jobs_resent"], counts["jobs_never_taken"]) == (0, 1)
    assert sent == [job.pk]  # sent again once, not twice
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and "No worker took it" in job.error
    assert not upload.parent.exists()


def test_a_run_taken_after_its_resend_and_lost_again_is_sent_again(
    monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from annotator import tasks

    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.preannotate_batch, "delay", lambda *args: sent.append(args))
    long_ago = timezone.now() - 3 * HOUR
    run = PreannotationRunFactory(status=JobStatus.RUNNING, started_at=long_ago)
    queued_since(run, long_ago)
    # Resent two hours ago; a worker took a batch after that (the resend worked), and the
    # broker lost the rest later (a second restart).
    resent_in_vain(run, long_ago + HOUR)
    taken = long_ago + timedelta(minutes=90)
    RunBatchFactory(run=run, status=JobStatus.DONE, started_at=taken, finished_at=taken)
    waiting = RunBatchFactory(run=run)

    with django_capture_on_commit_callbacks(execute=True):
        counts = jobs_reap()

    assert (counts["jobs_resent"], counts["runs_failed"]) == (1, 0)
    assert sent == [(None, waiting.pk)]


def test_a_queued_release_is_sent_again_as_its_ner_batches_or_its_build(
    monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from annotator import tasks

    sent: list[tuple[str, int]] = []
    monkeypatch.setattr(tasks.release_ner, "delay", lambda pk: sent.append(("ner", pk)))
    monkeypatch.setattr(tasks.release_build, "delay", lambda pk: sent.append(("build", pk)))
    waiting_ner = Release.objects.create(
        project=ProjectFactory(), version=1, strategy="S2", format="jsonl"
    )
    done = ReleaseBatch.objects.create(release=waiting_ner, number=1, status=JobStatus.DONE)
    queued = ReleaseBatch.objects.create(release=waiting_ner, number=2)
    ReleaseBatch.objects.filter(pk__in=[done.pk, queued.pk]).update(created_at=an_hour_ago())
    waiting_build = Release.objects.create(
        project=ProjectFactory(), version=1, strategy="S2", format="jsonl"
    )
    for release in (waiting_ner, waiting_build):
        queued_since(release, an_hour_ago())

    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_reap()["jobs_resent"] == 2

    assert sent == [("ner", queued.pk), ("build", waiting_build.pk)]


def test_a_resend_the_broker_refuses_fails_the_job_at_once(
    settings: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from annotator import tasks

    monkeypatch.setattr(
        tasks.import_run, "delay", broker_down(redis.exceptions.ConnectionError("refused"))
    )
    upload = an_upload(settings)
    job = an_import(stored_path=str(upload))
    queued_since(job, an_hour_ago())

    with django_capture_on_commit_callbacks(execute=True):
        jobs_reap()

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and "could not be sent" in job.error
    assert not upload.parent.exists()


def test_a_run_whose_handed_on_batch_was_lost_gets_it_queued_and_sent_again(
    monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The `ner` half claimed the batch and handed it on; the broker lost the second half
    (and the cache its heartbeat, on the same Redis): no process holds it."""
    from annotator import tasks

    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.preannotate_batch, "delay", lambda *args: sent.append(args))
    long_ago = timezone.now() - 3 * HOUR
    run = PreannotationRunFactory(status=JobStatus.RUNNING, started_at=long_ago)
    queued_since(run, long_ago)
    handed_on = RunBatchFactory(run=run, status=JobStatus.RUNNING, started_at=long_ago)
    queued = RunBatchFactory(run=run)

    with django_capture_on_commit_callbacks(execute=True):
        counts = jobs_reap()

    assert (counts["jobs_resent"], counts["runs_failed"]) == (1, 0)
    assert sent == [(None, handed_on.pk), (None, queued.pk)]
    assert RunBatch.objects.get(pk=handed_on.pk).status == JobStatus.QUEUED
    run.refresh_from_db()
    assert run.status == JobStatus.RUNNING


def test_a_run_with_a_batch_in_a_live_worker_s_hands_is_not_waiting(monkeypatch: Any) -> None:
    long_ago = timezone.now() - 3 * HOUR
    run = PreannotationRunFactory(status=JobStatus.RUNNING, started_at=long_ago)
    queued_since(run, long_ago)
    held = RunBatchFactory(run=run, status=JobStatus.RUNNING, started_at=long_ago)
    RunBatchFactory(run=run)
    heartbeat_at(monkeypatch, (RunBatch, held.pk), long_ago)  # held: reaped when stale

    counts = jobs_reap()

    assert (counts["jobs_resent"], counts["runs_failed"]) == (0, 1)


# --- Tasks that cannot be sent ----------------------------------------------------------------


def broker_down(error: BaseException) -> Any:
    def send(*args: Any, **kwargs: Any) -> None:
        raise error

    return send


@pytest.mark.parametrize(
    "error",
    [
        kombu.exceptions.OperationalError("Error 111 connecting to redis:6379"),
        redis.exceptions.ConnectionError("Connection refused"),
    ],
    ids=["kombu", "redis"],
)
def test_an_import_whose_task_cannot_be_sent_fails_at_once_and_its_upload_goes(
    team: Team, monkeypatch: Any, django_capture_on_commit_callbacks: Any, error: BaseException
) -> None:
    from annotator import tasks

    monkeypatch.setattr(tasks.import_run, "delay", broker_down(error))
    upload = SimpleUploadedFile("corpus.jsonl", b'{"id": "a", "lang": "en", "text": "Moshe"}\n')

    with django_capture_on_commit_callbacks(execute=True):
        job = import_job_create(project=team.project, upload=upload, actor=team.admin)

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.finished_at is not None
    assert "could not be sent to the workers" in job.error
    assert type(error).__name__ in job.error and "upload it again" in job.error
    assert not Path(job.stored_path).exists() and not Path(job.stored_path).parent.exists()


def test_a_release_or_training_whose_task_cannot_be_sent_fails_at_once(
    team: Team, settings: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from annotator import tasks

    settings.CLOAK_LEARN_MIN_SPANS = 0
    down = broker_down(kombu.exceptions.OperationalError("timed out"))
    monkeypatch.setattr(tasks.release_build, "delay", down)
    monkeypatch.setattr(tasks.learn, "delay", down)

    with django_capture_on_commit_callbacks(execute=True):
        release = release_create(
            project=team.project, strategy="S2", format="jsonl", actor=team.admin
        )
    with django_capture_on_commit_callbacks(execute=True):
        model = learned_model_train(team.project, "en", trigger="admin", actor=team.admin)

    release.refresh_from_db()
    model.refresh_from_db()
    assert release.status == JobStatus.FAILED and "cut the release again" in release.error
    assert model.status == JobStatus.FAILED and "ask for a new version" in model.error
    assert "could not be sent" in release.error and "could not be sent" in model.error


def test_a_bug_while_sending_is_not_taken_for_the_broker(
    team: Team, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from annotator import tasks

    monkeypatch.setattr(tasks.import_run, "delay", broker_down(TypeError("a bug")))
    upload = SimpleUploadedFile("corpus.jsonl", b'{"id": "a", "lang": "en", "text": "x"}\n')

    with pytest.raises(TypeError), django_capture_on_commit_callbacks(execute=True):
        import_job_create(project=team.project, upload=upload, actor=team.admin)

    assert ImportJob.objects.get().status == JobStatus.QUEUED


def test_every_kind_of_job_names_a_task_celery_knows() -> None:
    """Services send work by a task's name (they never import the tasks module): each name a
    kind of job gives is one the worker runs."""
    from annotator import tasks as task_module

    for kind in job_kinds():
        if kind.task:
            assert task(kind.task) == getattr(task_module, kind.task), kind.task


def test_a_worker_killed_between_its_claim_and_its_first_heartbeat_is_reaped_at_once(
    monkeypatch: Any,
) -> None:
    """Found by the e2e suite under load: a batch claimed (RUNNING in the database) by a
    process killed before it wrote its first heartbeat named no holder, and waited for the
    stale timeout (600 s) instead of being reaped by the restarted worker. The claimer is
    named before the claim."""
    now = timezone.now()
    run = PreannotationRunFactory(status=JobStatus.RUNNING, started_at=now)
    RunBatchFactory(run=run, status=JobStatus.DONE, started_at=now, finished_at=now)
    batch = RunBatchFactory(run=run, status=JobStatus.QUEUED)
    job_progress_set(run, 2, 6)
    with monkeypatch.context() as patch:
        patch.setattr(jobs, "_worker", jobs.WorkerStart("celery@worker-1", "before"))

        def killed(*args: Any, **kwargs: Any) -> None:
            raise SystemExit("SIGKILL")  # the process dies right after its claim

        patch.setattr(jobs, "job_progress_set", killed)
        with pytest.raises(SystemExit):
            job_claim(RunBatch, batch.pk)
    assert RunBatch.objects.get(pk=batch.pk).status == JobStatus.RUNNING
    assert cache.get(progress_key(RunBatch, batch.pk)) is None  # no heartbeat was written

    monkeypatch.setattr(jobs, "_worker", jobs.WorkerStart("celery@worker-1", "after"))
    counts = jobs_reap()

    assert (counts["runs_failed"], counts["batches_requeued"]) == (1, 1)
    assert RunBatch.objects.get(pk=batch.pk).status == JobStatus.QUEUED
