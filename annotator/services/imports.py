"""Importing documents: a file in, documents and `import` spans out, all or nothing.

Readers (pseudonymizer.formats) stream the file; documents are checked and written in
batches inside one transaction, so a refused file leaves the database as it was. On
PostgreSQL the batches go through COPY, which is what makes 100,000 documents a matter of
seconds; other databases use bulk_create.
"""

from __future__ import annotations

import json
import logging
import shutil
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction
from django.utils import timezone

from annotator.models import (
    AuditAction,
    Document,
    DocumentStatus,
    ImportJob,
    ImportStatus,
    Project,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.services.audit import audit_record
from annotator.services.errors import DomainError, ImportRefused
from pseudonymizer.formats import FORMATS, ReadLimits, read_documents
from pseudonymizer.formats.base import FormatError, ImportedDocument, validate_document

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]
"""Called after each written batch with (documents so far, spans so far)."""


@dataclass
class ImportSummary:
    documents: int = 0
    spans: int = 0
    languages: dict[str, int] = field(default_factory=dict)


def _limits() -> ReadLimits:
    return ReadLimits(
        max_bytes=settings.CLOAK_IMPORT_MAX_BYTES,
        max_zip_ratio=settings.CLOAK_IMPORT_MAX_ZIP_RATIO,
    )


class _Checker:
    """Gives every document its language and id, and refuses what the project cannot take."""

    def __init__(self, project: Project, default_language: str | None, filename: str) -> None:
        self.project = project
        self.labels = set(project.labels)
        self.default_language = default_language
        if default_language is None and len(project.languages) == 1:
            self.default_language = project.languages[0]
        self.stem = Path(filename).stem or "document"
        self.seen: set[str] = set()

    def check(self, document: ImportedDocument, number: int) -> None:
        where = (document.filename, document.line)
        validate_document(document, self.labels)
        if "\x00" in document.text:
            # PostgreSQL text cannot hold NUL; say so rather than fail deep in the database.
            raise FormatError(*where, "the text contains a NUL character")
        language = document.language or self.default_language
        if not language:
            raise FormatError(*where, "the document has no language: give one (--language)")
        if language not in self.project.languages:
            raise FormatError(
                *where,
                f"language {language!r} is not one of the project's "
                f"({', '.join(self.project.languages)})",
            )
        document.language = language
        if document.external_id is None or document.external_id == "":
            document.external_id = f"{self.stem}-{document.line or number}"
        if len(document.external_id) > 255:
            raise FormatError(*where, "document id longer than 255 characters")
        if document.external_id in self.seen:
            raise FormatError(*where, f"duplicate document id {document.external_id!r}")
        self.seen.add(document.external_id)

    def refuse_existing(self, batch: list[ImportedDocument]) -> None:
        ids = [document.external_id for document in batch]
        existing = set(
            Document.objects.filter(project=self.project, external_id__in=ids).values_list(
                "external_id", flat=True
            )
        )
        for document in batch:
            if document.external_id in existing:
                raise FormatError(
                    document.filename,
                    document.line,
                    f"document id {document.external_id!r} already exists in the project",
                )


class _Writer:
    def __init__(self, project: Project, job: ImportJob | None) -> None:
        self.project = project
        self.job = job
        self.now = timezone.now()
        self.status = DocumentStatus.NEW

    def write(self, batch: list[ImportedDocument]) -> int:
        raise NotImplementedError


class _OrmWriter(_Writer):
    def write(self, batch: list[ImportedDocument]) -> int:
        documents = Document.objects.bulk_create(
            [
                Document(
                    project=self.project,
                    # Both set by _Checker.check before a document reaches a writer.
                    language=str(document.language),
                    external_id=str(document.external_id),
                    text=document.text,
                    metadata=document.metadata,
                    status=self.status,
                    import_job=self.job,
                )
                for document in batch
            ]
        )
        spans = [
            Span(
                document=row,
                start=span.start,
                end=span.end,
                label=span.label,
                source=SpanSource.IMPORT,
                score=span.score,
                status=SpanStatus.PROPOSED,
                decision=span.decision or "pseudonymize",
            )
            for row, document in zip(documents, batch, strict=True)
            for span in document.spans
        ]
        Span.objects.bulk_create(spans, batch_size=5000)
        return len(spans)


class _PostgresCopyWriter(_Writer):
    """COPY rows in; document ids come from the table's own sequence, reserved up front."""

    DOCUMENT_COLUMNS = (
        "id", "project_id", "language", "external_id", "text", "metadata", "status",
        "assignee_id", "import_job_id", "version", "created_at", "updated_at",
    )  # fmt: skip
    SPAN_COLUMNS = (
        "document_id", "start", "end", "label", "source", "score", "status", "decision",
        "keep_reason", "entity_id", "run_id", "version", "created_by_id", "created_at",
        "decided_by_id", "decided_at", "updated_by_id", "updated_at",
    )  # fmt: skip

    def __init__(self, project: Project, job: ImportJob | None) -> None:
        super().__init__(project, job)
        quote = connection.ops.quote_name
        self.document_copy = "COPY {} ({}) FROM STDIN".format(
            quote(Document._meta.db_table), ", ".join(quote(c) for c in self.DOCUMENT_COLUMNS)
        )
        self.span_copy = "COPY {} ({}) FROM STDIN".format(
            quote(Span._meta.db_table), ", ".join(quote(c) for c in self.SPAN_COLUMNS)
        )
        self.sequence_sql = (
            f"SELECT nextval(pg_get_serial_sequence('{Document._meta.db_table}', 'id')) "
            "FROM generate_series(1, %s)"
        )

    def write(self, batch: list[ImportedDocument]) -> int:
        job_id = self.job.pk if self.job else None
        with connection.cursor() as wrapper:
            wrapper.execute(self.sequence_sql, [len(batch)])
            ids = [row[0] for row in wrapper.fetchall()]
            cursor = wrapper.cursor  # the psycopg cursor, for COPY
            with cursor.copy(self.document_copy) as copy:
                for document_id, document in zip(ids, batch, strict=True):
                    copy.write_row(
                        (
                            document_id,
                            self.project.pk,
                            document.language,
                            document.external_id,
                            document.text,
                            json.dumps(document.metadata, ensure_ascii=False),
                            self.status,
                            None,
                            job_id,
                            1,
                            self.now,
                            self.now,
                        )  # fmt: skip
                    )
            count = 0
            with cursor.copy(self.span_copy) as copy:
                for document_id, document in zip(ids, batch, strict=True):
                    for span in document.spans:
                        copy.write_row(
                            (
                                document_id,
                                span.start,
                                span.end,
                                span.label,
                                SpanSource.IMPORT,
                                span.score,
                                SpanStatus.PROPOSED,
                                span.decision or "pseudonymize",
                                "",
                                None,
                                None,
                                1,
                                None,
                                self.now,
                                None,
                                None,
                                None,
                                self.now,
                            )  # fmt: skip
                        )
                        count += 1
        return count


def _writer(project: Project, job: ImportJob | None) -> _Writer:
    if connection.vendor == "postgresql":
        return _PostgresCopyWriter(project, job)
    return _OrmWriter(project, job)


def _batches(
    documents: Iterable[ImportedDocument], checker: _Checker, size: int
) -> Iterable[list[ImportedDocument]]:
    batch: list[ImportedDocument] = []
    for number, document in enumerate(documents, start=1):
        checker.check(document, number)
        batch.append(document)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def documents_import(
    *,
    project: Project,
    path: Path,
    fmt: str = "auto",
    language: str | None = None,
    filename: str | None = None,
    text_column: str = "text",
    actor: Any = None,
    job: ImportJob | None = None,
    progress: ProgressCallback | None = None,
) -> ImportSummary:
    """Import every document of the file at `path` into `project`, or nothing at all.

    Raises ImportRefused with the file, line and reason when anything in the file is wrong.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise DomainError(f"unknown format {fmt!r}; formats are auto, {', '.join(FORMATS)}")
    if language is not None and language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's ({', '.join(project.languages)})"
        )
    name = filename or path.name
    checker = _Checker(project, language, name)
    summary = ImportSummary()
    try:
        with transaction.atomic():
            writer = _writer(project, job)
            documents = read_documents(
                path, fmt, language=language, limits=_limits(), text_column=text_column,
                filename=name,
            )  # fmt: skip
            for batch in _batches(documents, checker, settings.CLOAK_IMPORT_BATCH_SIZE):
                checker.refuse_existing(batch)
                summary.spans += writer.write(batch)
                summary.documents += len(batch)
                for document in batch:
                    summary.languages[document.language or ""] = (
                        summary.languages.get(document.language or "", 0) + 1
                    )
                if progress is not None:
                    progress(summary.documents, summary.spans)
            if summary.documents == 0:
                raise FormatError(name, 0, "the file holds no documents")
            audit_record(
                action=AuditAction.IMPORT,
                actor=actor,
                project=project,
                target=f"import_job:{job.pk}" if job else "",
                detail={
                    "format": fmt,
                    "documents": summary.documents,
                    "spans": summary.spans,
                    "languages": summary.languages,
                },
            )
    except FormatError as error:
        raise ImportRefused(str(error)) from None
    return summary


# --- Uploads through the page and the API, imported by a worker -----------------------------


def _uploads_dir() -> Path:
    return Path(settings.MEDIA_ROOT) / "imports"


def progress_cache_key(job_id: int) -> str:
    return f"cloak:import:{job_id}:progress"


@transaction.atomic
def import_job_create(
    *,
    project: Project,
    upload: UploadedFile,
    fmt: str = "auto",
    language: str | None = None,
    actor: Any = None,
) -> ImportJob:
    """Store an upload and queue its import; the worker starts once this transaction commits."""
    from annotator import tasks

    if fmt != "auto" and fmt not in FORMATS:
        raise DomainError(f"unknown format {fmt!r}; formats are auto, {', '.join(FORMATS)}")
    if language and language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's ({', '.join(project.languages)})"
        )
    size = upload.size or 0
    if size > settings.CLOAK_IMPORT_MAX_BYTES:
        raise DomainError(
            f"{upload.name}: file is {size} bytes, over the limit of "
            f"{settings.CLOAK_IMPORT_MAX_BYTES}"
        )
    if size == 0:
        raise DomainError(f"{upload.name}: the file is empty")
    original_name = Path(upload.name or "upload").name
    folder = _uploads_dir() / uuid.uuid4().hex
    folder.mkdir(parents=True, exist_ok=True)
    stored = folder / original_name
    with stored.open("wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    job = ImportJob.objects.create(
        project=project,
        created_by=actor if actor is not None and actor.is_authenticated else None,
        filename=original_name,
        stored_path=str(stored),
        format=fmt,
        language=language or "",
        size_bytes=size,
    )
    tasks.import_run.delay_on_commit(job.pk)
    return job


def import_job_run(*, job_id: int) -> None:
    """Claim a queued job and import it; safe to call twice (the second call does nothing)."""
    from django.core.cache import cache

    claimed = ImportJob.objects.filter(id=job_id, status=ImportStatus.QUEUED).update(
        status=ImportStatus.RUNNING, started_at=timezone.now()
    )
    if claimed != 1:
        return
    job = ImportJob.objects.select_related("project", "created_by").get(id=job_id)
    key = progress_cache_key(job.pk)

    def report(documents: int, spans: int) -> None:
        cache.set(key, {"documents": documents, "spans": spans}, timeout=24 * 3600)

    stored = Path(job.stored_path)
    try:
        summary = documents_import(
            project=job.project,
            path=stored,
            fmt=job.format,
            language=job.language or None,
            filename=job.filename,
            actor=job.created_by,
            job=job,
            progress=report,
        )
    except DomainError as error:
        # The message may quote the file (it names a mismatching span's text): it goes to the
        # job, which only the project's admins read, and never to the log.
        ImportJob.objects.filter(id=job.pk).update(
            status=ImportStatus.FAILED, error=str(error), finished_at=timezone.now()
        )
        logger.info("import job %s refused", job.pk)
    except Exception:
        ImportJob.objects.filter(id=job.pk).update(
            status=ImportStatus.FAILED,
            error="The import failed on an internal error; nothing was written.",
            finished_at=timezone.now(),
        )
        logger.exception("import job %s failed", job.pk)
        raise
    else:
        ImportJob.objects.filter(id=job.pk).update(
            status=ImportStatus.DONE,
            documents_created=summary.documents,
            spans_created=summary.spans,
            finished_at=timezone.now(),
        )
    finally:
        # The upload holds the originals: keep no copy once it is in the database (or refused).
        shutil.rmtree(stored.parent, ignore_errors=True)
        cache.delete(key)


def import_job_progress(job: ImportJob) -> dict[str, int]:
    from django.core.cache import cache

    if job.status == ImportStatus.RUNNING:
        return cache.get(progress_cache_key(job.pk)) or {"documents": 0, "spans": 0}
    return {"documents": job.documents_created, "spans": job.spans_created}
