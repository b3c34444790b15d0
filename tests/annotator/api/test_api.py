from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator.models import Document, JobStatus
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db


def test_the_project_list_holds_only_my_projects(team: Team) -> None:
    slugs = [p["slug"] for p in client_for(team.outsider).get("/api/projects/").json()["results"]]
    assert slugs == ["elsewhere"]
    mine = client_for(team.annotator_fr).get("/api/projects/").json()["results"]
    assert [(p["slug"], p["role"]) for p in mine] == [("radical", "annotator")]


def test_an_annotator_lists_only_documents_of_their_language(team: Team) -> None:
    DocumentFactory(project=team.project, language="en", external_id="e1")
    DocumentFactory(project=team.project, language="fr", external_id="f1")
    url = reverse("api-document-list", kwargs={"slug": team.project.slug})
    ids = [d["external_id"] for d in client_for(team.annotator_fr).get(url).json()["results"]]
    assert ids == ["f1"]
    lead_ids = [d["external_id"] for d in client_for(team.lead).get(url).json()["results"]]
    assert sorted(lead_ids) == ["e1", "f1"]
    assert client_for(team.lead).get(url, {"language": "en"}).json()["count"] == 1


def test_a_document_comes_with_its_spans_in_code_points(team: Team) -> None:
    text = "👋 Hi Moshe Chaya"
    document = DocumentFactory(project=team.project, language="en", text=text)
    SpanFactory(document=document, start=5, end=16, label="PER")
    url = reverse("api-document-detail", kwargs={"slug": "radical", "pk": document.pk})
    body = client_for(team.annotator_en).get(url).json()
    assert body["text"] == text
    span = body["spans"][0]
    assert body["text"][span["start"] : span["end"]] == "Moshe Chaya"


def test_an_admin_uploads_a_file_and_the_import_runs(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:  # noqa: E501
    url = reverse("api-import-list", kwargs={"slug": "radical"})
    body = json.dumps({"id": "api-1", "lang": "ar", "text": "مرحبا @ali_77",
                       "spans": [{"start": 6, "end": 13, "label": "USERNAME"}]})  # fmt: skip
    upload = SimpleUploadedFile("posts.jsonl", body.encode() + b"\n")
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(team.admin).post(url, {"file": upload, "format": "auto"})
    assert response.status_code == 202
    job_url = reverse("api-import-detail", kwargs={"slug": "radical", "pk": response.json()["id"]})
    job = client_for(team.admin).get(job_url).json()
    assert job["status"] == JobStatus.DONE
    assert (job["progress"]["documents"], job["progress"]["spans"]) == (1, 1)
    assert Document.objects.get(external_id="api-1").spans.get().label == "USERNAME"


def test_a_refused_upload_reports_file_line_and_reason(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:  # noqa: E501
    url = reverse("api-import-list", kwargs={"slug": "radical"})
    upload = SimpleUploadedFile(
        "bad.jsonl", b'{"id": "1", "lang": "en", "text": "ok"}\n{"id": "1"}\n'
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(team.admin).post(url, {"file": upload})
    job = client_for(team.admin).get(f"{url}{response.json()['id']}/").json()
    assert job["status"] == JobStatus.FAILED
    assert job["error"].startswith("bad.jsonl:2:")
    assert not Document.objects.exists()


def test_a_language_outside_the_project_is_a_400(team: Team) -> None:
    url = reverse("api-import-list", kwargs={"slug": "radical"})
    upload = SimpleUploadedFile("a.txt", b"Hallo")
    response = client_for(team.admin).post(url, {"file": upload, "language": "de"})
    assert response.status_code == 400
    assert "'de' is not one of the project's" in response.json()["detail"]


def test_the_openapi_schema_describes_the_import_endpoint(team: Team) -> None:
    response = client_for(team.lead).get(reverse("api-schema"), HTTP_ACCEPT="application/json")
    schema = json.loads(response.content)
    assert "/api/projects/{slug}/imports/" in schema["paths"]
    assert "post" in schema["paths"]["/api/projects/{slug}/imports/"]


def test_swagger_ui_is_served_without_a_cdn(team: Team) -> None:
    page = client_for(team.lead).get(reverse("api-docs")).content.decode()
    assert "swagger-ui" in page
    assert "cdn" not in page.lower()
    assert "https://" not in page and "http://" not in page.replace("http://testserver", "")
