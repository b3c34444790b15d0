from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from annotator.errors import DomainError, ImportRefused
from annotator.models import (
    AuditEvent,
    Document,
    ImportJob,
    JobStatus,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.services.imports import ImportObserver, ImportTakenOver, documents_import
from annotator.services.jobs import job_claim
from tests.data import SAMPLE_CORPUS
from tests.factories import DocumentFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def jsonl(path: Path, *documents: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in documents))
    return path


def counts() -> tuple[int, int, int]:
    return Document.objects.count(), Span.objects.count(), AuditEvent.objects.count()


@pytest.fixture
def project() -> Any:
    return ProjectFactory(slug="imports", languages=["en", "fr", "ar"])


def refused(project: Any, path: Path, **kwargs: Any) -> str:
    before = counts()
    with pytest.raises(ImportRefused) as caught:
        documents_import(project=project, path=path, **kwargs)
    assert counts() == before, "a refused import must leave the database as it was"
    return str(caught.value)


def test_it_imports_the_sample_corpus_with_every_span_on_its_text(project: Any) -> None:
    summary = documents_import(project=project, path=SAMPLE_CORPUS)
    assert summary.documents == 24
    assert summary.languages == {"en": 8, "fr": 8, "ar": 8}
    gold = {}
    for line in SAMPLE_CORPUS.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        gold[record["id"]] = record
    for document in Document.objects.filter(project=project).prefetch_related("spans"):
        record = gold[document.external_id]
        assert document.text == record["text"]
        assert document.language == record["lang"]
        got = sorted((s.start, s.end, s.label, s.decision) for s in document.spans.all())
        want = sorted((s["start"], s["end"], s["label"], s["decision"]) for s in record["spans"])
        assert got == want
        for span in document.spans.all():
            assert span.source == SpanSource.IMPORT
            assert span.status == SpanStatus.PROPOSED
    assert AuditEvent.objects.filter(project=project, action="import").count() == 1


def test_it_keeps_text_byte_for_byte(project: Any, tmp_path: Path) -> None:
    text = "👋🏽 Salut\r\nJose\u0301 Garci\u0301a à Lyon\r\n— مرحبا @ali_77 في الرباط"
    start = text.index("Jose\u0301")
    path = jsonl(
        tmp_path / "exact.jsonl",
        {"id": "x", "lang": "fr", "text": text,
         "spans": [{"start": start, "end": start + 13, "label": "PER"}]},
    )  # fmt: skip
    documents_import(project=project, path=path)
    document = Document.objects.get(project=project, external_id="x")
    assert document.text == text
    span = document.spans.get()
    assert document.text[span.start : span.end] == "Jose\u0301 Garci\u0301a"


def test_it_gives_the_default_language_to_documents_without_one(
    project: Any, tmp_path: Path
) -> None:
    path = jsonl(tmp_path / "nolang.jsonl", {"id": "a", "text": "Bonjour"})
    documents_import(project=project, path=path, language="fr")
    assert Document.objects.get(external_id="a").language == "fr"


def test_it_refuses_a_document_without_a_language_in_a_multilingual_project(
    project: Any, tmp_path: Path
) -> None:
    path = jsonl(tmp_path / "nolang.jsonl", {"id": "a", "text": "Bonjour"})
    message = refused(project, path)
    assert "nolang.jsonl:1" in message
    assert "language" in message


def test_it_refuses_a_language_outside_the_project(project: Any, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "de.jsonl", {"id": "a", "lang": "de", "text": "Hallo"})
    assert "'de' is not one of the project's" in refused(project, path)


def test_it_refuses_a_file_with_invalid_utf8(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    good = json.dumps({"id": "a", "lang": "en", "text": "fine"}).encode()
    path.write_bytes(good + b"\n" + b'{"id": "b", "lang": "en", "text": "caf\xe9"}\n')
    message = refused(project, path)
    assert "broken.jsonl:2" in message
    assert "UTF-8" in message


def test_it_refuses_a_span_outside_its_text(project: Any, tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "outside.jsonl",
        {"id": "a", "lang": "en", "text": "short",
         "spans": [{"start": 2, "end": 40, "label": "PER"}]},
    )  # fmt: skip
    message = refused(project, path)
    assert "outside.jsonl:1" in message
    assert "outside" in message


def test_it_refuses_a_span_whose_stated_text_does_not_match(project: Any, tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "mismatch.jsonl",
        {"id": "a", "lang": "en", "text": "Hello Moshe Chaya",
         "spans": [{"start": 6, "end": 11, "label": "PER", "text": "Chaya"}]},
    )  # fmt: skip
    message = refused(project, path)
    assert "mismatch.jsonl:1" in message
    assert "does not match" in message


def test_it_refuses_an_unknown_label(project: Any, tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "labels.jsonl",
        {"id": "a", "lang": "en", "text": "fine text"},
        {"id": "b", "lang": "en", "text": "Hello Moshe",
         "spans": [{"start": 6, "end": 11, "label": "PERSONA"}]},
    )  # fmt: skip
    message = refused(project, path)
    assert "labels.jsonl:2" in message
    assert "unknown label 'PERSONA'" in message


def test_it_refuses_duplicate_ids_in_one_file(project: Any, tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "dup.jsonl",
        {"id": "a", "lang": "en", "text": "one"},
        {"id": "a", "lang": "en", "text": "two"},
    )
    message = refused(project, path)
    assert "dup.jsonl:2" in message
    assert "'a'" in message


def test_it_refuses_an_id_the_project_already_has(project: Any, tmp_path: Path) -> None:
    DocumentFactory(project=project, external_id="taken")
    path = jsonl(
        tmp_path / "again.jsonl",
        {"id": "new", "lang": "en", "text": "one"},
        {"id": "taken", "lang": "en", "text": "two"},
    )
    message = refused(project, path)
    assert "again.jsonl:2" in message
    assert "already exists" in message


def test_the_same_id_in_another_project_is_fine(project: Any, tmp_path: Path) -> None:
    DocumentFactory(project=ProjectFactory(), external_id="shared-id")
    path = jsonl(tmp_path / "ok.jsonl", {"id": "shared-id", "lang": "en", "text": "fine"})
    assert documents_import(project=project, path=path).documents == 1


def test_it_refuses_an_empty_document(project: Any, tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "empty.jsonl",
        {"id": "a", "lang": "en", "text": "fine"},
        {"id": "b", "lang": "en", "text": "  \n"},
    )
    message = refused(project, path)
    assert "empty.jsonl:2" in message
    assert "empty" in message


def test_it_refuses_a_file_with_no_documents(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_text("\n\n")
    assert "no documents" in refused(project, path)


def test_it_refuses_a_zip_bomb(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.txt", "hello")
        archive.writestr("zeros.txt", b"0" * (20 * 1024 * 1024))
    message = refused(project, path, language="en")
    assert "bomb.zip" in message
    assert "bomb" in message


def test_it_refuses_a_file_over_the_size_limit(project: Any, tmp_path: Path, settings: Any) -> None:
    settings.CLOAK_IMPORT_MAX_BYTES = 100
    path = jsonl(tmp_path / "big.jsonl", {"id": "a", "lang": "en", "text": "x" * 200})
    message = refused(project, path)
    assert "big.jsonl" in message
    assert "limit" in message


def test_it_refuses_a_nul_character(project: Any, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "nul.jsonl", {"id": "a", "lang": "en", "text": "a\x00b"})
    assert "NUL" in refused(project, path)


def test_a_refusal_late_in_a_large_file_rolls_back_every_earlier_batch(
    project: Any, tmp_path: Path, settings: Any
) -> None:
    settings.CLOAK_IMPORT_BATCH_SIZE = 10
    documents = [
        {"id": f"d{n}", "lang": "en", "text": f"Doc {n} by Moshe",
         "spans": [{"start": len(f"Doc {n} by "), "end": len(f"Doc {n} by Moshe"), "label": "PER"}]}
        for n in range(95)
    ]  # fmt: skip
    documents.append({"id": "d3", "lang": "en", "text": "late duplicate"})
    message = refused(project, jsonl(tmp_path / "late.jsonl", *documents))
    assert "late.jsonl:96" in message


def test_an_unknown_format_is_a_clear_error(project: Any, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "a.jsonl", {"id": "a", "lang": "en", "text": "x"})
    with pytest.raises(DomainError, match="unknown format 'docx'"):
        documents_import(project=project, path=path, fmt="docx")


def test_progress_is_reported_per_batch(project: Any, tmp_path: Path, settings: Any) -> None:
    settings.CLOAK_IMPORT_BATCH_SIZE = 4
    path = jsonl(
        tmp_path / "p.jsonl", *({"id": str(n), "lang": "en", "text": "t"} for n in range(10))
    )
    seen: list[tuple[int, int]] = []
    documents_import(project=project, path=path, progress=lambda d, s: seen.append((d, s)))
    assert [documents for documents, _ in seen] == [4, 8, 10]


def test_the_postgres_path_and_the_orm_path_store_the_same_rows(
    project: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """COPY is used on PostgreSQL; bulk_create elsewhere. Both must write the same thing,
    column for column, whatever in the text COPY's own format would read as a field's or a
    row's end (a tab, a backslash, a line end) or the row template as a field (braces)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    from annotator.services import imports

    text = "مرحبا @ali_77\r\n👍 Moshe\t{id} \\N back\\slash\n"
    records = [
        {
            "id": "copy", "lang": "ar", "text": text, "meta": {"k": "v\\t{x}\n"},
            "spans": [
                {"start": 6, "end": 13, "label": "USERNAME", "score": 0.5, "decision": "keep"},
                {"start": 17, "end": 22, "label": "PER"},
            ],
        },
        {"id": "tab\there {0}", "lang": "ar", "text": "\\"},
    ]  # fmt: skip
    documents_import(project=project, path=jsonl(tmp_path / "a.jsonl", *records))
    other = ProjectFactory(languages=["ar"])
    monkeypatch.setattr(imports, "_writer", lambda p, j: imports._OrmWriter(p, j))
    documents_import(project=other, path=jsonl(tmp_path / "b.jsonl", *records))

    def snapshot(p: Any) -> list[tuple[Any, ...]]:
        own = ("id", "project", "project_id", "created_at", "updated_at")
        rows = []
        for document in Document.objects.filter(project=p).order_by("external_id"):
            fields = [f.attname for f in Document._meta.concrete_fields if f.name not in own]
            spans = [
                tuple(getattr(span, f.attname) for f in Span._meta.concrete_fields
                      if f.name not in (*own, "document"))
                for span in document.spans.order_by("start")
            ]  # fmt: skip
            rows.append((tuple(getattr(document, f) for f in fields), spans))
        return rows

    assert snapshot(project) == snapshot(other)
    stored = Document.objects.get(project=project, external_id="copy")
    assert stored.text == text
    assert stored.metadata == {"meta": {"k": "v\\t{x}\n"}}
    assert Document.objects.filter(project=project, external_id="tab\there {0}").exists()


def test_a_repeated_id_before_another_fault_in_its_batch_is_the_fault_named(
    project: Any, tmp_path: Path
) -> None:
    """The id's repeat comes first in the file, though the database meets it only when its
    batch is written, after the reader has met the bad line."""
    path = tmp_path / "two.jsonl"
    path.write_text(
        '{"id": "a", "lang": "en", "text": "one"}\n'
        '{"id": "a", "lang": "en", "text": "two"}\n'
        "{not json\n"
    )
    message = refused(project, path)
    assert "two.jsonl:2" in message
    assert "duplicate" in message


def test_inline_and_zip_sources_go_through_the_same_checks(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "letters.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("one.txt", "Dear Dr Smith,\nall fine.")
        archive.writestr("two.txt", "Second letter.")
    path.write_bytes(buffer.getvalue())
    summary = documents_import(project=project, path=path, language="en")
    assert summary.documents == 2
    assert set(Document.objects.values_list("external_id", flat=True)) == {"one", "two"}


class Heard(ImportObserver):
    def __init__(self) -> None:
        self.positions: list[int] = []
        self.checked_counts: list[int] = []

    def read(self, position: int) -> None:
        self.positions.append(position)

    def checked(self, documents: int, spans: int) -> None:
        self.checked_counts.append(documents)


def test_the_observer_hears_the_bytes_read_grow_to_the_files_size(
    project: Any, tmp_path: Path, settings: Any
) -> None:
    settings.CLOAK_IMPORT_BATCH_SIZE = 100
    path = jsonl(
        tmp_path / "p.jsonl",
        *({"id": str(n), "lang": "en", "text": "t" * 500} for n in range(300)),
    )
    heard = Heard()
    documents_import(project=project, path=path, observer=heard)
    size = path.stat().st_size
    assert len(heard.positions) == 300
    assert heard.positions == sorted(heard.positions)
    assert 0 < heard.positions[0] < size // 2 and heard.positions[-1] == size
    assert heard.checked_counts == [100, 200, 300]


def test_the_observer_hears_how_far_into_a_zip_the_reading_is(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "letters.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for n in range(5):
            archive.writestr(f"letter-{n}.txt", f"Letter {n}. " * 2000)
    heard = Heard()
    documents_import(project=project, path=path, language="en", observer=heard)
    assert len(heard.positions) == 5
    assert heard.positions == sorted(heard.positions)
    assert heard.positions[-1] <= path.stat().st_size


def test_a_job_taken_over_meanwhile_rolls_its_import_back(project: Any, tmp_path: Path) -> None:
    """The job is finished in the transaction that writes its documents, or nothing is."""
    path = jsonl(tmp_path / "a.jsonl", {"id": "a", "lang": "en", "text": "Moshe Chaya"})
    job = ImportJob.objects.create(
        project=project, filename="a.jsonl", status=JobStatus.RUNNING,
        started_at=timezone.now() - timedelta(hours=1),
    )  # fmt: skip
    # Another worker re-claimed it: its started_at is no longer the one this worker holds.
    ImportJob.objects.filter(pk=job.pk).update(started_at=timezone.now())
    before = counts()

    with pytest.raises(ImportTakenOver):
        documents_import(project=project, path=path, job=job)

    assert counts() == before
    job.refresh_from_db()
    assert (job.status, job.documents_created) == (JobStatus.RUNNING, 0)


def test_a_claimed_job_is_done_with_its_counts_when_its_documents_are_written(
    project: Any, tmp_path: Path
) -> None:
    path = jsonl(
        tmp_path / "a.jsonl",
        {"id": "a", "lang": "en", "text": "Moshe Chaya",
         "spans": [{"start": 0, "end": 11, "label": "PER"}]},
    )  # fmt: skip
    job = ImportJob.objects.create(project=project, filename="a.jsonl")
    assert job_claim(ImportJob, job.pk)
    job.refresh_from_db()

    documents_import(project=project, path=path, job=job)

    job.refresh_from_db()
    assert (job.status, job.documents_created, job.spans_created) == (JobStatus.DONE, 1, 1)
    assert Document.objects.get().import_job == job
