"""Celery tasks: thin, id-based; the work is in services and the engine."""

from __future__ import annotations

from celery import shared_task

from annotator.services.imports import import_job_run


@shared_task(name="annotator.tasks.import_run", acks_late=True)
def import_run(job_id: int) -> None:
    # Not retried: an import either commits whole or is marked failed with its reason.
    import_job_run(job_id=job_id)


@shared_task(name="annotator.tasks.propagate", acks_late=True)
def propagate(project_id: int, alias_id: int, source_span_id: int | None = None) -> None:
    """Propose a choice new to the correspondence table wherever its surface occurs."""
    from annotator.services.propagation import propagate_choice

    # Safe to run twice: a second run finds the proposals in place and changes nothing.
    propagate_choice(project_id=project_id, alias_id=alias_id, source_span_id=source_span_id)
