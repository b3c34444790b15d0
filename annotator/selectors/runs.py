"""Reads of pre-annotation runs, the same for the pages and the API: a project's runs with
their batches counted by status, and what each source proposed in a run."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from annotator.models import JOB_LIFECYCLE, PreannotationRun, Project, RunBatch
from pseudonymizer.vocabulary import Source


@dataclass(frozen=True)
class SourceCount:
    """What one source proposed in a run: `proposed` proposals (a span several sources
    proposed counts for each), `alone` of them proposed by no other source."""

    source: str
    name: str
    proposed: int
    alone: int


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


def run_source_counts(run: PreannotationRun) -> list[SourceCount]:
    """What each source proposed in the run, in the vocabulary's order of sources: from the
    counts the run keeps as it writes (none for a run older than them)."""
    counts = run.source_counts if isinstance(run.source_counts, dict) else {}
    order = {source.value: index for index, source in enumerate(Source)}
    return [
        SourceCount(
            source=source,
            name=Source(source).label if source in order else source,
            proposed=int(row.get("proposed", 0)),
            alone=int(row.get("alone", 0)),
        )
        for source, row in sorted(counts.items(), key=lambda item: order.get(item[0], len(order)))
        if isinstance(row, dict)
    ]
