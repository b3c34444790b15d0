"""Reads of a project's import jobs, the same for its overview and its import pages, and
where each stands (`import_job_progress`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from annotator.models import ImportJob, JobStatus, Project
from annotator.selectors.jobs import job_progress


def imports_of(project: Project) -> QuerySet[ImportJob]:
    """The project's import jobs, newest first, with who uploaded each."""
    return ImportJob.objects.filter(project=project).select_related("created_by")


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
    if job.status == JobStatus.RUNNING:
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
    if job.status == JobStatus.DONE:
        return ImportProgress(
            "done", job.documents_created, job.spans_created, size, size,
            job.documents_created, job.documents_created, WRITING, job.finished_at,
        )  # fmt: skip
    stage = "failed" if job.status == JobStatus.FAILED else "queued"
    return ImportProgress(stage, 0, 0, 0, size, 0, size or None, READING, job.finished_at)
