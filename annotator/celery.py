import os
from typing import Any

from celery import Celery
from celery.signals import import_modules, worker_ready

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


@worker_ready.connect
def reap_on_start(sender: Any = None, **kwargs: Any) -> None:
    # A worker that starts may be the one that died: fail what it left running (a job whose
    # heartbeat came from a process of this host that is gone is reaped at once), and delete
    # uploads no job needs. Sent as a task, so that startup does not wait on the database.
    app.send_task("annotator.tasks.jobs_reap")
