"""Uploading a file through the import page, and watching its job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from annotator import tasks
from annotator.models import Document, ImportJob, JobStatus, Span
from annotator.selectors.imports import import_job_progress
from annotator.services import imports
from annotator.services.jobs import job_claim, job_progress_set
from tests.conftest import Team, client_for

pytestmark = pytest.mark.django_db

GOOD = "\n".join(
    json.dumps(record, ensure_ascii=False)
    for record in [
        {
            "id": "fr-1",
            "lang": "fr",
            "text": "Merci à Moshe Chaya 🙌",
            "spans": [{"start": 8, "end": 19, "label": "PER", "text": "Moshe Chaya"}],
        },
        {"id": "ar-1", "lang": "ar", "text": "مرحبا\r\nبيروت", "spans": []},
    ]
).encode()


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def imports_url() -> str:
    return reverse("import_list", args=["radical"])


@pytest.fixture
def eager(settings: Any) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True


def stored_uploads(settings: Any) -> list[Path]:
    folder = Path(settings.MEDIA_ROOT) / "imports"
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []


def test_the_page_shows_the_form_with_formats_and_languages(team: Team) -> None:
    page = client_for(team.admin).get(imports_url()).content.decode()
    assert 'enctype="multipart/form-data"' in page
    assert '<option value="auto" selected>' in page
    assert '<option value="jsonl">' in page and '<option value="conll">' in page
    assert '<option value="" selected>From the file</option>' in page
    assert '<option value="ar">Arabic (ar)</option>' in page
    assert "No imports yet." in page


def test_only_those_who_may_import_see_the_page(team: Team) -> None:
    assert client_for(team.lead).get(imports_url()).status_code == 403
    assert client_for(team.annotator_fr).get(imports_url()).status_code == 403
    assert client_for(team.outsider).get(imports_url()).status_code == 404
    assert client_for(None).get(imports_url()).status_code == 302


def test_a_good_upload_creates_a_job_that_imports_the_documents(
    team: Team, eager: None, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = client_for(team.admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            imports_url(), {"file": upload("batch.jsonl", GOOD), "format": "jsonl", "language": ""}
        )
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("import_detail", args=["radical", job.pk])
    job.refresh_from_db()
    assert job.status == JobStatus.DONE
    assert (job.filename, job.format, job.created_by) == ("batch.jsonl", "jsonl", team.admin)
    assert (job.documents_created, job.spans_created) == (2, 1)
    assert Document.objects.get(external_id="ar-1").text == "مرحبا\r\nبيروت"
    assert Span.objects.get().document.external_id == "fr-1"
    assert stored_uploads(settings) == []  # the upload holds originals: not kept once imported

    page = client.get(response.url).content.decode()
    assert "Imported <strong>2</strong> documents with <strong>1</strong> span" in page
    assert 'hx-trigger="every 1s"' not in page
    assert reverse("document_list", args=["radical"]) in page


def test_an_empty_file_is_refused_with_a_clear_400_and_nothing_written(
    team: Team, settings: Any
) -> None:
    response = client_for(team.admin).post(
        imports_url(), {"file": upload("empty.jsonl", b""), "format": "jsonl"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "The file was not imported." in page
    assert "empty.jsonl: the file is empty" in page
    assert ImportJob.objects.count() == 0
    assert Document.objects.count() == 0
    assert stored_uploads(settings) == []


def test_a_file_over_the_limit_is_refused_before_it_is_stored(team: Team, settings: Any) -> None:
    settings.CLOAK_IMPORT_MAX_BYTES = 10
    response = client_for(team.admin).post(
        imports_url(), {"file": upload("big.jsonl", GOOD), "format": "auto"}
    )
    assert response.status_code == 400
    assert "over the limit of 10" in response.content.decode()
    assert ImportJob.objects.count() == 0
    assert stored_uploads(settings) == []


def test_a_form_without_a_file_or_with_an_unknown_format_is_a_400(team: Team) -> None:
    client = client_for(team.admin)
    response = client.post(imports_url(), {"format": "jsonl"})
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    response = client.post(imports_url(), {"file": upload("a.txt", b"x"), "format": "docx"})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert ImportJob.objects.count() == 0


def test_a_file_with_a_bad_line_fails_its_job_with_the_line_and_writes_nothing(
    team: Team, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    # Line 3: a span that reaches past the end of its text.
    record = {
        "id": "x",
        "lang": "fr",
        "text": "Salut",
        "spans": [{"start": 0, "end": 99, "label": "PER"}],
    }
    bad = GOOD + b"\n" + json.dumps(record).encode()
    client = client_for(team.admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(imports_url(), {"file": upload("bad.jsonl", bad), "format": "jsonl"})
    job = ImportJob.objects.get()
    assert job.status == JobStatus.FAILED
    assert "bad.jsonl:3" in job.error
    assert Document.objects.count() == 0
    page = client.get(response.url).content.decode()
    assert "nothing of it was written" in page
    assert "bad.jsonl:3" in page


def test_the_list_shows_the_detected_format_and_why_a_job_failed(
    team: Team, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    client = client_for(team.admin)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(imports_url(), {"file": upload("batch.jsonl", GOOD), "format": "auto"})
        client.post(imports_url(), {"file": upload("notes.md", b"# a title"), "format": "auto"})
    formats = dict(ImportJob.objects.values_list("filename", "format"))
    assert formats == {"batch.jsonl": "jsonl", "notes.md": "auto"}
    page = client.get(imports_url()).content.decode()
    assert "<td>jsonl</td>" in page and "not found" in page
    assert "cannot tell the format of notes.md" in page and "--format" not in page


def test_with_htmx_a_good_upload_answers_the_job_row(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(team.admin).post(
            imports_url(),
            {"file": upload("batch.jsonl", GOOD), "format": "auto"},
            headers={"HX-Request": "true"},
        )
    job = ImportJob.objects.get()
    page = response.content.decode()
    assert response.status_code == 201
    assert page.lstrip().startswith(f'<tr id="import-job-{job.pk}"')
    assert 'hx-trigger="every 2s"' in page  # queued: the row follows its job
    assert json.loads(response["HX-Trigger"]) == {"cloak:import-created": {}}


def test_with_htmx_a_refused_upload_answers_the_form_with_its_error(team: Team) -> None:
    response = client_for(team.admin).post(
        imports_url(),
        {"file": upload("empty.jsonl", b""), "format": "jsonl"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#import-form"
    assert response["HX-Reswap"] == "outerHTML"
    page = response.content.decode()
    assert page.lstrip().startswith('<form id="import-form"')
    assert "the file is empty" in page


def test_a_running_job_polls_and_a_finished_one_stops(team: Team) -> None:
    job = ImportJob.objects.create(
        project=team.project, filename="stream.jsonl", status=JobStatus.RUNNING
    )
    url = reverse("import_detail", args=["radical", job.pk])
    client = client_for(team.admin)
    page = client.get(url).content.decode()
    assert 'hx-trigger="every 1s"' in page
    assert "<progress" in page and '<progress class="progress" aria-label' in page

    partial = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert partial.lstrip().startswith('<section id="job-status"')
    assert 'hx-trigger="every 1s"' in partial

    ImportJob.objects.filter(pk=job.pk).update(
        status=JobStatus.DONE, documents_created=4, spans_created=9
    )
    partial = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "hx-trigger" not in partial
    assert "Imported <strong>4</strong> documents with <strong>9</strong> spans" in partial

    row = client.get(
        url, headers={"HX-Request": "true", "HX-Target": f"import-job-{job.pk}"}
    ).content.decode()
    assert row.lstrip().startswith(f'<tr id="import-job-{job.pk}"')
    assert "hx-trigger" not in row


def test_a_job_of_another_project_is_not_found(team: Team) -> None:
    job = ImportJob.objects.create(project=team.project, filename="a.jsonl")
    other = reverse("import_detail", args=["elsewhere", job.pk])
    assert client_for(team.outsider).get(other).status_code == 404


# --- Progress while a job runs, and jobs whose worker died ------------------------------------

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    # Progress lives in the cache, keyed by job id; ids come back in another test.
    cache.clear()
    yield
    cache.clear()


def stored_upload(settings: Any, content: bytes, name: str = "big.jsonl") -> Path:
    folder = Path(settings.MEDIA_ROOT) / "imports" / "0123abcd"
    folder.mkdir(parents=True)
    path = folder / name
    path.write_bytes(content)
    return path


def many(count: int, language: str = "en") -> bytes:
    return "".join(
        json.dumps({"id": f"d{n}", "lang": language, "text": f"Moshe Chaya wrote {n}",
                    "spans": [{"start": 0, "end": 11, "label": "PER"}]}) + "\n"
        for n in range(count)
    ).encode()  # fmt: skip


def test_a_running_import_shows_documents_and_bytes_read_on_its_page_and_in_the_api(
    team: Team, fresh_cache: None
) -> None:
    job = ImportJob.objects.create(
        project=team.project, filename="big.jsonl", size_bytes=4 * 1024 * 1024
    )
    job_claim(ImportJob, job.pk)
    job_progress_set(
        job, 1024 * 1024, 4 * 1024 * 1024, unit="bytes", detail={"documents": 1200, "spans": 3}
    )
    url = reverse("import_detail", args=["radical", job.pk])
    client = client_for(team.admin)

    partial = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert (
        "Reading: <strong>1200</strong> documents, 3 spans, 1.0\xa0MB of 4.0\xa0MB read." in partial
    )
    assert '<progress class="progress" value="1048576" max="4194304"' in partial
    api = client.get(reverse("api-import-detail", kwargs={"slug": "radical", "pk": job.pk}))
    progress = api.json()["progress"]
    assert (progress["stage"], progress["documents"], progress["spans"]) == ("reading", 1200, 3)
    assert (progress["done"], progress["total"], progress["unit"]) == (1048576, 4194304, "bytes")
    assert progress["updated_at"] is not None

    job_progress_set(job, 500, 1200, unit="documents", detail={"documents": 1200, "spans": 3})
    partial = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "writing them: <strong>500</strong> of 1200." in partial


@pytest.mark.django_db(transaction=True)
def test_progress_shows_while_the_imports_transaction_is_open(
    team: Team, settings: Any, monkeypatch: Any, fresh_cache: None
) -> None:
    """On PostgreSQL the import writes as it reads, in one transaction: the page must not wait."""
    settings.CLOAK_IMPORT_BATCH_SIZE = 10
    monkeypatch.setattr(imports, "REPORT_EVERY_S", 0.0)
    body = many(100)
    path = stored_upload(settings, body)
    job = ImportJob.objects.create(
        project=team.project, filename="big.jsonl", stored_path=str(path), format="jsonl",
        size_bytes=len(body),
    )  # fmt: skip
    halfway, go_on = threading.Event(), threading.Event()
    read = imports.read_documents

    def pausing(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for number, document in enumerate(read(*args, **kwargs), start=1):
            if number == 51:
                halfway.set()
                go_on.wait(30)
            yield document

    monkeypatch.setattr(imports, "read_documents", pausing)

    def worker() -> None:
        try:
            imports.import_job_run(job_id=job.pk)
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert halfway.wait(30)
        client = client_for(team.admin)
        url = reverse("import_detail", args=["radical", job.pk])
        response = client.get(url, headers={"HX-Request": "true"})
        assert response.status_code == 200
        page = response.content.decode()
        assert "Reading: <strong>50</strong> documents, 50 spans" in page
        progress = import_job_progress(ImportJob.objects.get(pk=job.pk))
        assert 0 < progress.bytes_read < len(body)
        if connection.vendor == "postgresql":
            # Written, but not committed: nobody sees half an import.
            assert Document.objects.filter(project=team.project).count() == 0
    finally:
        go_on.set()
        thread.join(30)
    job.refresh_from_db()
    assert (job.status, job.documents_created) == (JobStatus.DONE, 100)
    assert not path.parent.exists()


def test_a_redelivered_import_takes_over_a_job_whose_worker_died(
    team: Team, settings: Any, fresh_cache: None
) -> None:
    settings.CLOAK_JOB_STALE_AFTER = 600
    path = stored_upload(settings, many(3))
    job = ImportJob.objects.create(
        project=team.project, filename="big.jsonl", stored_path=str(path), format="jsonl",
        status=JobStatus.RUNNING, started_at=timezone.now() - timedelta(hours=1),
    )  # fmt: skip

    tasks.import_run.delay(job.pk)  # acks_late: the broker hands the task out again

    job.refresh_from_db()
    assert (job.status, job.documents_created) == (JobStatus.DONE, 3)
    assert not path.parent.exists()


def test_a_redelivered_import_leaves_a_job_whose_worker_is_alive(
    team: Team, settings: Any, fresh_cache: None
) -> None:
    path = stored_upload(settings, many(3))
    job = ImportJob.objects.create(
        project=team.project, filename="big.jsonl", stored_path=str(path), format="jsonl"
    )
    job_claim(ImportJob, job.pk)
    job_progress_set(job, 10, 100)

    tasks.import_run.delay(job.pk)

    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING
    assert Document.objects.filter(project=team.project).count() == 0
    assert path.is_file()


def test_an_import_whose_upload_is_gone_fails_clearly(team: Team, fresh_cache: None) -> None:
    job = ImportJob.objects.create(
        project=team.project, filename="big.jsonl", stored_path="/nowhere/0123abcd/big.jsonl"
    )

    tasks.import_run.delay(job.pk)

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert "no longer on the server" in job.error and "nothing was written" in job.error
    page = client_for(team.admin).get(reverse("import_detail", args=["radical", job.pk]))
    assert "no longer on the server" in page.content.decode()


def test_pages_answer_while_a_large_import_runs_on_sqlite(tmp_path: Path) -> None:
    """The embedded default: a worker process imports into SQLite while people read and sign in.

    Runs bench/sqlite_concurrency_bench.py (its own SQLite file and file cache, in a folder of
    its own) and reads what it measured.
    """
    env = {**os.environ, "CLOAK_IMPORT_BATCH_SIZE": "500", "TMPDIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "sqlite_concurrency_bench.py"),
         "-n", "4000", "--pace", "1.0", "--json"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=570, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    measured = json.loads(result.stdout.strip().splitlines()[-1])

    assert measured["job"] == {"status": "done", "error": "", "documents": 4000}
    codes = {kind: {code for _, code in timings} for kind, timings in measured["requests"].items()}
    assert codes == {"import page": {200}, "document page": {200}, "sign in": {302}}
    running = [s for s in measured["samples"] if s["status"] == "running"]
    # Progress moved before the import finished, and nothing showed before it committed.
    assert any(
        0 < s["documents"] < 4000 and 0 < s["bytes_read"] < s["bytes_total"] for s in running
    )
    assert all(s["documents_stored"] == 1 for s in running)
    assert measured["samples"][-1]["documents_stored"] == 4001
