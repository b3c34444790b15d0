"""One lifecycle for long work (imports, pre-annotation runs, releases), and its reaper.

A job row moves queued → running → done or failed. A worker claims it with one conditional
update, so of two workers handed the same job only one gets it; it reports progress and a
heartbeat to the cache, not to the database, so that a reader sees them while the job's own
transaction is still open (and, on SQLite, without taking the database's one write lock); it
finishes or fails it with a conditional update again. `started_at` is the claim's fence: a
job re-claimed from a worker taken for dead gets a new `started_at`, and the old worker's
finish or fail, which names the `started_at` it claimed with, then changes nothing.

A worker that dies leaves its job running and its heartbeat still. The reaper (`jobs_reap`,
run by Celery beat, when a worker starts, and by `manage.py reap_jobs`) fails such jobs, puts
the batches of a dead run back in the queue so that the run can be resumed, and deletes the
uploads that an import no longer needs: they hold originals.

A job whose task never reached a worker would stay queued for ever, its upload on disk. Its
task is sent once the job's transaction commits (`job_send_on_commit`): a broker that refuses
it fails the job there and then. A task lost later (the server stopped between the commit and
the send, the broker lost its queue) is the reaper's: it fails a job that no worker took for
CLOAK_JOB_QUEUED_TIMEOUT seconds while the workers had nothing else to do (`jobs_reap`).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import kombu.exceptions
import redis.exceptions
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, models, transaction
from django.db.models import Max, Q
from django.utils import timezone

from annotator.models import (
    BatchStatus,
    ImportJob,
    ImportStatus,
    LearnedModel,
    PreannotationRun,
    Release,
    ReleaseBatch,
    RunBatch,
    RunStatus,
)

logger = logging.getLogger(__name__)

# The status values every job model shares (ImportJob, PreannotationRun, Release, RunBatch,
# ReleaseBatch).
QUEUED = ImportStatus.QUEUED.value
RUNNING = ImportStatus.RUNNING.value
DONE = ImportStatus.DONE.value
FAILED = ImportStatus.FAILED.value

Job = models.Model | tuple[type[models.Model], int]
"""A job row, or its model and id when the caller has no row at hand."""

# Progress outlives no job by much: the key goes once the job is done or failed, and a worker
# that died leaves it for the reaper to read.
PROGRESS_TIMEOUT_S = 7 * 24 * 3600

IMPORT_REAPED = (
    "The worker stopped while importing this file; nothing was written. Upload it again."
)


def run_reaped_reason(run_id: int) -> str:
    return (
        "The worker stopped during this run; the batches it had not finished are queued "
        f"again. `python manage.py preannotate --resume {run_id}` resumes it."
    )


RELEASE_REAPED = "The worker stopped while writing this release; nothing was released."
# A release's NER batch whose worker died: the release fails with it (its error says so).
RELEASE_NER_REAPED = "its worker on the ner queue stopped"
LEARN_REAPED = "The worker stopped while training this model; ask for a new version."

# What an admin does to start a job again that never reached a worker, by kind.
START_AGAIN: dict[type[models.Model], str] = {
    ImportJob: "Nothing was imported, and the uploaded file is deleted: upload it again.",
    PreannotationRun: "Resume the run to start it again.",
    Release: "Nothing was released: cut the release again.",
    LearnedModel: "Nothing was trained: ask for a new version.",
}

# What sending a task raises when the broker cannot take it: kombu wraps most of what its
# transport raises, but redis's own errors can come through bare from a connection pool.
BROKER_ERRORS: tuple[type[BaseException], ...] = (
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
)


def unsent_reason(model: type[models.Model], error: BaseException) -> str:
    """Why a job failed when its task could not be sent (the error's kind, never its text)."""
    return (
        "Its task could not be sent to the workers: the broker did not answer "
        f"({type(error).__name__}). {START_AGAIN.get(model, '')}"
    ).strip()


def unclaimed_reason(model: type[models.Model], waited: timedelta) -> str:
    """Why the reaper failed a job that no worker took."""
    minutes = max(1, round(waited.total_seconds() / 60))
    return (
        f"No worker took it within {minutes} minute{'s' if minutes != 1 else ''}, while no "
        "worker had anything else to do: its task was lost (the broker restarted, or the "
        "server stopped before sending it) or no worker is running. "
        f"{START_AGAIN.get(model, '')}"
    ).strip()


@dataclass(frozen=True)
class Progress:
    done: int
    total: int | None
    updated_at: datetime | None  # last heartbeat
    # What `done` and `total` count ("bytes", "documents"); "" when the job did not say.
    unit: str = ""
    # Counters beside done/total that the job's page shows (an import's documents and spans).
    detail: Mapping[str, int] = field(default_factory=dict)
    # The process that last reported, so that a reaper on the same host can tell it is gone.
    host: str = ""
    pid: int = 0

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


def _ref(job: Job) -> tuple[type[models.Model], int]:
    if isinstance(job, tuple):
        return job
    assert job.pk is not None, "a job row that is not saved has no lifecycle"
    return type(job), int(job.pk)


def _progress_key(model: type[models.Model], job_id: int) -> str:
    return f"cloak:job:{model._meta.label_lower}:{job_id}:progress"


def _has_field(model: type[models.Model], name: str) -> bool:
    return any(f.name == name for f in model._meta.concrete_fields)


def _now() -> datetime:
    return timezone.now()


def job_progress_set(
    job: Job,
    done: int,
    total: int | None = None,
    *,
    unit: str = "",
    detail: Mapping[str, int] | None = None,
) -> None:
    """Record progress and a heartbeat where readers see them at once (the cache).

    The cache is Redis, or a folder in the embedded mode: neither waits for the job's database
    transaction, and neither takes SQLite's write lock.
    """
    model, job_id = _ref(job)
    cache.set(
        _progress_key(model, job_id),
        {
            "done": done,
            "total": total,
            "unit": unit,
            "detail": dict(detail or {}),
            "updated_at": _now().timestamp(),
            "host": socket.gethostname(),
            "pid": os.getpid(),
        },
        timeout=PROGRESS_TIMEOUT_S,
    )


def _cached_progress(model: type[models.Model], job_id: int) -> Progress | None:
    raw = cache.get(_progress_key(model, job_id))
    if not isinstance(raw, dict):
        return None
    return Progress(
        done=int(raw.get("done") or 0),
        total=raw.get("total"),
        updated_at=datetime.fromtimestamp(raw["updated_at"], tz=UTC)
        if raw.get("updated_at")
        else None,
        unit=str(raw.get("unit") or ""),
        detail=dict(raw.get("detail") or {}),
        host=str(raw.get("host") or ""),
        pid=int(raw.get("pid") or 0),
    )


def job_progress(job: Job) -> Progress:
    """The last progress a worker reported; for a run without one, what its row says."""
    model, job_id = _ref(job)
    cached = _cached_progress(model, job_id)
    if cached is not None:
        return cached
    if isinstance(job, PreannotationRun):
        return Progress(
            done=job.documents_done,
            total=job.documents_total or None,
            updated_at=job.finished_at or job.started_at,
            unit="documents",
        )
    return Progress(done=0, total=None, updated_at=None)


def _progress_forget(model: type[models.Model], job_id: int) -> None:
    # After the commit: until then readers still see the job running, and need its progress.
    key = _progress_key(model, job_id)
    transaction.on_commit(lambda: cache.delete(key))


def _fence(model: type[models.Model], claimed_at: datetime | None) -> dict[str, Any]:
    if claimed_at is None or not _has_field(model, "started_at"):
        return {}
    return {"started_at": claimed_at}


def job_claim(
    model: type[models.Model],
    job_id: int,
    *,
    stale_after: timedelta | None = None,
    where: Q | None = None,
) -> bool:
    """QUEUED -> RUNNING (started_at = now) by one conditional update; True when this caller got it.

    With `stale_after`, also re-claims a RUNNING job whose last heartbeat (or start) is older
    than that: its worker died, and a redelivered task takes the job over. The old claim's
    `started_at` is the condition of the update, so of two callers re-claiming at once only one
    gets it.

    `where` is one more condition of the same update (a run's batch is claimed only while its
    run is active). Keep it to columns of the job's own table, or subqueries over others: a
    join would turn the update into `id IN (SELECT …)` over the job's table, whose rows
    PostgreSQL does not check again after waiting on a concurrent claim, and both would win.
    """
    now = _now()
    manager = model._default_manager
    rows = manager.filter(where) if where is not None else manager.all()
    changes: dict[str, Any] = {"status": RUNNING}
    if _has_field(model, "started_at"):
        changes["started_at"] = now
    if rows.filter(pk=job_id, status=QUEUED).update(**changes) == 1:
        job_progress_set((model, job_id), 0)
        return True
    if stale_after is None:
        return False
    row = rows.filter(pk=job_id, status=RUNNING).first()
    if row is None or job_last_seen(row) > now - stale_after:
        return False
    claimed_at = getattr(row, "started_at", None)
    fence = {"started_at": claimed_at} if "started_at" in changes else {}
    if rows.filter(pk=job_id, status=RUNNING, **fence).update(**changes) != 1:
        return False
    logger.warning("%s %s re-claimed: its worker stopped reporting", model.__name__, job_id)
    job_progress_set((model, job_id), 0)
    return True


def job_finish(
    model: type[models.Model], job_id: int, *, claimed_at: datetime | None = None, **fields: Any
) -> bool:
    """RUNNING -> DONE with finished_at and `fields`; False when the job was not running.

    With `claimed_at` (the `started_at` the caller claimed with), False too when another
    worker has re-claimed the job since: the caller's work is then not the job's. Called inside
    the transaction that writes the job's results, a False answer lets the caller roll it back.
    """
    updated = model._default_manager.filter(
        pk=job_id, status=RUNNING, **_fence(model, claimed_at)
    ).update(status=DONE, finished_at=_now(), **fields)
    _progress_forget(model, job_id)
    return updated == 1


def _reason_fields(model: type[models.Model], reason: str) -> dict[str, Any]:
    return {"error": reason} if _has_field(model, "error") else {}


def job_fail(
    model: type[models.Model],
    job_id: int,
    reason: str,
    *,
    claimed_at: datetime | None = None,
    unclaimed: bool = False,
) -> bool:
    """QUEUED or RUNNING -> FAILED with the reason and finished_at; False when it was neither.

    With `unclaimed`, only a job still QUEUED: a worker that claims it meanwhile keeps it.
    The reason is shown to the project's admins: never put an original surface in it.
    """
    statuses = [QUEUED] if unclaimed else [QUEUED, RUNNING]
    updated = model._default_manager.filter(
        pk=job_id, status__in=statuses, **_fence(model, claimed_at)
    ).update(status=FAILED, finished_at=_now(), **_reason_fields(model, reason))
    _progress_forget(model, job_id)
    return updated == 1


def job_send_on_commit(
    job: Job, send: Callable[[], object], *, on_unsent: Callable[[], object] | None = None
) -> None:
    """Call `send` (which sends the job's task) once the current transaction commits, so that
    a worker never sees a row that is not committed. When the broker cannot take the task,
    the job fails there and then with the reason (`unsent_reason`), and `on_unsent` runs (an
    import deletes its upload): left queued, it would wait for a worker that never hears of
    it. Outside a transaction, `send` is called at once."""
    model, job_id = _ref(job)
    transaction.on_commit(partial(_send, model, job_id, send, on_unsent))


def _send(
    model: type[models.Model],
    job_id: int,
    send: Callable[[], object],
    on_unsent: Callable[[], object] | None,
) -> None:
    try:
        send()
    except BROKER_ERRORS as error:
        logger.error(
            "%s %s: its task could not be sent (%s: %s)",
            model.__name__,
            job_id,
            type(error).__name__,
            error,
        )
        # Claimed or not: a part that did get through (a run's first batches) may have started
        # the job, but the rest never will; that worker's write then finds it failed.
        if job_fail(model, job_id, unsent_reason(model, error)) and on_unsent is not None:
            on_unsent()


# --- Liveness ---------------------------------------------------------------------------------


def job_last_seen(job: models.Model) -> datetime:
    """The last sign of life of a running job: its heartbeat, its claim, or its batches' work."""
    model, job_id = _ref(job)
    signs: list[datetime] = []
    cached = _cached_progress(model, job_id)
    if cached is not None and cached.updated_at is not None:
        signs.append(cached.updated_at)
    claimed = getattr(job, "started_at", None) or getattr(job, "created_at", None)
    if claimed is not None:
        signs.append(claimed)
    if isinstance(job, PreannotationRun):
        batches = RunBatch.objects.filter(run=job).aggregate(
            started=Max("started_at"), finished=Max("finished_at")
        )
        signs.extend(value for value in batches.values() if value is not None)
    if isinstance(job, Release):
        # A release waits queued while the `ner` queue finds its documents' names.
        batches = ReleaseBatch.objects.filter(release=job).aggregate(
            started=Max("started_at"), finished=Max("finished_at")
        )
        signs.extend(value for value in batches.values() if value is not None)
    # A row with no time at all (a batch never claimed) has shown no life since the epoch.
    return max(signs, default=datetime.min.replace(tzinfo=UTC))


def _process_gone(job: models.Model) -> bool:
    """True when the job's last heartbeat came from a process of this host that is gone.

    A restarted `make run` (or a worker restarted on the same host) then reaps at once what its
    previous process left running, instead of waiting for the heartbeat to go stale.
    """
    model, job_id = _ref(job)
    cached = _cached_progress(model, job_id)
    if cached is None or not cached.pid or cached.host != socket.gethostname():
        return False
    try:
        os.kill(cached.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return _is_zombie(cached.pid)


def _is_zombie(pid: int) -> bool:
    """A process that has exited but that no parent has collected: a pool process whose
    worker was killed with it, where nothing reaps orphans (a container without an init).
    Linux says so in /proc; elsewhere the process counts as alive."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    # "pid (name) state …": the name may hold spaces and parentheses, the state follows the last.
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def _stale(job: models.Model, cutoff: datetime) -> bool:
    return job_last_seen(job) < cutoff or _process_gone(job)


# --- Uploads, which hold originals ---------------------------------------------------------


def uploads_dir() -> Path:
    return Path(settings.MEDIA_ROOT) / "imports"


def upload_delete(stored_path: str) -> bool:
    """Delete the folder of one upload; True when there was one. Never leaves uploads_dir()."""
    if not stored_path:
        return False
    folder = Path(stored_path).parent
    if folder.parent.resolve() != uploads_dir().resolve() or not folder.exists():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True


def _uploads_sweep(cutoff: datetime) -> int:
    """Delete upload folders that no queued or running import needs any more."""
    root = uploads_dir()
    if not root.is_dir():
        return 0
    deleted = 0
    for folder in root.iterdir():
        if not folder.is_dir():
            continue
        prefix = f"{folder}{os.sep}"
        jobs = ImportJob.objects.filter(stored_path__startswith=prefix)
        if jobs.filter(status__in=[QUEUED, RUNNING]).exists():
            continue
        modified = datetime.fromtimestamp(folder.stat().st_mtime, tz=UTC)
        # A folder with no job yet may belong to an upload whose job is being created.
        if jobs.exists() or modified < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            deleted += 1
    return deleted


# --- The reaper -------------------------------------------------------------------------------


def _reap_import(job: ImportJob) -> bool:
    if not job_fail(ImportJob, job.pk, IMPORT_REAPED, claimed_at=job.started_at):
        return False
    logger.warning("import job %s reaped: its worker stopped", job.pk)
    return True


def _reap_run(run: PreannotationRun) -> int | None:
    """Fail a dead run, resumable; the number of batches queued again, None if it moved."""
    with transaction.atomic():
        # Its running batches first, then the run: the order in which a batch's write locks
        # them, so that a write finishing now and this reaper wait for each other, never
        # deadlock.
        running = RunBatch.objects.filter(run=run, status=BatchStatus.RUNNING)
        list(running.select_for_update().order_by("pk").values_list("pk", flat=True))
        if not job_fail(
            PreannotationRun, run.pk, run_reaped_reason(run.pk), claimed_at=run.started_at
        ):
            return None
        requeued = running.update(status=BatchStatus.QUEUED)
    logger.warning("run %s reaped: its worker stopped; %s batches queued again", run.pk, requeued)
    return requeued


def _reap_release_batch(batch: ReleaseBatch) -> bool:
    """Fail a NER batch whose worker died, and its release (nothing is released without its
    names looked for); True when the release failed here."""
    # Here, not at the top: the release service uses this module's lifecycle.
    from annotator.services.releases import release_batch_fail

    if not release_batch_fail(
        batch_id=batch.pk, reason=RELEASE_NER_REAPED, claimed_at=batch.started_at
    ):
        return False
    logger.warning("release batch %s reaped: its worker stopped", batch.pk)
    return Release.objects.filter(pk=batch.release_id, status=FAILED).exists()


def _run_waiting(run: PreannotationRun) -> bool:
    """A run whose work is all in the queue: queued, or running with batches queued and
    none in a worker's hands (between two batches, or behind other work)."""
    if run.status == RunStatus.QUEUED:
        return True
    batches = RunBatch.objects.filter(run=run)
    return (
        batches.filter(status=BatchStatus.QUEUED).exists()
        and not batches.filter(status=BatchStatus.RUNNING).exists()
    )


# The rows whose claims and ends show a worker at work: a run's batches rather than the run,
# which stays "running" while its batches wait in the queue.
_WORK = (ImportJob, RunBatch, Release, ReleaseBatch, LearnedModel)


def _workers_busy(since: datetime) -> bool:
    """Whether some worker has been at work since `since`: a job of any kind claimed or
    ended since, or running with a sign of life since (a long import's heartbeat)."""
    for model in _WORK:
        rows = model._default_manager.all()
        if rows.filter(Q(started_at__gte=since) | Q(finished_at__gte=since)).exists():
            return True
        if any(job_last_seen(job) >= since for job in rows.filter(status=RUNNING)):
            return True
    return False


def _fail_unclaimed(job: models.Model, waited: timedelta) -> bool:
    """Fail a job that no worker took; False when one took it meanwhile."""
    model, job_id = _ref(job)
    reason = unclaimed_reason(model, waited)
    if getattr(job, "status", None) == RUNNING:
        # A run between batches: fenced by its claim, as a dead run is.
        failed = job_fail(model, job_id, reason, claimed_at=getattr(job, "started_at", None))
    else:
        failed = job_fail(model, job_id, reason, unclaimed=True)
    if failed:
        logger.warning("%s %s failed: no worker took it", model.__name__, job_id)
    return failed


def jobs_reap(
    *, older_than: timedelta | None = None, queued_older_than: timedelta | None = None
) -> dict[str, int]:
    """Fail the running jobs whose worker stopped, and the queued ones no worker took; delete
    uploads no job needs.

    A running job is taken for dead when it has shown no sign of life for `older_than`
    (default settings.CLOAK_JOB_STALE_AFTER seconds), or at once when its last heartbeat came
    from a process of this host that no longer exists. Imports become FAILED and their upload
    folder is deleted; runs become FAILED with their running batches queued again, so that
    `preannotate --resume RUN_ID` resumes them; releases and model trainings become FAILED, and
    so does a release whose NER batch's worker died (with the batch).

    A queued job is taken for lost when no worker took it for `queued_older_than` (default
    settings.CLOAK_JOB_QUEUED_TIMEOUT seconds) *and* no worker has been at work for
    `older_than`: no job of any kind claimed, ended or reporting in that time. While the
    workers are busy, a job that waits is taken to wait its turn behind their work, however
    long the queue (many runs queued behind each other), and is left alone; once the workers
    fall idle, the job they never took was never coming to them. Lost imports, releases and
    trainings become FAILED (an import's upload is deleted). A run counts as queued while
    all of its work is in the queue: queued, or running with no batch in a worker's hands;
    one of those is lost when its last sign of life (its start, a batch's claim or end, its
    resumption) is older than `queued_older_than` and the workers are idle. It becomes FAILED
    with its batches left queued, resumable. Returns counts (`jobs_never_taken` counts the
    lost ones again, beside their kind's count).
    """
    if older_than is None:
        older_than = timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if queued_older_than is None:
        queued_older_than = timedelta(seconds=settings.CLOAK_JOB_QUEUED_TIMEOUT)
    now = _now()
    cutoff = now - older_than
    queued_cutoff = now - queued_older_than
    # Before this pass fails anything: the jobs it fails end now, and are no worker's work.
    idle = not _workers_busy(cutoff)
    counts = {
        "imports_failed": 0,
        "runs_failed": 0,
        "batches_requeued": 0,
        "releases_failed": 0,
        "models_failed": 0,
        "jobs_never_taken": 0,
        "uploads_deleted": 0,
    }
    # One job at a time, each on its own: on SQLite a long import holds the write lock, and
    # the reaper's write for its row must not keep it from reaping the others.
    for job in ImportJob.objects.filter(status=RUNNING):
        try:
            if _stale(job, cutoff) and _reap_import(job):
                counts["imports_failed"] += 1
                counts["uploads_deleted"] += upload_delete(job.stored_path)
        except DatabaseError:
            logger.exception("could not reap import job %s", job.pk)
    for run in PreannotationRun.objects.filter(status__in=[QUEUED, RUNNING]).order_by("pk"):
        try:
            if _run_waiting(run):
                lost = idle and job_last_seen(run) < queued_cutoff
                if lost and _fail_unclaimed(run, queued_older_than):
                    counts["runs_failed"] += 1
                    counts["jobs_never_taken"] += 1
            elif _stale(run, cutoff):
                requeued = _reap_run(run)
                if requeued is not None:
                    counts["runs_failed"] += 1
                    counts["batches_requeued"] += requeued
        except DatabaseError:
            logger.exception("could not reap run %s", run.pk)
    for release in Release.objects.filter(status=RUNNING):
        try:
            if _stale(release, cutoff) and job_fail(Release, release.pk, RELEASE_REAPED):
                counts["releases_failed"] += 1
                # Here, not at the top: the release service uses this module's lifecycle.
                from annotator.services.releases import release_discard_partial

                release_discard_partial(release)
        except DatabaseError:
            logger.exception("could not reap release %s", release.pk)
    for batch in ReleaseBatch.objects.filter(status=RUNNING).order_by("pk"):
        try:
            if _stale(batch, cutoff) and _reap_release_batch(batch):
                counts["releases_failed"] += 1
        except DatabaseError:
            logger.exception("could not reap release batch %s", batch.pk)
    for learned in LearnedModel.objects.filter(status=RUNNING):
        try:
            if _stale(learned, cutoff) and job_fail(LearnedModel, learned.pk, LEARN_REAPED):
                counts["models_failed"] += 1
        except DatabaseError:
            logger.exception("could not reap learned model %s", learned.pk)
    if idle:
        _reap_unclaimed(queued_cutoff, queued_older_than, counts)
    counts["uploads_deleted"] += _uploads_sweep(cutoff)
    return counts


# The jobs that wait in the queue as one task each, with the reaper's count of their kind
# (a run waits as its batches: see jobs_reap).
_ONE_TASK_JOBS: tuple[tuple[type[models.Model], str], ...] = (
    (ImportJob, "imports_failed"),
    (Release, "releases_failed"),
    (LearnedModel, "models_failed"),
)


def _reap_unclaimed(cutoff: datetime, waited: timedelta, counts: dict[str, int]) -> None:
    """Fail the one-task jobs queued before `cutoff` that no worker took (the caller has
    seen the workers idle); an import's upload goes with it."""
    for model, counter in _ONE_TASK_JOBS:
        queued = model._default_manager.filter(status=QUEUED, created_at__lt=cutoff)
        for job in queued.order_by("pk"):
            try:
                if job_last_seen(job) >= cutoff or not _fail_unclaimed(job, waited):
                    continue
                counts[counter] += 1
                counts["jobs_never_taken"] += 1
                if isinstance(job, ImportJob):
                    counts["uploads_deleted"] += upload_delete(job.stored_path)
            except DatabaseError:
                logger.exception("could not fail queued %s %s", model.__name__, job.pk)
