"""Uploading a file through the import page, and watching its job."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator.models import Document, ImportJob, ImportStatus, Span
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
    assert job.status == ImportStatus.DONE
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
    assert job.status == ImportStatus.FAILED
    assert "bad.jsonl:3" in job.error
    assert Document.objects.count() == 0
    page = client.get(response.url).content.decode()
    assert "nothing of it was written" in page
    assert "bad.jsonl:3" in page


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
        project=team.project, filename="stream.jsonl", status=ImportStatus.RUNNING
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
        status=ImportStatus.DONE, documents_created=4, spans_created=9
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
