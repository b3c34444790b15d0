"""/api/projects/{slug}/releases/: admins cut releases (202, a job to poll) and download their
data and manifest (audited); leads and admins follow them, read every document that refused
one and dismiss a finding judged harmless (audited); nobody else reaches them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from annotator.models import (
    AuditAction,
    AuditEvent,
    HitDismissal,
    JobStatus,
    Release,
    SpanStatus,
)
from annotator.services.releases.build import release_build
from annotator.services.releases.create import release_create
from annotator.services.table import surface_decide
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

ROLES = ("admin", "lead", "annotator_en", "annotator_fr", "outsider")
ADMINS_ONLY = {"lead": 403, "annotator_en": 403, "annotator_fr": 403, "outsider": 404}
LEADS_UP = {**ADMINS_ONLY, "lead": 200}
TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."
LEAKY_TEXT = "Later that day moshe chaya wrote again."


@pytest.fixture(autouse=True)
def _no_ner_model(settings: Any) -> None:
    """The CPU detectors only: these tests are about the API, not the model."""
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}


@pytest.fixture(autouse=True)
def decided(team: Team) -> None:
    surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", replacement="Raj Avrom",
    )  # fmt: skip
    document = DocumentFactory(project=team.project, text=TEXT, status="done", external_id="t1")
    SpanFactory(
        document=document, start=12, end=23, label="PER", status=SpanStatus.ACCEPTED,
        decision="pseudonymize",
    )  # fmt: skip


def cut(team: Team, strategy: str = "S2", format: str = "jsonl") -> Release:
    release = release_create(
        project=team.project, strategy=strategy, format=format, actor=team.admin,
        dispatch=False,
    )  # fmt: skip
    return release_build(release.pk)


def url(name: str, release: Release | None = None) -> str:
    kwargs: dict[str, Any] = {"slug": "radical"}
    if release is not None:
        kwargs["pk"] = release.pk
    return reverse(name, kwargs=kwargs)


def post(team: Team, body: dict[str, Any], role: str = "admin") -> Any:
    return client_for(team.by_role()[role]).post(
        url("api-release-list"), body, content_type="application/json"
    )


@pytest.mark.parametrize("role", ROLES)
def test_admins_cut_and_download_and_leads_follow_releases(team: Team, role: str) -> None:
    release = cut(team)
    client = client_for(team.by_role()[role])
    expected = ADMINS_ONLY.get(role, 200)
    following = LEADS_UP.get(role, 200)
    for name in ("api-release-download", "api-release-manifest"):
        response = client.get(url(name, release))
        assert response.status_code == expected, name
        if expected != 200:
            assert "detail" in response.json()
    for name in ("api-release-detail", "api-release-leaks"):
        assert client.get(url(name, release)).status_code == following, name
    assert client.get(url("api-release-list")).status_code == following
    response = post(team, {"strategy": "S1", "format": "csv"}, role=role)
    assert response.status_code == (202 if role == "admin" else expected)
    assert Release.objects.count() == (2 if role == "admin" else 1)
    downloads = AuditEvent.objects.filter(detail__event="downloaded").count()
    assert downloads == (2 if role == "admin" else 0)


def test_anonymous_callers_get_401(team: Team) -> None:
    release = cut(team)
    client = client_for(None)
    for name in ("api-release-detail", "api-release-download", "api-release-manifest"):
        assert client.get(url(name, release)).status_code == 401
    assert client.get(url("api-release-list")).status_code == 401
    response = client.post(url("api-release-list"), {"format": "csv"}, "application/json")
    assert response.status_code == 401
    assert Release.objects.count() == 1


def test_a_release_is_cut_as_a_job_to_poll(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = post(team, {"strategy": "realistic", "format": "jsonl", "language": "en"})
    assert response.status_code == 202
    body = response.json()
    release = Release.objects.get()
    assert response["Location"] == f"http://testserver{url('api-release-detail', release)}"
    assert body["id"] == release.pk and body["version"] == 1
    assert (body["strategy"], body["format"], body["language"]) == ("realistic", "jsonl", "en")
    assert body["created_by"] == team.admin.username
    assert set(body["progress"]) == {"done", "total", "percent"}
    # Celery is eager here: by the time the caller polls, the release is done.
    polled = client_for(team.admin).get(response["Location"]).json()
    assert polled["status"] == JobStatus.DONE
    assert polled["progress"] == {"done": 1, "total": 1, "percent": 100}
    assert polled["sha256"] == Release.objects.get().sha256 and len(polled["sha256"]) == 64
    assert polled["finished_at"] and polled["started_at"] and polled["error"] == ""
    assert polled["manifest"]["counts"]["per_label"] == {"PER": 1}
    assert polled["leak_report"] == []
    assert polled["leak_summary"] == {"documents": 0, "leaks": 0, "hits": 0, "dismissed": 0}
    listed = client_for(team.admin).get(url("api-release-list")).json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == release.pk
    assert "manifest" not in listed["results"][0]


def test_the_strategy_defaults_to_the_projects(team: Team) -> None:
    team.project.strategy = "S3"
    team.project.save(update_fields=["strategy"])
    response = post(team, {"format": "csv"})
    assert response.status_code == 202 and response.json()["strategy"] == "S3"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"strategy": "S9", "format": "jsonl"}, "strategy"),
        ({"strategy": "S2", "format": "xml"}, "format"),
        ({"strategy": "S2"}, "format"),
        ({"strategy": "S2", "format": "jsonl", "language": "de"}, "language"),
        ({"strategy": "S2", "format": "jsonl", "language": "e" * 40}, "language"),
    ],
)
def test_a_bad_request_is_refused_and_cuts_nothing(
    team: Team, body: dict[str, Any], field: str
) -> None:
    response = post(team, body)
    assert response.status_code == 400
    assert field in response.json()["detail"]
    assert not Release.objects.exists()
    assert not AuditEvent.objects.filter(target__startswith="release:").exists()


def test_the_releases_page_by_limit_and_offset_newest_first(team: Team) -> None:
    for _ in range(3):
        cut(team)
    body = client_for(team.admin).get(url("api-release-list"), {"limit": 2, "offset": 1}).json()
    assert body["count"] == 3
    assert [row["version"] for row in body["results"]] == [2, 1]


def test_the_data_downloads_as_an_attachment_audited(team: Team) -> None:
    release = cut(team, strategy="S2", format="jsonl")
    response = client_for(team.admin).get(
        url("api-release-download", release), REMOTE_ADDR="10.0.0.9"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    assert response["Content-Disposition"] == 'attachment; filename="radical-v1-S2.jsonl"'
    assert "no-store" in response["Cache-Control"]
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["text"] == "Shoutout to PER! At Rue Alphonse Metayer."
    event = AuditEvent.objects.get(detail__event="downloaded")
    assert event.actor == team.admin and event.target == f"release:{release.pk}"
    assert event.detail["what"] == "data" and event.ip_address == "10.0.0.9"


def test_the_manifest_downloads_as_json_audited(team: Team) -> None:
    release = cut(team, strategy="S3", format="conll")
    response = client_for(team.admin).get(url("api-release-manifest", release))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert 'filename="radical-v1-S3-manifest.json"' in response["Content-Disposition"]
    assert "no-store" in response["Cache-Control"]
    manifest = json.loads(b"".join(response.streaming_content))
    assert manifest["release"] == 1 and manifest["strategy"] == "S3"
    assert manifest["data"]["sha256"] == release.sha256
    event = AuditEvent.objects.get(detail__event="downloaded")
    assert event.detail["what"] == "manifest"


def test_a_refused_release_reports_its_leaks_and_downloads_nothing(team: Team) -> None:
    leaky = DocumentFactory(
        project=team.project, text=LEAKY_TEXT, status="done", external_id="later"
    )
    release = cut(team)
    assert release.status == JobStatus.REFUSED
    client = client_for(team.admin)
    body = client.get(url("api-release-detail", release)).json()
    assert body["status"] == "refused" and body["sha256"] == ""
    original = {
        "kind": "leak", "document_start": 15, "document_end": 26, "label": "PER",
        "source": "original", "span_id": None, "start": 15, "end": 26,
    }  # fmt: skip
    known = {
        "kind": "hit", "document_start": 15, "document_end": 26, "label": "PER",
        "source": "known", "span_id": None, "uncovered": [[15, 26]],
    }  # fmt: skip
    assert body["leak_report"] == [
        {"document_id": leaky.pk, "external_id": "later", "leaks": 1, "hits": 1,
         "findings": [known, original]}
    ]  # fmt: skip
    assert body["leak_summary"] == {"documents": 1, "leaks": 1, "hits": 1, "dismissed": 0}
    assert body["leaks_url"] == url("api-release-leaks", release)
    listed = client.get(body["leaks_url"]).json()
    assert listed["count"] == 1 and listed["results"] == body["leak_report"]
    assert "moshe" not in json.dumps(body).casefold()
    for name in ("api-release-download", "api-release-manifest"):
        response = client.get(url(name, release))
        assert response.status_code == 409
        assert "refused" in response.json()["detail"]
    assert not AuditEvent.objects.filter(detail__event="downloaded").exists()


def test_a_release_of_another_project_is_not_found(team: Team) -> None:
    release = cut(team)
    other = reverse("api-release-detail", kwargs={"slug": "elsewhere", "pk": release.pk})
    assert client_for(team.outsider).get(other).status_code == 404
    assert client_for(team.admin).get(url("api-release-detail", release)).status_code == 200


def test_the_report_pages_through_every_leaking_document(team: Team) -> None:
    for number in range(7):
        DocumentFactory(project=team.project, text=LEAKY_TEXT, status="done",
                        external_id=f"later-{number}")  # fmt: skip
    release = cut(team)
    client = client_for(team.lead)

    body = client.get(url("api-release-leaks", release), {"limit": 3, "offset": 6}).json()

    assert body["count"] == 7
    assert [row["external_id"] for row in body["results"]] == ["later-6"]


def dismiss(team: Team, release: Release, role: str = "lead", **body: Any) -> Any:
    return client_for(team.by_role()[role]).post(
        url("api-release-dismiss", release), body, content_type="application/json"
    )


def test_a_lead_dismisses_a_hit_with_a_reason_audited_and_nobody_else_may(team: Team) -> None:
    leaky = DocumentFactory(project=team.project, text=LEAKY_TEXT, status="done")
    release = cut(team)
    finding = {"document_id": leaky.pk, "start": 15, "end": 26, "detector": "known"}

    for role, status in (("annotator_en", 403), ("outsider", 404)):
        assert dismiss(team, release, role, **finding, reason="x").status_code == status
    empty = dismiss(team, release, **finding, reason="  ")
    original = dismiss(team, release, **{**finding, "detector": "original"}, reason="a namesake")
    unknown = dismiss(team, release, **{**finding, "start": 0}, reason="x")
    answer = dismiss(team, release, **finding, reason="another Moshe Chaya, a public figure")
    twice = dismiss(team, release, **finding, reason="again")

    assert (empty.status_code, original.status_code, unknown.status_code) == (400, 400, 404)
    assert "fix the document" in original.json()["detail"]
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert (body["detector"], body["label"]) == ("known", "PER")
    assert body["dismissed_by"] == team.lead.username
    assert twice.status_code == 409
    assert HitDismissal.objects.count() == 1
    event = AuditEvent.objects.get(action=AuditAction.HIT_DISMISS)
    assert event.actor == team.lead and "Moshe" not in json.dumps(event.detail)
