"""Reads of pre-annotation runs, the same for the pages and the API: a project's runs with
their batches counted by status."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from annotator.models import JOB_LIFECYCLE, PreannotationRun, Project, RunBatch


@dataclass(frozen=True)
class BatchCounts:
    total: int
    queued: int
    running: int
    done: int
    failed: int


def runs_newest_first(project: Project) -> QuerySet[PreannotationRun]:
    """The project's runs, newest first: the rows alone (a filter's choices)."""
    return PreannotationRun.objects.filter(project=project).order_by("-created_at", "-pk")


def runs_of(project: Project) -> QuerySet[PreannotationRun]:
    """The project's runs, newest first, each with its batch counts (`batch_counts`)."""
    by = {status: Count("batches", filter=Q(batches__status=status)) for status in JOB_LIFECYCLE}
    return (
        runs_newest_first(project)
        .select_related("created_by")
        .annotate(
            batches_total=Count("batches"),
            **{f"batches_{status.value}": count for status, count in by.items()},
        )
    )


def batch_counts(run: PreannotationRun) -> BatchCounts:
    """The run's batches by status: from `runs_of`'s annotations, else one query."""
    if not hasattr(run, "batches_total"):
        counts = dict(
            RunBatch.objects.filter(run=run)
            .values_list("status")
            .annotate(n=Count("pk"))
            .order_by()
        )
        return BatchCounts(
            total=sum(counts.values()),
            **{status.value: counts.get(status.value, 0) for status in JOB_LIFECYCLE},
        )
    return BatchCounts(
        total=run.batches_total,  # type: ignore[attr-defined]
        **{status.value: getattr(run, f"batches_{status.value}") for status in JOB_LIFECYCLE},
    )
