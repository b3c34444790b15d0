import os
from typing import Any

from celery import Celery
from celery.signals import import_modules, worker_init, worker_ready
from django.conf import settings

from annotator.checks import require_keys_secret

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")

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


@worker_ready.connect
def reap_on_start(sender: Any = None, **kwargs: Any) -> None:
    # A worker that starts may be the one that died: fail what it left running (a job whose
    # heartbeat came from a process of this host that is gone is reaped at once), and delete
    # uploads no job needs. Sent as a task, so that startup does not wait on the database.
    app.send_task("annotator.tasks.jobs_reap")
