"""Where a job stands, as the pages, the API and the reaper read it: the progress and heartbeat
its worker last reported to the cache (written by `annotator.services.jobs.job_progress_set`),
and an import's or a release's progress made of that and of its row. Reads only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.core.cache import cache
from django.db import models
from django.db.models import Count, Q

from annotator.models import (
    BatchStatus,
    ImportJob,
    ImportStatus,
    PreannotationRun,
    Release,
    ReleaseBatch,
    ReleaseStatus,
)

Job = models.Model | tuple[type[models.Model], int]
"""A job row, or its model and id when the caller has no row at hand."""


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


def job_ref(job: Job) -> tuple[type[models.Model], int]:
    if isinstance(job, tuple):
        return job
    assert job.pk is not None, "a job row that is not saved has no lifecycle"
    return type(job), int(job.pk)


def progress_key(model: type[models.Model], job_id: int) -> str:
    return f"cloak:job:{model._meta.label_lower}:{job_id}:progress"


def cached_progress(model: type[models.Model], job_id: int) -> Progress | None:
    raw = cache.get(progress_key(model, job_id))
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
    model, job_id = job_ref(job)
    cached = cached_progress(model, job_id)
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


# What an import's progress counts while it runs: bytes of the file read, then (on SQLite)
# documents written.
READING = "bytes"
WRITING = "documents"


@dataclass(frozen=True)
class ImportProgress:
    """What an import's page and the API show: the same numbers in both."""

    stage: str  # queued, reading, writing, done, failed
    documents: int
    spans: int
    bytes_read: int
    bytes_total: int
    # The bar: bytes read of the file while reading, documents written of those read after.
    done: int
    total: int | None
    unit: str
    updated_at: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def import_job_progress(job: ImportJob) -> ImportProgress:
    size = job.size_bytes
    if job.status == ImportStatus.RUNNING:
        reported = job_progress(job)
        documents = reported.detail.get("documents", 0)
        spans = reported.detail.get("spans", 0)
        if reported.unit == WRITING:
            return ImportProgress(
                "writing", documents, spans, size, size, reported.done, reported.total,
                WRITING, reported.updated_at,
            )  # fmt: skip
        return ImportProgress(
            "reading", documents, spans, reported.done, size, reported.done, size or None,
            READING, reported.updated_at,
        )  # fmt: skip
    if job.status == ImportStatus.DONE:
        return ImportProgress(
            "done", job.documents_created, job.spans_created, size, size,
            job.documents_created, job.documents_created, WRITING, job.finished_at,
        )  # fmt: skip
    stage = "failed" if job.status == ImportStatus.FAILED else "queued"
    return ImportProgress(stage, 0, 0, 0, size, 0, size or None, READING, job.finished_at)


def release_progress(release: Release) -> dict[str, Any]:
    """Where a release stands, as pages and the API show it: {"status", "done", "total",
    "percent", "error", "ner"}; `ner` is {"done", "total"} batches of its documents' names on
    the `ner` queue while it waits for them (None when it sends none)."""
    done, total = release.documents_done, release.documents_total
    if release.status == ReleaseStatus.RUNNING:
        reported = job_progress(release)
        done = reported.done
        total = reported.total if reported.total is not None else total
    if release.status == ReleaseStatus.DONE or release.status == ReleaseStatus.REFUSED:
        percent = 100
    else:
        percent = min(100, int(100 * done / total)) if total else 0
    ner: dict[str, int] | None = None
    if release.status == ReleaseStatus.QUEUED:
        counts = ReleaseBatch.objects.filter(release_id=release.pk).aggregate(
            total=Count("pk"), done=Count("pk", filter=Q(status=BatchStatus.DONE))
        )
        if counts["total"]:
            ner = {"done": int(counts["done"]), "total": int(counts["total"])}
    return {
        "status": release.status,
        "done": done,
        "total": total,
        "percent": percent,
        "error": release.error,
        "ner": ner,
    }
