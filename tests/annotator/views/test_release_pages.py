"""The release pages: cut a release, follow it live, read its manifest or every document that
refused it, dismiss a finding judged harmless, download it (audited). Admins cut and download;
leads follow and dismiss."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    HitDismissal,
    JobStatus,
    Release,
    Span,
    SpanStatus,
)
from annotator.services.jobs import job_progress_set
from annotator.services.releases.build import release_build
from annotator.services.releases.create import release_create
from annotator.services.table import surface_decide
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

ROLES_REFUSED = {"lead": 403, "annotator_en": 403, "annotator_fr": 403, "outsider": 404}
FOLLOWING = {**ROLES_REFUSED, "lead": 200}
TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."
# Written as it was, in another document: the name nobody annotated there.
LEAKY_TEXT = "Later that day moshe chaya wrote again."


@pytest.fixture(autouse=True)
def _no_ner_model(settings: Any) -> None:
    """The CPU detectors only: these tests are about the pages, not the model."""
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}


def done_document(team: Team, text: str = TEXT, **fields: Any) -> Document:
    document = DocumentFactory(project=team.project, text=text, status="done", **fields)
    if text == TEXT:
        SpanFactory(
            document=document, start=12, end=23, label="PER", status=SpanStatus.ACCEPTED,
            decision="pseudonymize",
        )  # fmt: skip
    return document


@pytest.fixture
def decided(team: Team) -> None:
    surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", replacement="Raj Avrom",
    )  # fmt: skip


def cut(team: Team, strategy: str = "S2", format: str = "jsonl", language: str = "") -> Release:
    release = release_create(
        project=team.project, strategy=strategy, format=format, language=language,
        actor=team.admin, dispatch=False,
    )  # fmt: skip
    return release_build(release.pk)


def url(name: str, release: Release | None = None) -> str:
    kwargs: dict[str, Any] = {"slug": "radical"}
    if release is not None:
        kwargs["pk"] = release.pk
    return reverse(name, kwargs=kwargs)


def page(team: Team, name: str, release: Release | None = None, **headers: Any) -> str:
    response = client_for(team.admin).get(url(name, release), **headers)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(("role", "expected"), ROLES_REFUSED.items())
def test_admins_cut_and_download_and_leads_only_follow(
    team: Team, decided: None, role: str, expected: int
) -> None:
    done_document(team)
    release = cut(team)
    client = client_for(team.by_role()[role])
    for name in ("release_download", "release_manifest"):
        assert client.get(url(name, release)).status_code == expected, name
    for name in ("release_detail", "release_list"):
        response = client.get(url(name, release if name == "release_detail" else None))
        assert response.status_code == FOLLOWING[role], name
        if response.status_code == 200:  # a lead: no form to cut, no link to download
            html = response.content.decode()
            assert f'action="{url("release_create")}"' not in html
            assert f'href="{url("release_download", release)}"' not in html
    response = client.post(url("release_create"), {"strategy": "S1", "format": "csv"})
    assert response.status_code == expected
    assert Release.objects.count() == 1
    assert not AuditEvent.objects.filter(detail__event="downloaded").exists()


def test_the_navigation_shows_releases_to_leads_and_admins(team: Team) -> None:
    link = f'href="{url("release_list")}"'
    assert link in page(team, "project_detail")
    lead = client_for(team.lead).get(url("project_detail")).content.decode()
    annotator = client_for(team.annotator_en).get(url("project_detail")).content.decode()
    assert link in lead and link not in annotator


def test_the_form_explains_the_strategies_and_picks_the_projects(team: Team) -> None:
    team.project.strategy = "S3"
    team.project.save(update_fields=["strategy"])
    html = page(team, "release_list")
    assert f'action="{url("release_create")}"' in html
    assert '<option value="S3" selected>' in html
    assert "Shoutout to PER_1! At ADDRESS_2." in html
    assert "Shoutout to ! At ." in html
    assert "Raj Avrom" in html  # the realistic strategy's example
    assert '<option value="conll">CoNLL</option>' in html
    assert '<option value="ar">Arabic (ar)</option>' in html
    assert "No releases yet." in html


def test_cutting_a_release_leads_to_its_page_with_the_files(
    team: Team, decided: None, django_capture_on_commit_callbacks: Any
) -> None:
    done_document(team)
    DocumentFactory(project=team.project, external_id="unfinished", status="new")
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(team.admin).post(
            url("release_create"), {"strategy": "S2", "format": "jsonl", "language": "en"}
        )
    release = Release.objects.get()
    assert response.status_code == 302 and response["Location"] == url("release_detail", release)
    assert (release.version, release.strategy, release.format, release.language) == (
        1, "S2", "jsonl", "en",
    )  # fmt: skip
    assert release.status == JobStatus.DONE and release.created_by == team.admin
    html = page(team, "release_detail", release)
    assert "every 1s" not in html  # finished: no more polling
    assert f'href="{url("release_download", release)}"' in html
    assert f'href="{url("release_manifest", release)}"' in html
    assert release.sha256 in html
    # The manifest: counts per label, decision and language, and who was left out and why.
    assert '<th scope="row">PER</th><td class="num">1</td>' in html
    assert '<th scope="row">pseudonymize</th><td class="num">1</td>' in html
    assert '<th scope="row">English (en)</th><td class="num">1</td>' in html
    unfinished = Document.objects.get(external_id="unfinished")
    assert f'<a href="{reverse("document_detail", args=["radical", unfinished.pk])}"' in html
    assert "not finished" in html
    listing = page(team, "release_list")
    assert f'id="release-{release.pk}"' in listing
    assert release.sha256[:12] in listing
    assert f'href="{url("release_download", release)}"' in listing


@pytest.mark.parametrize(
    "form",
    [
        {"strategy": "S9", "format": "jsonl"},
        {"strategy": "S2", "format": "xml"},
        {"strategy": "S2", "format": "jsonl", "language": "de"},
        {"strategy": "S2"},
    ],
)
def test_a_bad_form_cuts_nothing(team: Team, form: dict[str, str]) -> None:
    response = client_for(team.admin).post(url("release_create"), form)
    assert response.status_code == 400
    html = response.content.decode()
    assert "field-error" in html or "No release was cut" in html
    assert not Release.objects.exists()
    assert not AuditEvent.objects.exists()


def test_the_data_and_the_manifest_download_as_attachments_audited(
    team: Team, decided: None
) -> None:
    done_document(team)
    release = cut(team, strategy="S2", format="jsonl")
    client = client_for(team.admin)
    response = client.get(url("release_download", release), REMOTE_ADDR="10.0.0.7")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    # The name the manifest gives the file, which is the file's name on the server.
    assert response["Content-Disposition"] == 'attachment; filename="radical-v1-S2.jsonl"'
    assert "no-store" in response["Cache-Control"]
    data = b"".join(response.streaming_content).decode()
    assert "Shoutout to PER! At Rue Alphonse Metayer." in data
    assert "Moshe" not in data
    event = AuditEvent.objects.get(detail__event="downloaded")
    assert (event.actor, event.project, event.target) == (
        team.admin, team.project, f"release:{release.pk}",
    )  # fmt: skip
    assert event.detail["what"] == "data" and event.ip_address == "10.0.0.7"

    response = client.get(url("release_manifest", release))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert 'filename="radical-v1-S2-manifest.json"' in response["Content-Disposition"]
    assert "no-store" in response["Cache-Control"]
    manifest = json.loads(b"".join(response.streaming_content))
    assert manifest["release"] == 1 and manifest["data"]["sha256"] == release.sha256
    whats = AuditEvent.objects.filter(detail__event="downloaded").values_list(
        "detail__what", flat=True
    )
    assert sorted(whats) == ["data", "manifest"]


@pytest.mark.parametrize(("format", "content_type"), [("csv", "text/csv"), ("conll", "text/plain")])
def test_each_format_downloads_with_its_media_type(
    team: Team, decided: None, format: str, content_type: str
) -> None:
    done_document(team)
    release = cut(team, format=format)
    response = client_for(team.admin).get(url("release_download", release))
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == content_type
    assert f'filename="radical-v1-S2.{format}"' in response["Content-Disposition"]


def test_a_refused_release_lists_its_leaks_with_links_and_no_text(
    team: Team, decided: None
) -> None:
    done_document(team)
    leaky = done_document(team, text=LEAKY_TEXT, external_id="later")
    release = cut(team)
    assert release.status == JobStatus.REFUSED
    html = page(team, "release_detail", release)
    assert "Refused: 1 document holds 1 leak and 1 identifier no person decided on" in html
    document_url = reverse("document_detail", args=["radical", leaky.pk])
    assert f'<a href="{document_url}" dir="auto">later</a>' in html
    # A leak no span holds links to its stretch, which the page opens selected.
    assert f'<td class="num"><a href="{document_url}#at-15-26">15–26</a></td>' in html
    assert "<td>PER</td>" in html and "<td>known</td>" in html and "<td>original</td>" in html
    assert "moshe" not in html.casefold()  # the leak is never shown, nor the original
    assert "Cut it again</button>" in html
    assert "every 1s" not in html
    # Nothing to download: the page says why, and nothing is audited as downloaded.
    client = client_for(team.admin)
    for name in ("release_download", "release_manifest"):
        response = client.get(url(name, release))
        assert response.status_code == 409
        assert "refused" in response.content.decode()
    assert not AuditEvent.objects.filter(detail__event="downloaded").exists()
    assert f'href="{url("release_download", release)}"' not in page(team, "release_list")


def test_cut_it_again_makes_a_new_release_with_the_same_settings(
    team: Team, decided: None, django_capture_on_commit_callbacks: Any
) -> None:
    done_document(team)
    leaky = done_document(team, text=LEAKY_TEXT, language="fr")
    first = cut(team, strategy="S3", format="csv", language="fr")
    assert first.status == JobStatus.REFUSED
    leaky.status = "in_progress"  # fixed: taken back out of the finished documents
    leaky.save(update_fields=["status"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(team.admin).post(
            url("release_create"), {"strategy": "S3", "format": "csv", "language": "fr"}
        )
    again = Release.objects.get(version=2)
    assert response["Location"] == url("release_detail", again)
    assert (again.strategy, again.format, again.language) == ("S3", "csv", "fr")
    assert again.status == JobStatus.DONE
    # The button posts exactly these settings.
    html = page(team, "release_detail", first)
    for name, value in (("strategy", "S3"), ("format", "csv"), ("language", "fr")):
        assert f'<input type="hidden" name="{name}" value="{value}">' in html


def test_a_running_release_polls_its_progress_until_it_is_done(team: Team, decided: None) -> None:
    done_document(team)
    release = release_create(
        project=team.project, strategy="S2", format="jsonl", actor=team.admin, dispatch=False
    )
    queued = page(team, "release_detail", release)
    assert f'hx-get="{url("release_detail", release)}" hx-trigger="every 1s"' in queued
    assert "Waiting for a worker" in queued

    Release.objects.filter(pk=release.pk).update(status=JobStatus.RUNNING, documents_total=10)
    job_progress_set(release, 3, 10, unit="documents")
    partial = page(team, "release_detail", release, HTTP_HX_REQUEST="true")
    assert partial.lstrip().startswith('<section id="release-status"')
    assert "<strong>3</strong> of 10 documents written (30%)" in partial
    assert 'hx-trigger="every 1s"' in partial
    assert "<html" not in partial
    # The list's row polls for itself while it runs.
    listing = page(team, "release_list")
    assert f'hx-get="{url("release_detail", release)}" hx-trigger="every 2s"' in listing
    row = page(
        team,
        "release_detail",
        release,
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET=f"release-{release.pk}",
    )
    assert row.lstrip().startswith(f'<tr id="release-{release.pk}"')

    Release.objects.filter(pk=release.pk).update(status=JobStatus.QUEUED)
    release_build(release.pk)
    finished = page(team, "release_detail", release, HTTP_HX_REQUEST="true")
    assert 'Status: <span class="status status-done">Done</span>' in finished
    assert "every 1s" not in finished
    assert f'href="{url("release_download", release)}"' in finished


def test_a_leak_in_a_span_someone_rejected_links_to_that_span(team: Team, decided: None) -> None:
    leaky = done_document(team, text="Call +33 6 12 34 56 78 now.", external_id="phone")
    start = leaky.text.index("+33")
    span = Span.objects.create(
        document=leaky, start=start, end=start + 17, label="PHONE", source="regex",
        status=SpanStatus.REJECTED,
    )  # fmt: skip
    release = cut(team)
    assert release.status == JobStatus.REFUSED
    html = page(team, "release_detail", release)
    document_url = reverse("document_detail", args=["radical", leaky.pk])
    assert f'<a href="{document_url}#span-{span.pk}">{start}–{start + 17}</a>' in html


def test_a_lead_dismisses_a_finding_from_the_refused_release_s_page(
    team: Team, decided: None
) -> None:
    done_document(team)
    leaky = done_document(team, text=LEAKY_TEXT, external_id="later")
    release = cut(team)
    lead = client_for(team.lead)
    form = {"document_id": leaky.pk, "start": 15, "end": 26, "detector": "known"}
    html = lead.get(url("release_detail", release)).content.decode()
    assert f'action="{url("release_dismiss", release)}"' in html
    assert html.count('class="dismiss-form"') == 1  # the original of the table is no judgement

    refused = lead.post(url("release_dismiss", release), {**form, "reason": ""})
    annotator = client_for(team.annotator_en).post(url("release_dismiss", release), form)
    answer = lead.post(url("release_dismiss", release), {**form, "reason": "a namesake"})

    assert refused.status_code == 400 and "Nothing was dismissed" in refused.content.decode()
    assert annotator.status_code == 403
    assert answer.status_code == 302
    assert answer["Location"] == f"{url('release_detail', release)}#leak-document-{leaky.pk}"
    assert HitDismissal.objects.get().dismissed_by == team.lead
    assert AuditEvent.objects.filter(action=AuditAction.HIT_DISMISS, actor=team.lead).exists()
    after = lead.get(url("release_detail", release)).content.decode()
    assert f"Dismissed by {team.lead.username}: a namesake" in after
    assert 'class="dismiss-form"' not in after


def test_the_report_of_a_refused_release_pages_through_every_document(
    team: Team, decided: None
) -> None:
    for number in range(30):
        done_document(team, text=LEAKY_TEXT, external_id=f"later-{number:02d}")
    release = cut(team)

    first = page(team, "release_detail", release)
    second = client_for(team.admin).get(url("release_detail", release), {"leaks": 2})

    assert "What refused it: 30 documents" in first
    assert "later-24" in first and "later-25" not in first
    assert "Page 1 of 2" in first and 'href="?leaks=2#leaks-title"' in first
    html = second.content.decode()
    assert "later-25" in html and "later-29" in html and "later-00" not in html


def test_a_release_says_at_the_top_which_finished_documents_it_left_out(
    team: Team, decided: None
) -> None:
    """Issue 31, trap 1: a document a person had finished and a change reopened is named at
    the top of the release's page, with a link, not only in the long "left out" list."""
    done_document(team)
    reopened = DocumentFactory(project=team.project, text="Nothing here.", status="in_progress",
                               external_id="post-reopened")  # fmt: skip
    Document.objects.filter(pk=reopened.pk).update(finished_at=timezone.now())
    DocumentFactory(project=team.project, text="Nothing there.", status="in_progress",
                    external_id="post-never-done")  # fmt: skip
    release = cut(team)
    html = page(team, "release_detail", release)
    banner = html[html.index('id="release-reopened"') :]
    banner = banner[: banner.index("</div>")]
    assert "1 document a person had finished was left out" in banner
    assert f"/documents/{reopened.pk}/" in banner and "post-reopened" in banner
    assert "post-never-done" not in banner
    assert html.index('id="release-reopened"') < html.index("Documents left out (2)")
