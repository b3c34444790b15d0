import logging
import os
import socket
from typing import Any

from celery import Celery
from celery.signals import import_modules, task_received, worker_init, worker_ready
from django.conf import settings

from annotator.checks import require_keys_secret

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")

logger = logging.getLogger(__name__)

app = Celery("annotator")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@import_modules.connect(sender=app)
def refuse_without_keys_secret(sender: Any = None, **kwargs: Any) -> None:
    # A worker or beat starting runs no system checks, and swallows what most signal
    # handlers raise; what this one raises stops it (Celery re-raises the errors of
    # import_modules), with the reason (annotator.checks, cloak.E001).
    require_keys_secret()


def lower_priority(niceness: int) -> int:
    """Run this process at `niceness` at least (never raise its priority: only root may);
    0 leaves it as it is. The process's niceness afterwards."""
    current = os.getpriority(os.PRIO_PROCESS, 0)
    if niceness > current:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
    return os.getpriority(os.PRIO_PROCESS, 0)


@worker_init.connect
def yield_the_cpu_to_the_web(sender: Any = None, **kwargs: Any) -> None:
    # A worker on the web's host (propagation after each decision, runs, releases) must not
    # take the annotators' CPU: on 2 cores an accept competes with the propagation it has
    # just started (bench/load_bench.py). It pays because the worker computes holding no row
    # an annotator writes (a niced lock holder would make the writers wait longer): a
    # propagation pass matches first, then locks a few documents at a time, SKIP LOCKED. Set
    # in the worker's main process before its pool starts, so every pool process inherits it.
    lower_priority(settings.CLOAK_WORKER_NICE)


@worker_init.connect
def name_this_start(sender: Any = None, **kwargs: Any) -> None:
    # Its node name and an id of this start, inherited by the pool's processes: their
    # heartbeats name them, and this worker knows what an earlier start of it held
    # (annotator.services.jobs, "A job is dead").
    from annotator.services.jobs import worker_started

    worker_started(str(getattr(sender, "hostname", "") or f"celery@{socket.gethostname()}"))


@worker_ready.connect
def reap_on_start(sender: Any = None, **kwargs: Any) -> None:
    # A worker that starts may be the one that died: fail at once what its earlier start held
    # (and any job of a process of this host that is gone), and delete uploads no job needs.
    # Here, in the main process, before the worker takes its first task: sent as a task, the
    # reaper waited behind every message already queued (a run's batches), so the batch the
    # dead worker held was reaped only once the run had gone quiet for CLOAK_JOB_STALE_AFTER.
    from django.db import connections

    from annotator.tasks import jobs_reap

    try:
        jobs_reap()
    except Exception as error:
        # The error's kind, never its message; beat's next pass reaps instead.
        logger.warning("the reaper could not run as the worker started (%s)", type(error).__name__)
    finally:
        # The pool's processes must not share this process's connections.
        connections.close_all()


@task_received.connect
def hold_a_batch_handed_on(sender: Any = None, request: Any = None, **kwargs: Any) -> None:
    # A run's batch that the `ner` queue handed on is this worker's from the moment it
    # receives the second half: a worker killed before a pool process starts it takes the
    # message with it (acks_late: the broker gives it back only after its visibility
    # timeout), and its heartbeat must name this worker for the reaper to know the batch's
    # holder is gone (annotator.services.jobs, "A job is dead"). Cache only, no database.
    if request is None or request.name != "annotator.tasks.preannotate_batch":
        return
    args, options = list(request.args or ()), dict(request.kwargs or {})
    if not options.get("with_ner") or len(args) < 2:
        return  # a batch without NER is claimed when it runs, by the process that runs it
    from annotator.models import RunBatch
    from annotator.services.jobs import job_progress_set

    try:
        job_progress_set((RunBatch, int(args[1])), 0)
    except Exception as error:
        logger.warning("batch %s: its receipt was not recorded (%s)", args[1], type(error).__name__)
