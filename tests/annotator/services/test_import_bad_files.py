"""Bad files that once failed as "an internal error" (a 500 on the page, a crashed job): each is
now refused as every bad file is, with an ImportRefused naming the file, the line and the
reason, and nothing written. PostgreSQL's text holds no NUL, and no UTF-8 text a lone
surrogate; Python reads no integer of more than 4,300 digits, nor JSON nested past its stack."""

from __future__ import annotations

import errno
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.errors import ImportRefused
from annotator.models import AuditEvent, Document, ImportJob, JobStatus, Span
from annotator.services.imports import documents_import, import_job_create, import_job_run
from annotator.services.jobs import uploads_dir
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

GOOD = json.dumps({"id": "good-1", "lang": "en", "text": "Moshe Chaya wrote this."})


@pytest.fixture
def project() -> Any:
    return ProjectFactory(slug="bad-files", languages=["en", "fr"])


def counts() -> tuple[int, int, int]:
    return Document.objects.count(), Span.objects.count(), AuditEvent.objects.count()


def refused(project: Any, path: Path, **kwargs: Any) -> str:
    before = counts()
    with pytest.raises(ImportRefused) as caught:
        documents_import(project=project, path=path, **kwargs)
    assert counts() == before, "a refused import must leave the database as it was"
    return str(caught.value)


def lines(path: Path, *rows: str) -> Path:
    path.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    return path


DEEP = "[" * 100_000 + "]" * 100_000
BAD_JSONL_RECORDS = {
    "deeply nested": ('{"text": "Moshe", "lang": "en", "meta": ' + DEEP + "}", "deep"),
    "deep but parsable metadata": (
        '{"text": "Moshe", "lang": "en", "meta": ' + "[" * 200 + "]" * 200 + "}",
        "deep",
    ),
    "a 5,000-digit number": ('{"text": "Moshe", "lang": "en", "n": ' + "7" * 5000 + "}", "digits"),
    "a 5,000-digit id": ('{"id": ' + "7" * 5000 + ', "text": "Moshe", "lang": "en"}', "digits"),
    "NaN": ('{"text": "Moshe", "lang": "en", "score": NaN}', "NaN"),
    "an infinite number": ('{"text": "Moshe", "lang": "en", "x": 1e999}', "finite"),
    "a NUL in the id": ('{"id": "a\\u0000b", "text": "Moshe", "lang": "en"}', "NUL"),
    "a NUL in metadata": ('{"text": "Moshe", "lang": "en", "note": {"k": ["\\u0000"]}}', "NUL"),
    "a NUL in a metadata key": ('{"text": "Moshe", "lang": "en", "a\\u0000": 1}', "NUL"),
    "a lone surrogate in the id": ('{"id": "x\\ud800", "text": "Moshe", "lang": "en"}', "surro"),
    "a lone surrogate in metadata": ('{"text": "Moshe", "lang": "en", "m": "\\udfff"}', "surro"),
}


@pytest.mark.parametrize("name", list(BAD_JSONL_RECORDS))
def test_a_bad_record_is_refused_with_its_file_line_and_reason(
    project: Any, tmp_path: Path, name: str
) -> None:
    record, reason = BAD_JSONL_RECORDS[name]
    path = lines(tmp_path / "posts.jsonl", GOOD, record)
    message = refused(project, path, filename="posts.jsonl")
    assert message.startswith("posts.jsonl:2: "), message
    assert reason in message
    assert "internal" not in message


@pytest.mark.parametrize("name", ["deeply nested", "a 5,000-digit number", "NaN"])
def test_a_bad_first_record_is_refused_when_the_format_is_detected(
    project: Any, tmp_path: Path, name: str
) -> None:
    record, reason = BAD_JSONL_RECORDS[name]
    for suffix in (".jsonl", ".json", ".dat"):
        path = lines(tmp_path / f"posts{suffix}", record)
        message = refused(project, path)
        assert message.startswith(f"posts{suffix}:1: "), message
        assert reason in message


def test_a_deep_label_studio_export_is_refused(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text('[{"data": {"text": "Moshe"}, "meta": ' + DEEP + "}]")
    assert "deep" in refused(project, path)
    path.write_text('[{"data": {"text": "Moshe", "n": ' + "1" * 5000 + "}}]")
    assert "digits" in refused(project, path)
    path.write_text('[{"data": {"text": "Moshe", "m": "\\udfff"}}]')
    assert "surrogate" in refused(project, path)


def test_a_bad_csv_is_refused(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "posts.csv"
    path.write_text("id,text,lang\nx\x00y,Moshe,en\n")
    message = refused(project, path)
    assert message.startswith("posts.csv:2: ") and "NUL" in message
    path.write_text("text,lang,note\nMoshe,en,a\x00b\n")
    assert "NUL" in refused(project, path)


def test_a_brat_offset_of_5000_digits_is_refused(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "brat.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.txt", "Moshe Chaya")
        archive.writestr("a.ann", f"T1\tPER 0 {'9' * 5000}\tMoshe\n")
    message = refused(project, path, language="en")
    assert message.startswith("brat.zip/a.ann:1: ") and "offset" in message


def test_an_uploaded_bad_file_fails_its_job_with_the_reason_not_an_internal_error(
    project: Any, tmp_path: Path, settings: Any
) -> None:
    folder = Path(settings.MEDIA_ROOT) / "imports" / "x"
    folder.mkdir(parents=True)
    bad, _ = BAD_JSONL_RECORDS["a lone surrogate in the id"]
    stored = lines(folder / "upload.jsonl", GOOD, bad)
    job = ImportJob.objects.create(
        project=project, filename="posts.jsonl", stored_path=str(stored), format="auto",
        size_bytes=stored.stat().st_size,
    )  # fmt: skip
    import_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error.startswith("posts.jsonl:2: ") and "surrogate" in job.error
    assert not Document.objects.exists()
    assert not folder.exists()


# --- The upload itself ------------------------------------------------------------------------


class _DiskFull(SimpleUploadedFile):
    def chunks(self, chunk_size: int | None = None) -> Iterator[bytes]:
        yield self.read(8)
        raise OSError(errno.ENOSPC, "No space left on device")


def test_an_upload_that_cannot_be_stored_leaves_no_folder_and_no_job(project: Any) -> None:
    upload = _DiskFull("posts.jsonl", (GOOD + "\n").encode())
    with pytest.raises(OSError):
        import_job_create(project=project, upload=upload, language="en")
    assert not ImportJob.objects.exists()
    assert not uploads_dir().exists() or not any(uploads_dir().iterdir())


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("م" * 200 + ".jsonl", "م" * 200 + ".jsonl"),
        ("x" * 300 + ".JSONL", "x" * 249 + ".JSONL"),
        ("a\x00b.jsonl", "ab.jsonl"),
        ("a\ud800b.jsonl", "a?b.jsonl"),
        ("../../etc/posts.jsonl", "posts.jsonl"),
    ],
)
def test_an_upload_is_stored_under_a_name_of_the_servers_choosing(
    project: Any, name: str, kept: str
) -> None:
    upload = SimpleUploadedFile("posts.jsonl", (GOOD + "\n").encode())
    upload.name = name  # as a client may send it
    job = import_job_create(project=project, upload=upload, language="en")
    assert job.filename == kept
    stored = Path(job.stored_path)
    assert stored.parent.parent == uploads_dir()
    assert stored.name in ("upload.jsonl", "upload")
