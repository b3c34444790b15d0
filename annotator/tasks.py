"""Celery tasks: thin, id-based; the work is in services and the engine."""

from __future__ import annotations

from celery import shared_task

from annotator.services.imports import import_job_run


@shared_task(name="annotator.tasks.import_run", acks_late=True)
def import_run(job_id: int) -> None:
    # Not retried: an import either commits whole or is marked failed with its reason.
    import_job_run(job_id=job_id)
