"""Importing documents: a file in, documents and `import` spans out, all or nothing.

Readers (pseudonymizer.formats) stream the file; documents are checked and written in
batches inside one transaction, so a refused file leaves the database as it was. On
PostgreSQL the batches go through COPY, which is what makes 100,000 documents a matter of
seconds, while the file is read, and the process holds one batch at a time: a document id
seen twice (in the file, or in the project already) is left to the table's unique
constraint rather than to a set of every id, and a refused file is read once more, holding
the ids, to name its first fault exactly. On SQLite, whose one write lock a long transaction would
hold against every page, the file is read and checked first and written after, in one short
transaction; other databases use bulk_create.

An upload is an import job (annotator.services.jobs): claimed by one worker, reporting bytes
read and documents to its page as it goes, done in the transaction that writes its documents.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any, NamedTuple

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotator.audit import audit_record
from annotator.errors import DomainError, ImportRefused
from annotator.models import (
    AuditAction,
    Document,
    DocumentStatus,
    ImportJob,
    JobStatus,
    Project,
    Span,
    SpanSource,
)
from annotator.permissions import acting_user
from annotator.selectors.assignments import annotators_by_language
from annotator.selectors.imports import READING, WRITING
from annotator.services.assignments import documents_assign_arrivals
from annotator.services.corpus_words import WordsCollector, corpus_words_add
from annotator.services.jobs import (
    Counts,
    JobKind,
    job_claim,
    job_crashed,
    job_dispatch,
    job_fail,
    job_finish,
    job_kind_register,
    job_progress_set,
    upload_delete,
    uploads_dir,
)
from annotator.services.pg_copy import (
    copy_field,
    copy_lines,
    copy_statement,
    copy_template,
    copy_text,
    table_columns,
)
from annotator.services.proposals import SPAN_COLUMNS, Proposal, bulk_propose, proposal_row
from pseudonymizer.folding import fold
from pseudonymizer.formats import FORMATS, ReadLimits, detect_format, read_documents
from pseudonymizer.formats.base import FormatError, ImportedDocument, check_labels, unstorable
from pseudonymizer.spans import Span as FileSpan
from pseudonymizer.vocabulary import Decision

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]
"""Called after each checked batch with (documents so far, spans so far)."""


class ImportObserver:
    """Hears how an import goes; this one hears nothing. An import job's reports to its page."""

    def read(self, position: int) -> None:
        """`position` bytes of the file have been read."""

    def checked(self, documents: int, spans: int) -> None:
        """So many documents (and their spans) have been read and checked."""

    def writing(self, written: int, total: int) -> None:
        """Writing what was read and checked: `written` of `total` documents (SQLite only)."""


class ImportTakenOver(Exception):
    """The job was re-claimed by another worker, or reaped, while this one imported it."""


@dataclass
class ImportSummary:
    documents: int = 0
    spans: int = 0
    languages: dict[str, int] = field(default_factory=dict)

    def add(self, batch: list[ImportedDocument]) -> None:
        self.documents += len(batch)
        for document in batch:
            self.spans += len(document.spans)
            language = document.language or ""
            self.languages[language] = self.languages.get(language, 0) + 1


def _limits() -> ReadLimits:
    return ReadLimits(
        max_bytes=settings.CLOAK_IMPORT_MAX_BYTES,
        max_zip_ratio=settings.CLOAK_IMPORT_MAX_ZIP_RATIO,
    )


class _Checker:
    """Gives every document its language and id, and refuses what the project cannot take.

    Unless `exact`, a repeated id is not looked for: the caller's database refuses it."""

    def __init__(
        self, project: Project, default_language: str | None, filename: str, *, exact: bool
    ) -> None:
        self.project = project
        self.exact = exact
        self.labels = set(project.labels)
        self.default_language = default_language
        if default_language is None and len(project.languages) == 1:
            self.default_language = project.languages[0]
        self.stem = Path(filename).stem or "document"
        self.seen: set[str] = set()

    def check(self, document: ImportedDocument, number: int) -> None:
        where = (document.filename, document.line)
        # The reader has checked the rest of what validate_document checks.
        check_labels(document, self.labels)
        # PostgreSQL's text and jsonb cannot hold NUL; say so rather than fail deep in the
        # database (the reader has refused a lone surrogate, which no UTF-8 text holds).
        if "\x00" in document.text:
            raise FormatError(*where, "the text contains a NUL character")
        if document.external_id is not None and "\x00" in document.external_id:
            raise FormatError(*where, "the document id contains a NUL character")
        fault = unstorable(document.metadata, nul=True)
        if fault is not None:
            raise FormatError(*where, f"the metadata holds {fault}")
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
        if not self.exact:
            return
        if document.external_id in self.seen:
            raise FormatError(*where, f"duplicate document id {document.external_id!r}")
        self.seen.add(document.external_id)

    def refuse_existing(self, batch: list[ImportedDocument]) -> None:
        if not self.exact:
            return
        self.refuse_existing_ids(
            [(str(document.external_id), document.filename, document.line) for document in batch]
        )

    def refuse_existing_ids(self, keys: list[tuple[str, str, int]]) -> None:
        """Refuse the first of `keys` (document id, file, line) that the project already has."""
        existing = set(
            Document.objects.filter(
                project=self.project, external_id__in=[key[0] for key in keys]
            ).values_list("external_id", flat=True)
        )
        for external_id, filename, line in keys:
            if external_id in existing:
                raise FormatError(
                    filename, line, f"document id {external_id!r} already exists in the project"
                )


# What a span the file carried is decided, when the file does not say.
IMPORT_DECISION = Decision.PSEUDONYMIZE.value


def _proposal(document_id: int, span: FileSpan) -> Proposal:
    """A span the file carried, as a proposal of the imported document."""
    return Proposal(
        document_id=document_id,
        start=span.start,
        end=span.end,
        label=span.label,
        source=SpanSource.IMPORT.value,
        score=span.score,
        decision=span.decision or IMPORT_DECISION,
    )


class _Writer:
    def __init__(self, project: Project, job: ImportJob | None) -> None:
        self.project = project
        self.job = job
        self.now = timezone.now()
        self.status = DocumentStatus.NEW
        # The words of what is written, for the project's vocabulary (written by `finish`).
        self.words = WordsCollector()

    def write(self, batch: list[ImportedDocument]) -> int:
        raise NotImplementedError


class _OrmWriter(_Writer):
    def write(self, batch: list[ImportedDocument]) -> int:
        rows = []
        for document in batch:
            folded = fold(document.text)
            self.words.add(document.text, folded)
            rows.append(
                Document(
                    project=self.project,
                    # Both set by _Checker.check before a document reaches a writer.
                    language=str(document.language),
                    external_id=str(document.external_id),
                    text=document.text,
                    search_text=folded,
                    words_indexed=True,
                    metadata=document.metadata,
                    status=self.status,
                    import_job=self.job,
                )
            )
        documents = Document.objects.bulk_create(rows)
        spans = bulk_propose(
            _proposal(row.pk, span)
            for row, document in zip(documents, batch, strict=True)
            for span in document.spans
        )
        return len(spans)


class _RowWriter(_Writer):
    """Rows as tuples, straight to the tables: what the ORM would write, without its cost."""

    DOCUMENT_COLUMNS = (
        "id", "project_id", "language", "external_id", "text", "metadata", "status",
        "assignee_id", "import_job_id", "version", "created_at", "updated_at", "search_text",
        "words_indexed",
    )  # fmt: skip
    SPAN_COLUMNS = SPAN_COLUMNS

    def __init__(self, project: Project, job: ImportJob | None) -> None:
        super().__init__(project, job)
        self.job_id = job.pk if job else None
        self.stamp: Any = self.now

    def document_row(self, document_id: int, document: ImportedDocument) -> tuple[Any, ...]:
        folded = fold(document.text)
        self.words.add(document.text, folded)
        return (
            document_id, self.project.pk, document.language, document.external_id,
            document.text, json.dumps(document.metadata, ensure_ascii=False),
            self.status.value, None, self.job_id, 1, self.stamp, self.stamp,
            folded, True,
        )  # fmt: skip

    def span_rows(self, document_id: int, document: ImportedDocument) -> Iterator[tuple[Any, ...]]:
        for span in document.spans:
            row = proposal_row(_proposal(document_id, span), self.stamp)
            yield tuple(row[column] for column in self.SPAN_COLUMNS)


class _PostgresCopyWriter(_RowWriter):
    """COPY rows in, as text the writer formats itself, a bounded chunk at a time; document
    ids come from the table's own sequence, reserved up front.

    Formatting the rows here (`annotator.services.pg_copy`) rather than handing psycopg a
    tuple per row takes a third of the import's time off the process."""

    DOCUMENT_VARYING = {
        "id", "language", "external_id", "text", "metadata", "search_text", "assignee_id",
    }  # fmt: skip
    SPAN_VARYING = {
        "document_id", "start", "end", "label", "score", "decision",
        "proposed_start", "proposed_end", "proposed_label",
    }  # fmt: skip

    def __init__(self, project: Project, job: ImportJob | None) -> None:
        super().__init__(project, job)
        self.document_copy = copy_statement(Document, self.DOCUMENT_COLUMNS)
        self.span_copy = copy_statement(Span, self.SPAN_COLUMNS)
        self.sequence_sql = (
            f"SELECT nextval(pg_get_serial_sequence('{Document._meta.db_table}', 'id')) "
            "FROM generate_series(1, %s)"
        )
        # Each document is written with the assignee documents_assign_arrivals would give it
        # after (its language's annotator), which then has none of them left to update: an
        # UPDATE would write every imported row, and its eight index entries, a second time.
        self.assignees = {
            language: copy_field(user.pk)
            for language, user in annotators_by_language(project).items()
        }
        # The columns every row of an import shares, from the rows the ORM path would write.
        sample = ImportedDocument(text="x", external_id="x", language="x")
        self.document_template = copy_template(
            self.DOCUMENT_COLUMNS,
            self.DOCUMENT_VARYING,
            dict(zip(self.DOCUMENT_COLUMNS, self.document_row(0, sample), strict=True)),
        )
        sample.spans = [FileSpan(0, 1, "x")]
        self.span_template = copy_template(
            self.SPAN_COLUMNS,
            self.SPAN_VARYING,
            dict(zip(self.SPAN_COLUMNS, next(self.span_rows(0, sample)), strict=True)),
        )
        self.words = WordsCollector()  # the sample's aside

    def document_lines(self, ids: list[int], batch: list[ImportedDocument]) -> Iterator[str]:
        template = self.document_template.format
        for document_id, document in zip(ids, batch, strict=True):
            folded = fold(document.text)
            self.words.add(document.text, folded)
            yield template(
                id=document_id,
                language=copy_text(str(document.language)),
                external_id=copy_text(str(document.external_id)),
                text=copy_text(document.text),
                metadata=copy_text(json.dumps(document.metadata, ensure_ascii=False)),
                search_text=copy_text(folded),
                assignee_id=self.assignees.get(str(document.language), "\\N"),
            )

    def span_lines(self, ids: list[int], batch: list[ImportedDocument]) -> Iterator[str]:
        # The same values as `span_rows` (through `_proposal`), without a row object each.
        template = self.span_template.format
        for document_id, document in zip(ids, batch, strict=True):
            for span in document.spans:
                label = copy_text(span.label)
                yield template(
                    document_id=document_id,
                    start=span.start,
                    end=span.end,
                    label=label,
                    score="\\N" if span.score is None else repr(span.score),
                    decision=copy_text(span.decision or IMPORT_DECISION),
                    proposed_start=span.start,
                    proposed_end=span.end,
                    proposed_label=label,
                )

    def write(self, batch: list[ImportedDocument]) -> int:
        # psycopg's own errors (a duplicate id's unique violation) as Django's.
        with connection.cursor() as wrapper, connection.wrap_database_errors:
            wrapper.execute(self.sequence_sql, [len(batch)])
            ids = [row[0] for row in wrapper.fetchall()]
            cursor = wrapper.cursor  # the psycopg cursor, for COPY
            copy_lines(cursor, self.document_copy, self.document_lines(ids, batch))
            copy_lines(cursor, self.span_copy, self.span_lines(ids, batch))
        return sum(len(document.spans) for document in batch)


class _Prepared(NamedTuple):
    """A batch made rows before the write transaction (SQLite), without their ids yet."""

    keys: list[tuple[str, str, int]]  # document id, file, line: to refuse a late duplicate
    documents: list[tuple[Any, ...]]  # document rows without their first column, the id
    spans: list[list[tuple[Any, ...]]]  # per document, its span rows without document_id


class _SqliteWriter(_RowWriter):
    """executemany() in one write transaction, which SQLite holds alone while it lasts.

    That transaction's length is the time every other writer waits, so rows are made before
    it begins (`prepare`, while the file is read) and go in without the ORM (`write_prepared`),
    several times faster than bulk_create. Document ids follow the table's AUTOINCREMENT
    counter; the transaction holds the database's write lock, so no insert comes between.
    """

    def __init__(self, project: Project, job: ImportJob | None) -> None:
        super().__init__(project, job)
        self.stamp = connection.ops.adapt_datetimefield_value(self.now)
        table = Document._meta.db_table
        self.next_id_sql = (
            f"SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '{table}'), 0), "
            f"coalesce((SELECT max(id) FROM {connection.ops.quote_name(table)}), 0)) + 1"
        )
        marks = ", ".join(["%s"] * len(self.DOCUMENT_COLUMNS))
        self.document_insert = (
            f"INSERT INTO {table_columns(Document, self.DOCUMENT_COLUMNS)} VALUES ({marks})"
        )
        marks = ", ".join(["%s"] * len(self.SPAN_COLUMNS))
        self.span_insert = f"INSERT INTO {table_columns(Span, self.SPAN_COLUMNS)} VALUES ({marks})"

    def prepare(self, batch: list[ImportedDocument]) -> _Prepared:
        return _Prepared(
            keys=[(str(d.external_id), d.filename, d.line) for d in batch],
            documents=[self.document_row(0, d)[1:] for d in batch],
            spans=[[row[1:] for row in self.span_rows(0, d)] for d in batch],
        )

    def write_prepared(self, prepared: _Prepared) -> int:
        with connection.cursor() as cursor:
            cursor.execute(self.next_id_sql)
            first = cursor.fetchone()[0]
            ids = range(first, first + len(prepared.documents))
            cursor.executemany(
                self.document_insert,
                [(i, *row) for i, row in zip(ids, prepared.documents, strict=True)],
            )
            spans = [(i, *row) for i, rows in zip(ids, prepared.spans, strict=True) for row in rows]
            cursor.executemany(self.span_insert, spans)
        return len(spans)

    def write(self, batch: list[ImportedDocument]) -> int:
        return self.write_prepared(self.prepare(batch))


def _writer(project: Project, job: ImportJob | None) -> _Writer:
    if connection.vendor == "postgresql":
        return _PostgresCopyWriter(project, job)
    if connection.vendor == "sqlite":
        return _SqliteWriter(project, job)
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


def _unspooled(spool: IO[bytes]) -> Iterator[_Prepared]:
    while True:
        try:
            yield pickle.load(spool)
        except EOFError:
            return


def _write_after_reading() -> bool:
    # SQLite has one write lock for the whole database: a transaction open while a large
    # file is read would keep every page that writes (a span accepted, a login) waiting. So
    # the file is read and checked first, its documents kept in a temporary file, and written
    # after in one short transaction. PostgreSQL locks rows, not the database, and streams.
    return connection.vendor == "sqlite"


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
    observer: ImportObserver | None = None,
) -> ImportSummary:
    """Import every document of the file at `path` into `project`, or nothing at all.

    With `job` (claimed, RUNNING), the job becomes DONE in the transaction that writes its
    documents, so that no one sees the documents without the job done, or the reverse; if the
    job was taken from this worker meanwhile, raises ImportTakenOver and writes nothing.
    Raises ImportRefused with the file, line and reason when anything in the file is wrong.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise DomainError(f"unknown format {fmt!r}; formats are auto, {', '.join(FORMATS)}")
    if language is not None and language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's ({', '.join(project.languages)})"
        )
    run = _DocumentsImport(
        project=project, path=path, fmt=fmt, language=language, name=filename or path.name,
        text_column=text_column, actor=actor, job=job, progress=progress,
        watcher=observer or ImportObserver(),
    )  # fmt: skip
    try:
        if run.fmt == "auto":
            run.fmt = detect_format(path, run.name)
        if _write_after_reading():
            run.write_spooled()
        else:
            run.write_streamed()
    except FormatError as error:
        raise ImportRefused(str(error)) from None
    return run.summary


@dataclass
class _DocumentsImport:
    """One import of a file, step by step: read and check it in batches, write them (as
    they come, or spooled then written: `_write_after_reading`), and finish in the write's
    transaction (arrivals assigned, audited, the job done)."""

    project: Project
    path: Path
    fmt: str
    language: str | None
    name: str
    text_column: str
    actor: Any
    job: ImportJob | None
    progress: ProgressCallback | None
    watcher: ImportObserver
    summary: ImportSummary = field(default_factory=ImportSummary)

    def __post_init__(self) -> None:
        # COPY streams, and PostgreSQL refuses a repeated id itself: see `first_fault`.
        self.exact = connection.vendor != "postgresql"
        self.checker = _Checker(self.project, self.language, self.name, exact=self.exact)

    def read_batches(self, reader: _Checker, **options: Any) -> Iterator[list[ImportedDocument]]:
        documents = read_documents(
            self.path, self.fmt, language=self.language, limits=_limits(),
            text_column=self.text_column, filename=self.name, unique_ids=reader.exact,
            **options,
        )  # fmt: skip
        for batch in _batches(documents, reader, settings.CLOAK_IMPORT_BATCH_SIZE):
            reader.refuse_existing(batch)
            yield batch

    def checked_batches(self) -> Iterator[list[ImportedDocument]]:
        for batch in self.read_batches(self.checker, on_position=self.watcher.read):
            self.summary.add(batch)
            self.watcher.checked(self.summary.documents, self.summary.spans)
            if self.progress is not None:
                self.progress(self.summary.documents, self.summary.spans)
            yield batch
        if self.summary.documents == 0:
            raise FormatError(self.name, 0, "the file holds no documents")

    def first_fault(self) -> None:
        """Read the file again, holding every id, and raise the FormatError of its first
        fault; return if it has none (the fault was the database's alone)."""
        # Reporting the reading again keeps a job's heartbeat while a large file is re-read.
        again = _Checker(self.project, self.language, self.name, exact=True)
        read = sum(len(batch) for batch in self.read_batches(again, on_position=self.watcher.read))
        if read == 0:
            raise FormatError(self.name, 0, "the file holds no documents")

    def finish(self, words: WordsCollector) -> None:
        # In the same transaction: no one sees a new document without its annotator, nor
        # without its words in the vocabulary.
        summary, job = self.summary, self.job
        documents_assign_arrivals(project=self.project, languages=summary.languages)
        corpus_words_add(self.project.pk, words.words())
        audit_record(
            action=AuditAction.IMPORT,
            actor=self.actor,
            project=self.project,
            target=f"import_job:{job.pk}" if job else "",
            detail={
                "format": self.fmt,
                "documents": summary.documents,
                "spans": summary.spans,
                "languages": summary.languages,
            },
        )
        if job is not None and not job_finish(
            ImportJob,
            job.pk,
            claimed_at=job.started_at,
            format=self.fmt,  # the format found, where the job asked to detect it
            documents_created=summary.documents,
            spans_created=summary.spans,
        ):
            raise ImportTakenOver(f"import job {job.pk} is no longer this worker's")

    def write_spooled(self) -> None:
        """Read and check the whole file first, then write it (SQLite: one writer at once)."""
        sqlite = _SqliteWriter(self.project, self.job)
        # The spool holds originals: an unnamed temporary file, gone when closed or when the
        # process dies; beside the upload for a job (its folder is deleted after).
        with tempfile.TemporaryFile(dir=self.path.parent if self.job else None) as spool:
            for batch in self.checked_batches():
                pickle.dump(sqlite.prepare(batch), spool, protocol=pickle.HIGHEST_PROTOCOL)
            spool.seek(0)
            self.watcher.writing(0, self.summary.documents)
            try:
                with transaction.atomic():
                    written = 0
                    for prepared in _unspooled(spool):
                        sqlite.write_prepared(prepared)
                        written += len(prepared.documents)
                        self.watcher.writing(written, self.summary.documents)
                    self.finish(sqlite.words)
            except IntegrityError:
                # Another import committed some of these ids since they were checked; the
                # check again, outside the write lock, names the line.
                spool.seek(0)
                for prepared in _unspooled(spool):
                    self.checker.refuse_existing_ids(prepared.keys)
                raise

    def write_streamed(self) -> None:
        """Write each batch as it is read and checked, in one transaction (PostgreSQL)."""
        try:
            with transaction.atomic():
                writer = _writer(self.project, self.job)
                for batch in self.checked_batches():
                    writer.write(batch)
                self.finish(writer.words)
        except (FormatError, IntegrityError):
            if self.exact:
                raise
            # Rolled back. The streaming pass left repeated ids to the table's unique
            # constraint, which met one only when its batch was written: a fault found in
            # the file may come after one in its batch, and the constraint names no line.
            # The exact pass names the file's first fault, as every path does.
            self.first_fault()
            raise


# --- Uploads through the page and the API, imported by a worker -----------------------------


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
    if fmt != "auto" and fmt not in FORMATS:
        raise DomainError(f"unknown format {fmt!r}; formats are auto, {', '.join(FORMATS)}")
    if language and language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's ({', '.join(project.languages)})"
        )
    original_name = upload_name(upload.name)
    size = upload.size or 0
    if size > settings.CLOAK_IMPORT_MAX_BYTES:
        raise DomainError(
            f"{original_name}: file is {size} bytes, over the limit of "
            f"{settings.CLOAK_IMPORT_MAX_BYTES}"
        )
    if size == 0:
        raise DomainError(f"{original_name}: the file is empty")
    folder = uploads_dir() / uuid.uuid4().hex
    folder.mkdir(parents=True, exist_ok=True)
    # Stored under a name of the server's choosing: the client's may be longer than a file
    # name may be (255 bytes: 128 Arabic letters), or hold what no file name can.
    stored = folder / f"upload{_stored_suffix(original_name)}"
    try:
        with stored.open("wb") as out:
            for chunk in upload.chunks():
                out.write(chunk)
        job = ImportJob.objects.create(
            project=project,
            created_by=acting_user(actor),
            filename=original_name,
            stored_path=str(stored),
            format=fmt,
            language=language or "",
            size_bytes=size,
        )
        # A task that cannot be sent fails the job at once, and its upload (originals) goes.
        job_dispatch(job)
    except BaseException:
        # Rolled back: no job names the folder, and the originals in it go now.
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return job


# A job's `filename` column, and a file name on most file systems.
UPLOAD_NAME_MAX = 255
# The extensions that tell a format (pseudonymizer.formats.detect) are all short.
_SUFFIX_MAX = 16


def upload_name(name: str | None) -> str:
    """The name an upload is known by (its job's `filename`, its errors): the client's, without
    a folder, NUL characters or invalid Unicode, cut to UPLOAD_NAME_MAX characters with its
    extension kept."""
    cleaned = Path((name or "").replace("\x00", "")).name
    cleaned = cleaned.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate: "?"
    cleaned = cleaned.strip() or "upload"
    if len(cleaned) <= UPLOAD_NAME_MAX:
        return cleaned
    suffix = _stored_suffix(cleaned)
    return cleaned[: UPLOAD_NAME_MAX - len(suffix)] + suffix


def _stored_suffix(name: str) -> str:
    """The extension of `name` that detecting its format reads (".jsonl"), lower case, if it
    is a short one of ASCII letters and digits; else none."""
    suffix = Path(name).suffix.lower()
    ok = 1 < len(suffix) <= _SUFFIX_MAX and suffix[1:].isascii() and suffix[1:].isalnum()
    return suffix if ok else ""


UPLOAD_GONE = (
    "The uploaded file is no longer on the server (it was deleted before a worker could "
    "import it); nothing was written. Upload it again."
)
INTERNAL_ERROR = "The import failed on an internal error; nothing was written."
# A worker reports an import's progress at most this often (and at each change of stage).
REPORT_EVERY_S = 0.5


class _JobReporter(ImportObserver):
    """Reports a job's progress and heartbeat to the cache, where its page reads them."""

    def __init__(self, job: ImportJob) -> None:
        self.job = job
        self.bytes_read = 0
        self.documents = 0
        self.spans = 0
        self.last = 0.0

    def read(self, position: int) -> None:
        self.bytes_read = position
        self._report(self._reading)

    def checked(self, documents: int, spans: int) -> None:
        self.documents, self.spans = documents, spans
        self._report(self._reading)

    def writing(self, written: int, total: int) -> None:
        detail = {"documents": self.documents, "spans": self.spans, "bytes_read": self.bytes_read}
        self._report(
            lambda: job_progress_set(self.job, written, total, unit=WRITING, detail=detail),
            now=written == 0,
        )

    def _reading(self) -> None:
        job_progress_set(
            self.job,
            self.bytes_read,
            self.job.size_bytes or None,
            unit=READING,
            detail={"documents": self.documents, "spans": self.spans},
        )

    def _report(self, send: Callable[[], None], *, now: bool = False) -> None:
        clock = time.monotonic()
        if now or clock - self.last >= REPORT_EVERY_S:
            self.last = clock
            send()


def import_job_run(*, job_id: int) -> None:
    """Claim a job and import it; safe to call twice (the second call does nothing).

    A job left RUNNING by a worker that stopped reporting for CLOAK_JOB_STALE_AFTER seconds is
    claimed again: that is how a task redelivered after its worker died takes it over.
    """
    stale_after = timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if not job_claim(ImportJob, job_id, stale_after=stale_after):
        return
    job = ImportJob.objects.select_related("project", "created_by").get(id=job_id)
    stored = Path(job.stored_path)
    if not stored.is_file():
        if job_fail(ImportJob, job.pk, UPLOAD_GONE, claimed_at=job.started_at):
            upload_delete(job.stored_path)
        logger.warning("import job %s failed: its upload is gone", job.pk)
        return
    ours = True
    try:
        documents_import(
            project=job.project,
            path=stored,
            fmt=job.format,
            language=job.language or None,
            filename=job.filename,
            actor=job.created_by,
            job=job,
            observer=_JobReporter(job),
        )
    except ImportTakenOver:
        # Another worker has it now (or the reaper failed it): its upload is not ours to delete.
        ours = False
        logger.warning("import job %s was taken over; this worker's import rolled back", job.pk)
    except DomainError as error:
        # The message may quote the file (it names a mismatching span's text): it goes to the
        # job, which only the project's admins read, and never to the log.
        ours = job_fail(ImportJob, job.pk, str(error), claimed_at=job.started_at)
        logger.info("import job %s refused", job.pk)
    except Exception as error:
        ours = job_crashed(job, error, reason=INTERNAL_ERROR, claimed_at=job.started_at)
    finally:
        # The upload holds the originals: keep no copy once it is in the database (or refused).
        if ours:
            upload_delete(job.stored_path)


# --- Its kind of job ----------------------------------------------------------------------------

IMPORT_REAPED = (
    "The worker stopped while importing this file; nothing was written. Upload it again."
)


def _import_reap(job: ImportJob) -> Counts:
    if not job_fail(ImportJob, job.pk, IMPORT_REAPED, claimed_at=job.started_at):
        return {}
    logger.warning("import job %s reaped: its worker stopped", job.pk)
    return {"imports_failed": 1, "uploads_deleted": upload_delete(job.stored_path)}


def _import_discard(job: ImportJob) -> Counts:
    """An import that never reached a worker: its upload holds originals, and goes."""
    return {"uploads_deleted": upload_delete(job.stored_path)}


def _uploads_sweep(cutoff: datetime) -> Counts:
    """Delete upload folders that no queued or running import needs any more."""
    root = uploads_dir()
    deleted = 0
    for folder in root.iterdir() if root.is_dir() else ():
        if not folder.is_dir():
            continue
        prefix = f"{folder}{os.sep}"
        jobs = ImportJob.objects.filter(stored_path__startswith=prefix)
        if jobs.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).exists():
            continue
        modified = datetime.fromtimestamp(folder.stat().st_mtime, tz=UTC)
        # A folder with no job yet may belong to an upload whose job is being created.
        if jobs.exists() or modified < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            deleted += 1
    return {"uploads_deleted": deleted}


IMPORT_JOBS = job_kind_register(
    JobKind(
        model=ImportJob,
        task="import_run",
        counters=("imports_failed",),
        start_again="Nothing was imported, and the uploaded file is deleted: upload it again.",
        reap=_import_reap,
        discard=_import_discard,
        sweep=_uploads_sweep,
    )
)
