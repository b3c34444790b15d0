"""One lifecycle for long work (imports, pre-annotation runs, releases, trainings), and its
reaper.

A job row moves queued → running → done or failed. A worker claims it with one conditional
update, so of two workers handed the same job only one gets it; it reports progress and a
heartbeat to the cache, not to the database, so that a reader sees them while the job's own
transaction is still open (and, on SQLite, without taking the database's one write lock); it
finishes or fails it with a conditional update again. `started_at` is the claim's fence: a
job re-claimed from a worker taken for dead gets a new `started_at`, and the old worker's
finish or fail, which names the `started_at` it claimed with, then changes nothing.

Each kind of job is registered here by the service that owns it (`job_kind_register`): its
model (an `annotator.models.Job`), its task, how to reap one whose worker died and what to
clean up after it. Nothing here knows one kind from another.

A worker that dies leaves its job running and its heartbeat still. The reaper (`jobs_reap`,
run by Celery beat, by each worker as it starts, and by `manage.py reap_jobs`) walks the kinds
and fails such jobs through each kind's `reap` (a dead run puts its batches back in the queue,
so that it can be resumed; an import deletes its upload: it holds originals).

A job is dead once it has shown no sign of life for CLOAK_JOB_STALE_AFTER seconds, or at once
when the process that holds its work is known to be gone. Each heartbeat names that process
(`job_progress_set`): its host and pid, and in a worker, the worker's Celery node name
(`celery@<hostname>`) and the id of that start of the worker (`worker_started`). What holds a
job's work is the process of its own heartbeat, or, for a run, those of its running batches
(`JobKind.held_by`): a run's own heartbeat is that of whichever worker wrote its last batch. A
batch the `ner` queue hands on is held by no process until a worker receives its second half,
whose main process holds it from then on (annotator.celery). A holder is gone when
- it was a worker of this process's node name started before this one: a node name is one
  worker at a time, and a container restarted by docker-compose keeps its hostname (so its
  name) but starts its processes again at the same low pids, where a pid would still answer;
- or it ran on this host and its pid is gone, or a zombie (`make run` restarted, a reaper run
  next to the worker: `manage.py reap_jobs` in its container).
A worker reaps in its main process as it starts, before it takes a task: sent as a task, the
reaper would wait behind every message already queued, and the batch its predecessor held
would be reaped only once the run went quiet for CLOAK_JOB_STALE_AFTER. A worker recreated
under a new hostname (a new container) does not know its predecessor by name: what that one
held goes stale as before.

A job whose task never reached a worker would stay queued for ever, its upload on disk. Its
task is sent once the job's transaction commits (`job_dispatch`): a broker that refuses it fails
the job there and then. A task lost later (the server stopped between the commit and the send,
the broker lost its queue on a restart) is the reaper's: once no worker took the job for
CLOAK_JOB_QUEUED_TIMEOUT seconds while the workers had nothing else to do, it sends the job's
work again, once (`resent_at` records it; a run's queued batches, a release's NER batches or
its build), and fails it only when no worker took that either for the timeout again
(`jobs_reap`). A second message for the same work is harmless: a job or batch is claimed by
one conditional update, and written under that claim only.

A bug that stops a job's work goes one way (`job_crashed`): the job fails with a reason that
holds no text, and the log gets the exception's kind, the job and the trace's frames, never
the exception's message, which may quote a document.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import traceback
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import kombu.exceptions
import redis.exceptions
from celery import Task, current_app
from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, models, transaction
from django.db.models import Q
from django.utils import timezone

from annotator.models import Job, JobStatus
from annotator.selectors.jobs import JobRef, cached_progress, job_ref, progress_key

logger = logging.getLogger(__name__)

QUEUED = JobStatus.QUEUED.value
RUNNING = JobStatus.RUNNING.value
DONE = JobStatus.DONE.value
FAILED = JobStatus.FAILED.value

# Progress outlives no job by much: the key goes once the job is done or failed, and a worker
# that died leaves it for the reaper to read.
PROGRESS_TIMEOUT_S = 7 * 24 * 3600

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
        f"({type(error).__name__}). {_start_again(model)}"
    ).strip()


def unclaimed_reason(model: type[models.Model], waited: timedelta) -> str:
    """Why the reaper failed a job that no worker took."""
    minutes = max(1, round(waited.total_seconds() / 60))
    return (
        f"No worker took it within {minutes} minute{'s' if minutes != 1 else ''}, nor as long "
        "again after its task was sent a second time, while no worker had anything else to "
        "do: its task was lost (the broker restarted, or the server stopped before sending "
        "it) or no worker is running. "
        f"{_start_again(model)}"
    ).strip()


def crashed_reason(error: BaseException) -> str:
    """Why a job failed on a bug: the exception's kind, never its message."""
    return f"internal error ({type(error).__name__}); the worker's log has the trace"


# --- Kinds of job -----------------------------------------------------------------------------

Counts = Mapping[str, int]
"""What the reaper did, by name ("imports_failed": 1): `manage.py reap_jobs` prints them."""


def _queued(job: Any) -> bool:
    return bool(job.status == QUEUED)


@dataclass(frozen=True)
class JobKind:
    """One kind of job, as the lifecycle and its reaper see it: the service that owns the
    kind registers it (`job_kind_register`), and nothing here knows one kind from another."""

    model: type[Job]
    # The name of the task that does one (`annotator.tasks.<name>`), sent with the job's id
    # (`job_dispatch`); "" for a kind whose work is sent otherwise (a run's is its batches').
    task: str = ""
    # The reaper's counts of what it did to this kind, in the order `reap_jobs` prints them;
    # the first is how many it failed.
    counters: tuple[str, ...] = ()
    # What its progress counts ("documents", "passes"); "" where it changes as the job goes
    # (an import reads bytes, then writes documents).
    unit: str = ""
    # What an admin does to start one again that failed before any worker took it.
    start_again: str = ""
    # Fail one whose worker stopped, and clean up after it; what it did. None: its rows are
    # reaped with another kind's (a run's batches with their run).
    reap: Callable[[Any], Counts] | None = None
    # Whether one's work all waits in the queue (the reaper fails it when the workers fall
    # idle and it never came to them). None: it never waits that way on its own.
    waiting: Callable[[Any], bool] | None = _queued
    # Clean up after one failed before any worker took it (an import's upload); what it did.
    discard: Callable[[Any], Counts] | None = None
    # Fail one by id with a reason, where failing it takes more than its row (a batch fails
    # its run). None: `job_fail`.
    fail: Callable[[int, str, datetime | None], bool] | None = None
    # Its signs of life besides its row's own: its batches' claims and ends.
    signs_of_life: Callable[[Any], Iterable[datetime | None]] | None = None
    # Whether its claims and ends show a worker at work: not a run's, which stays running
    # while its batches wait in the queue (its batches show the work).
    shows_work: bool = True
    # Delete, each pass of the reaper, what no job of the kind needs any more (the uploads
    # of imports gone); what it did. The reaper's last counts.
    sweep: Callable[[datetime], Counts] | None = None
    # The rows whose heartbeats name the processes holding its work, when not its own (a
    # run's running batches; the run's own heartbeat is that of its last batch's writer).
    held_by: Callable[[Any], Iterable[JobRef]] | None = None
    # What sends its work again when the broker lost it (a run's queued batches); None: its
    # `task` with its id. A kind with neither is failed without a second send.
    resend: Callable[[Any], Callable[[], object]] | None = None


_KINDS: dict[type[models.Model], JobKind] = {}


def job_kind_register(kind: JobKind) -> JobKind:
    """Make a kind of job known to the lifecycle; each service registers its own as it is
    imported (annotator.apps loads them all)."""
    _KINDS[kind.model] = kind
    return kind


def job_kinds() -> Iterator[JobKind]:
    """The kinds of job, in the order their models are declared (annotator.models): the
    reaper's order, and that of its counts."""
    declared = {model: i for i, model in enumerate(apps.get_models())}
    return iter(sorted(_KINDS.values(), key=lambda kind: declared.get(kind.model, len(declared))))


def job_kind(model: type[models.Model]) -> JobKind | None:
    return _KINDS.get(model)


def _start_again(model: type[models.Model]) -> str:
    kind = job_kind(model)
    return kind.start_again if kind is not None else ""


def _now() -> datetime:
    return timezone.now()


# --- Which worker this process is ----------------------------------------------------------


@dataclass(frozen=True)
class WorkerStart:
    """One start of a Celery worker: its node name (`celery@<hostname>`, one running worker
    at a time) and an id of its own."""

    node: str
    boot: str


_worker: WorkerStart | None = None


def worker_started(node: str) -> WorkerStart:
    """Record that this process is a Celery worker named `node`, started now. Called in the
    worker's main process before its pool starts (annotator.celery), so that every pool
    process inherits it and its heartbeats name this start of the worker."""
    global _worker
    _worker = WorkerStart(node=node, boot=uuid.uuid4().hex)
    return _worker


def job_progress_set(
    job: JobRef,
    done: int,
    total: int | None = None,
    *,
    unit: str = "",
    detail: Mapping[str, int] | None = None,
    held: bool = True,
) -> None:
    """Record progress and a heartbeat where readers see them at once (the cache), naming
    this process as the one that holds the job's work; with `held=False`, none does (a batch
    the `ner` queue handed on waits in the default queue).

    The cache is Redis, or a folder in the embedded mode: neither waits for the job's database
    transaction, and neither takes SQLite's write lock.
    """
    model, job_id = job_ref(job)
    value: dict[str, Any] = {
        "done": done,
        "total": total,
        "unit": unit,
        "detail": dict(detail or {}),
        "updated_at": _now().timestamp(),
    }
    if held:
        value.update(_this_process())
    cache.set(progress_key(model, job_id), value, timeout=PROGRESS_TIMEOUT_S)


def _this_process() -> dict[str, Any]:
    """This process as a heartbeat names it: host and pid, and in a worker its node name and
    the id of this start of it."""
    named: dict[str, Any] = {"host": socket.gethostname(), "pid": os.getpid()}
    if _worker is not None:
        named.update(node=_worker.node, boot=_worker.boot)
    return named


def _claimer_key(model: type[models.Model], job_id: int) -> str:
    return f"cloak:job:{model._meta.label_lower}:{job_id}:claimer"


def _progress_forget(model: type[models.Model], job_id: int) -> None:
    # After the commit: until then readers still see the job running, and need its progress.
    keys = [progress_key(model, job_id), _claimer_key(model, job_id)]
    transaction.on_commit(lambda: cache.delete_many(keys))


def _fence(model: type[models.Model], claimed_at: datetime | None) -> dict[str, Any]:
    if claimed_at is None:
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
    changes: dict[str, Any] = {"status": RUNNING, "started_at": now}
    # Who is claiming, before the claim: a process killed between its claim and its first
    # heartbeat is still known, and a restarted worker reaps its job at once. A claim that
    # loses leaves its name here until the winner's heartbeat speaks for the job.
    cache.set(_claimer_key(model, job_id), _this_process(), timeout=PROGRESS_TIMEOUT_S)
    if rows.filter(pk=job_id, status=QUEUED).update(**changes) == 1:
        job_progress_set((model, job_id), 0)
        return True
    if stale_after is None:
        return False
    row = rows.filter(pk=job_id, status=RUNNING).first()
    if row is None or job_last_seen(row) > now - stale_after:
        return False
    fence = {"started_at": getattr(row, "started_at", None)}
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
    ).update(status=FAILED, finished_at=_now(), error=reason)
    _progress_forget(model, job_id)
    return updated == 1


def _fail(model: type[models.Model], job_id: int, reason: str, claimed_at: datetime | None) -> bool:
    """Fail a job as its kind fails one (a batch fails its run too)."""
    kind = job_kind(model)
    if kind is not None and kind.fail is not None:
        return kind.fail(job_id, reason, claimed_at)
    return job_fail(model, job_id, reason, claimed_at=claimed_at)


# --- Sending a job's task -----------------------------------------------------------------


def job_dispatch(job: JobRef, *sends: Callable[[], object]) -> None:
    """Send the job's task once the current transaction commits, so that a worker never sees
    a row that is not committed: its kind's task with its id, or what `sends` send (a run's
    batches, a release's NER batches). When the broker cannot take it, the job fails there and
    then with the reason (`unsent_reason`), and its kind discards what it left (an import's
    upload): left queued, it would wait for a worker that never hears of it. Outside a
    transaction, it is sent at once."""
    model, job_id = job_ref(job)
    if not sends:
        kind = job_kind(model)
        assert kind is not None and kind.task, f"{model.__name__} has no task"
        sends = (partial(_delay, kind.task, job_id),)
    transaction.on_commit(partial(_send, model, job_id, sends))


def _send(model: type[models.Model], job_id: int, sends: Iterable[Callable[[], object]]) -> None:
    try:
        for send in sends:
            send()
    except BROKER_ERRORS as error:
        # The error's kind, never its message.
        logger.error(
            "%s %s: its task could not be sent (%s)", model.__name__, job_id, type(error).__name__
        )
        # Claimed or not: a part that did get through (a run's first batches) may have started
        # the job, but the rest never will; that worker's write then finds it failed.
        if job_fail(model, job_id, unsent_reason(model, error)):
            _discard(model, job_id)


def _discard(model: type[models.Model], job_id: int) -> Counts:
    kind = job_kind(model)
    if kind is None or kind.discard is None:
        return {}
    job = model._default_manager.filter(pk=job_id).first()
    return kind.discard(job) if job is not None else {}


def task(name: str) -> Task:  # type: ignore[type-arg]
    """The task `annotator.tasks.<name>`, as Celery registered it. Services send work by the
    task's name, through here, and never import `annotator.tasks` (which imports them): the
    tasks module is loaded once the app is ready (`annotator.apps`), as the worker loads it."""
    return current_app.tasks[f"annotator.tasks.{name}"]


def _delay(name: str, *args: Any) -> object:
    return task(name).delay(*args)


def task_send_on_commit(name: str, *args: Any, countdown: int | None = None) -> None:
    """Send a task that is no job's (a propagation, a review scan, the quality numbers) once
    the current transaction commits, `countdown` seconds later if given. Its work is a
    consequence of a write that stands without it: a broker that cannot take it is logged (the
    error's kind, never its message) and the caller's write stays made. Outside a transaction,
    it is sent at once."""
    transaction.on_commit(partial(_send_task, name, args, countdown))


def _send_task(name: str, args: tuple[Any, ...], countdown: int | None) -> None:
    try:
        if countdown is None:
            task(name).delay(*args)
        else:
            task(name).apply_async(args=list(args), countdown=countdown)
    except BROKER_ERRORS as error:
        logger.error("annotator.tasks.%s could not be sent (%s)", name, type(error).__name__)


# --- A bug -------------------------------------------------------------------------------------


def job_crashed(
    job: JobRef,
    error: BaseException,
    *,
    claimed_at: datetime | None = None,
    reason: str | None = None,
) -> bool:
    """A bug stopped a job's work: log the exception's kind, the job and the trace's frames,
    never the exception's message (it may quote a document), and fail the job as its kind
    fails one, with `reason` (default `crashed_reason`: no text either). True when this call
    failed it (False when it had ended, or was taken over, meanwhile)."""
    model, job_id = job_ref(job)
    logger.error(
        "%s %s failed on %s (message withheld: it may quote a document)\n%s",
        model.__name__,
        job_id,
        type(error).__name__,
        "".join(traceback.format_tb(error.__traceback__)),
    )
    return _fail(model, job_id, reason or crashed_reason(error), claimed_at)


def job_gave_up(job: JobRef, error: BaseException, *, retries: int) -> bool:
    """A job's task gave up on transient errors (the database, the broker or the GPU away
    longer than its retries): fail the job as its kind fails one. True when this call did."""
    model, job_id = job_ref(job)
    reason = (
        f"gave up after {retries} retries on {type(error).__name__} "
        "(the database, the broker or the GPU was not available)"
    )
    try:
        return _fail(model, job_id, reason, None)
    except DatabaseError:
        logger.warning("%s %s: could not be marked failed", model.__name__, job_id)
        return False


# --- Liveness ---------------------------------------------------------------------------------


def job_last_seen(job: models.Model) -> datetime:
    """The last sign of life of a job: its heartbeat, its claim, its batches' work, or the
    reaper sending its work again."""
    resent: datetime | None = getattr(job, "resent_at", None)
    seen = _last_seen_of_workers(job)
    return max(seen, resent) if resent is not None else seen


def _last_seen_of_workers(job: models.Model) -> datetime:
    model, job_id = job_ref(job)
    signs: list[datetime] = []
    cached = cached_progress(model, job_id)
    if cached is not None and cached.updated_at is not None:
        signs.append(cached.updated_at)
    claimed = getattr(job, "started_at", None) or getattr(job, "created_at", None)
    if claimed is not None:
        signs.append(claimed)
    kind = job_kind(model)
    if kind is not None and kind.signs_of_life is not None:
        signs.extend(sign for sign in kind.signs_of_life(job) if sign is not None)
    # A row with no time at all (a batch never claimed) has shown no life since the epoch.
    return max(signs, default=datetime.min.replace(tzinfo=UTC))


def _process_gone(job: models.Model) -> bool:
    """True when a process that holds the job's work is known to be gone (the module's
    docstring says when), so that a restarted worker reaps at once what its predecessor
    held instead of waiting for the heartbeat to go stale."""
    kind = job_kind(type(job))
    holders = kind.held_by(job) if kind is not None and kind.held_by is not None else [job]
    return any(_holder_gone(holder) for holder in holders)


def _holder_gone(holder: JobRef) -> bool:
    model, job_id = job_ref(holder)
    cached = cached_progress(model, job_id)
    if cached is not None:
        return _gone(cached.node, cached.boot, cached.host, cached.pid)
    return job_claimer_gone(holder)


def job_claimer_gone(job: JobRef) -> bool:
    """Whether the process that claimed `job` is known to be gone: what tells of a job whose
    claimer died before its first heartbeat (`job_claim` names it before claiming)."""
    model, job_id = job_ref(job)
    claimer = cache.get(_claimer_key(model, job_id))
    if not isinstance(claimer, dict):
        return False
    return _gone(
        str(claimer.get("node") or ""), str(claimer.get("boot") or ""),
        str(claimer.get("host") or ""), int(claimer.get("pid") or 0),
    )  # fmt: skip


def _gone(node: str, boot: str, host: str, pid: int) -> bool:
    """Whether the process a heartbeat names is known to be gone."""
    if _worker is not None and node == _worker.node and boot and boot != _worker.boot:
        return True  # this node's worker before this one
    if not pid or host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return _is_zombie(pid)


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


# --- The reaper -------------------------------------------------------------------------------


def _workers_busy(since: datetime) -> bool:
    """Whether some worker has been at work since `since`: a job of any kind claimed or
    ended since, or running with a sign of life since (a long import's heartbeat)."""
    for kind in job_kinds():
        if not kind.shows_work:
            continue
        rows = kind.model._default_manager.all()
        if rows.filter(Q(started_at__gte=since) | Q(finished_at__gte=since)).exists():
            return True
        if any(job_last_seen(job) >= since for job in rows.filter(status=RUNNING)):
            return True
    return False


def _fail_unclaimed(job: models.Model, waited: timedelta) -> bool:
    """Fail a job that no worker took; False when one took it meanwhile."""
    model, job_id = job_ref(job)
    reason = unclaimed_reason(model, waited)
    if getattr(job, "status", None) == RUNNING:
        # A run between batches: fenced by its claim, as a dead run is.
        failed = job_fail(model, job_id, reason, claimed_at=getattr(job, "started_at", None))
    else:
        failed = job_fail(model, job_id, reason, unclaimed=True)
    if failed:
        logger.warning("%s %s failed: no worker took it", model.__name__, job_id)
    return failed


def _resendable(kind: JobKind, job: Any) -> bool:
    """Whether the job's work can be sent again and was not, since its last sign of life."""
    if kind.resend is None and not kind.task:
        return False
    resent: datetime | None = job.resent_at
    return resent is None or resent < _last_seen_of_workers(job)


def _resend(kind: JobKind, job: Any) -> int:
    """Send the work of a job whose message the broker lost again, and record when; 1 when it
    was sent, 0 when the job moved meanwhile (claimed, failed, or sent again by another
    reaper). A broker that refuses it fails the job there and then (`job_dispatch`)."""
    model = kind.model
    as_seen = model._default_manager.filter(pk=job.pk, status=job.status, resent_at=job.resent_at)
    if not as_seen.update(resent_at=_now()):
        return 0
    job.refresh_from_db()
    logger.warning("%s %s: no worker took it; its work is sent again", model.__name__, job.pk)
    job_dispatch(job, *((kind.resend(job),) if kind.resend is not None else ()))
    return 1


def _add(counts: dict[str, int], more: Counts) -> None:
    for name, n in more.items():
        counts[name] = counts.get(name, 0) + n


def jobs_reap(
    *, older_than: timedelta | None = None, queued_older_than: timedelta | None = None
) -> dict[str, int]:
    """Fail the running jobs whose worker stopped, and the queued ones no worker took; let
    each kind clean up after them (the uploads no import needs are deleted).

    A running job is taken for dead when it has shown no sign of life for `older_than`
    (default settings.CLOAK_JOB_STALE_AFTER seconds), or at once when a process that holds its
    work is known to be gone (an earlier start of this worker, or a pid of this host that no
    longer exists: the module's docstring); its kind reaps it (`JobKind.reap`):
    imports become FAILED and their upload folder is deleted; runs become FAILED with their
    running batches queued again, so that `preannotate --resume RUN_ID` resumes them;
    releases and model trainings become FAILED, and so does a release whose NER batch's
    worker died (with the batch).

    A queued job is taken for lost when no worker took it for `queued_older_than` (default
    settings.CLOAK_JOB_QUEUED_TIMEOUT seconds) *and* no worker has been at work for
    `older_than`: no job of any kind claimed, ended or reporting in that time. While the
    workers are busy, a job that waits is taken to wait its turn behind their work, however
    long the queue (many runs queued behind each other), and is left alone; once the workers
    fall idle, the job they never took was never coming to them: its message is taken for
    lost from the broker, and its work is sent again (`jobs_resent`), once since its last
    sign of life, the time of the resend (`resent_at`) a sign of life itself. A job that no
    worker took for `queued_older_than` after that resend is lost: it becomes FAILED, and its
    kind discards what it left (an import's upload). A run counts as queued while all of its
    work is in the queue: queued, or running with no batch in a worker's hands
    (`JobKind.waiting`); one of those is lost when its last sign of life (its start, a
    batch's claim or end, its resumption, its resend) is older than `queued_older_than` and
    the workers are idle; its queued batches are sent again, and then it becomes FAILED
    with its batches left queued, resumable. Returns counts (`jobs_never_taken` counts the
    failed ones again, beside their kind's count).
    """
    if older_than is None:
        older_than = timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if queued_older_than is None:
        queued_older_than = timedelta(seconds=settings.CLOAK_JOB_QUEUED_TIMEOUT)
    now = _now()
    cutoff = now - older_than
    queued_cutoff = now - queued_older_than
    kinds = list(job_kinds())
    # Before this pass fails anything: the jobs it fails end now, and are no worker's work.
    idle = not _workers_busy(cutoff)
    counts = {name: 0 for kind in kinds for name in kind.counters}
    counts["jobs_resent"] = 0
    counts["jobs_never_taken"] = 0
    # One job at a time, each on its own: on SQLite a long import holds the write lock, and
    # the reaper's write for its row must not keep it from reaping the others.
    for kind in kinds:
        if kind.reap is None:
            continue
        for job in kind.model._default_manager.filter(status=RUNNING).order_by("pk"):
            try:
                # A job whose work all waits in the queue is not dead: it may be lost (below).
                if kind.waiting is not None and kind.waiting(job):
                    continue
                if _stale(job, cutoff):
                    _add(counts, kind.reap(job))
            except DatabaseError:
                logger.exception("could not reap %s %s", kind.model.__name__, job.pk)
    if idle:
        for kind in kinds:
            _reap_unclaimed(kind, queued_cutoff, queued_older_than, counts)
    for kind in kinds:
        if kind.sweep is not None:
            _add(counts, kind.sweep(cutoff))
    return counts


def _reap_unclaimed(
    kind: JobKind, cutoff: datetime, waited: timedelta, counts: dict[str, int]
) -> None:
    """Send again the work of the jobs of a kind whose work all waits in the queue, with no
    sign of life since `cutoff`, that no worker took (the caller has seen the workers idle);
    fail those whose work was sent again already, to no avail."""
    if kind.waiting is None:
        return
    rows = kind.model._default_manager.filter(status__in=[QUEUED, RUNNING]).order_by("pk")
    for job in rows:
        try:
            if not kind.waiting(job) or job_last_seen(job) >= cutoff:
                continue
            if _resendable(kind, job):
                counts["jobs_resent"] += _resend(kind, job)
                continue
            if not _fail_unclaimed(job, waited):
                continue
            _add(counts, dict.fromkeys((*kind.counters[:1], "jobs_never_taken"), 1))
            if kind.discard is not None:
                _add(counts, kind.discard(job))
        except DatabaseError:
            logger.exception("could not fail queued %s %s", kind.model.__name__, job.pk)
