"""Where a job stands, as its page and the API read it: the progress its worker last reported
(kept in the cache, so that a reader sees it while the job's own transaction is open), else
what its row keeps. The lifecycle that writes it is `annotator.services.jobs`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.core.cache import cache
from django.db import models

from annotator.models import PreannotationRun

JobRef = models.Model | tuple[type[models.Model], int]
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
    # The process that last reported, so that a reaper can tell it is gone: its host and pid,
    # and, in a Celery worker, the worker's node name and the id of that start of it.
    host: str = ""
    pid: int = 0
    node: str = ""
    boot: str = ""

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


def job_ref(job: JobRef) -> tuple[type[models.Model], int]:
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
        node=str(raw.get("node") or ""),
        boot=str(raw.get("boot") or ""),
    )


def job_progress(job: JobRef) -> Progress:
    """The last progress a worker reported; without one, what the job's row says (a run
    counts its documents there)."""
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
