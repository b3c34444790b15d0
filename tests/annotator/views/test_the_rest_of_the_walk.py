"""What the walk through the demo found outside the workspace (issue 20, "The rest of the
walk"): snippets cut between graphemes, times a person reads, the entity page's pseudonym
fields, a refused release's manifest and the names of downloads, Cloak's own error pages with
DEBUG on, and the runs page in the navigation."""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotator.models import DocumentStatus, JobStatus, ReviewItem, ReviewKind
from annotator.selectors.review import CONTEXT, review_last_scan, scanned_key, snippet
from annotator.services.table import surface_decide
from annotator.views.keys import PSEUDONYM_SIZE_MIN, pseudonym_size
from tests.annotator.views.test_release_pages import (
    LEAKY_TEXT,
    _no_ner_model,
    cut,
    decided,
    done_document,
)
from tests.annotator.views.test_release_pages import url as release_url
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

__all__ = ["_no_ner_model", "decided"]  # fixtures: imported to be used here

pytestmark = pytest.mark.django_db

HEART = "\u2764\ufe0f"  # ❤️: a heart and the variation selector that makes it an emoji
THUMB = "\U0001f44d\U0001f3fd"  # 👍🏽: a hand and its skin tone
NAME = "Moshe Chaya"


def project_url(name: str, team: Team, **kwargs: Any) -> str:
    return reverse(name, kwargs={"slug": team.project.slug, **kwargs})


# --- The lead's snippet is cut between graphemes ----------------------------------------------


def _text_cut_inside_clusters() -> tuple[str, int, int]:
    """A text whose plain cut, CONTEXT code points each side of the span, falls between the
    heart and its variation selector before it, and between the hand and its tone after it."""
    before = HEART + "a" * (CONTEXT - 1)  # the cut at start - CONTEXT lands on U+FE0F
    after = "b" * (CONTEXT - 1) + THUMB  # the cut at end + CONTEXT lands on the tone
    text = before + NAME + after
    start = len(before)
    return text, start, start + len(NAME)


def test_a_snippet_is_cut_only_between_graphemes() -> None:
    text, start, end = _text_cut_inside_clusters()
    assert text[start - CONTEXT] == "\ufe0f" and text[end + CONTEXT] == "\U0001f3fd"
    before, surface, after = snippet(text, start, end)
    assert surface == NAME
    assert before == "a" * (CONTEXT - 1)  # not the variation selector without its heart
    assert after == "b" * (CONTEXT - 1)  # not the hand without its tone
    # Whole clusters are kept where the cut falls between them.
    assert snippet(text, start, end, context=CONTEXT + 1) == (HEART + before, NAME, after + THUMB)


def test_a_snippet_keeps_arabic_letters_with_their_marks() -> None:
    text = "بُ" + "ك" * 5 + NAME + "ك" * 5 + "تَ"
    start, end = 7, 7 + len(NAME)
    before, _, after = snippet(text, start, end, context=6)  # both cuts between letter and mark
    assert before == "ك" * 5 and after == "ك" * 5
    assert snippet(text, start, end, context=7) == ("بُ" + "ك" * 5, NAME, "ك" * 5 + "تَ")


def test_the_review_pages_show_no_half_character(team: Team) -> None:
    text, start, end = _text_cut_inside_clusters()
    document = DocumentFactory(project=team.project, text=text, external_id="hearts")
    span = SpanFactory(document=document, start=start, end=end, label="PER")
    item = ReviewItem.objects.create(
        project=team.project, kind=ReviewKind.FLAG, document=document, span=span
    )
    client = client_for(team.lead)
    for page in (
        client.get(project_url("review_list", team)).content.decode(),
        client.get(project_url("review_detail", team, pk=item.pk)).content.decode(),
    ):
        assert f'…{"a" * (CONTEXT - 1)}<mark class="hl">{NAME}</mark>{"b" * (CONTEXT - 1)}…' in page
        assert "\ufe0f" not in page and "\U0001f44d" not in page


# --- Times are shown as a person reads them -----------------------------------------------------


def test_the_last_scan_shows_as_a_time_with_its_iso_value_in_the_markup(team: Team) -> None:
    # As the scan writes it (annotator.services.review.scan); the page may scan again first.
    cache.set(scanned_key(team.project.pk), "2026-11-26T20:42:24.982764+00:00", timeout=None)
    page = client_for(team.lead).get(project_url("review_list", team)).content.decode()
    scanned = datetime.fromisoformat(cache.get(scanned_key(team.project.pk)))
    iso = scanned.isoformat()
    shown = scanned.strftime("%Y-%m-%d %H:%M")
    assert f'Conflicts last looked for at <time datetime="{iso}">{shown} UTC</time>.' in page
    assert page.count(iso) == 1  # only in the attribute


def test_a_last_scan_the_cache_cannot_read_is_not_shown(team: Team) -> None:
    cache.set(scanned_key(team.project.pk), "not a time", timeout=None)
    assert review_last_scan(team.project) is None
    cache.set(scanned_key(team.project.pk), "2026-11-26T20:42:24.982764+00:00", timeout=None)
    assert review_last_scan(team.project) == datetime.fromisoformat(
        "2026-11-26T20:42:24.982764+00:00"
    )


# --- One key search, one audited read -----------------------------------------------------------


def test_the_key_search_form_sends_once_on_enter(team: Team) -> None:
    """Enter sends the form (`submit`) and commits the search field (`change`): the form
    listens to the change of its filters only, so one search is one request and one row."""
    page = client_for(team.lead).get(project_url("key_list", team)).content.decode()
    trigger = re.search(r'hx-trigger="([^"]*)"', page)
    assert trigger is not None
    events = [part.strip() for part in trigger.group(1).split(",")]
    assert "change" not in events  # a bare change would include the search field's
    assert {"change from:#id_label", "change from:#id_decision", "change from:#id_language"} <= set(
        events
    )
    assert "submit" in events and "input changed delay:400ms from:#id_q" in events


# --- The entity page shows a pseudonym whole ----------------------------------------------------


def test_a_pseudonym_field_is_as_wide_as_its_pseudonym(team: Team) -> None:
    long = "paper.maker@example.org"
    choice = surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", replacement=long,
    )  # fmt: skip
    page = (
        client_for(team.lead)
        .get(project_url("key_entity", team, pk=choice.entity_id))
        .content.decode()
    )
    field = re.search(
        rf'<input type="text" name="replacement_\d+" value="{re.escape(long)}"[^>]*>', page
    )
    assert field is not None
    assert f'size="{len(long) + 4}"' in field.group(0)
    assert pseudonym_size("Raj") == PSEUDONYM_SIZE_MIN
    assert pseudonym_size("x" * 1000) < 1000


# --- A refused release's manifest, and the names of downloads -------------------------------------


def test_a_refused_release_counts_what_it_would_have_released(team: Team, decided: None) -> None:
    done_document(team)
    done_document(team, text=LEAKY_TEXT, external_id="later")
    release = cut(team)
    assert release.status == JobStatus.REFUSED
    html = client_for(team.admin).get(release_url("release_detail", release)).content.decode()
    assert "nothing was published" in html
    assert "<dt>Documents released</dt>" not in html
    assert "<dt>Documents it would have released</dt>" in html
    assert "Manifest: what it would have released" in html


def test_a_published_release_says_released(team: Team, decided: None) -> None:
    done_document(team)
    release = cut(team)
    assert release.status == JobStatus.DONE
    html = client_for(team.admin).get(release_url("release_detail", release)).content.decode()
    assert "<dt>Documents released</dt><dd>1</dd>" in html
    assert "would have released" not in html


@pytest.mark.parametrize(("strategy", "format"), [("S3", "jsonl"), ("S2", "csv")])
def test_a_download_is_named_as_its_manifest_names_the_file(
    team: Team, decided: None, strategy: str, format: str
) -> None:
    done_document(team)
    release = cut(team, strategy=strategy, format=format)
    release.refresh_from_db()
    client = client_for(team.admin)
    name = release.manifest["data"]["file"]
    assert name == f"radical-v1-{strategy}.{format}" == PurePosixPath(release.file_path).name
    data = client.get(release_url("release_download", release))
    assert data["Content-Disposition"] == f'attachment; filename="{name}"'
    manifest = client.get(release_url("release_manifest", release))
    stem = name.rsplit(".", 1)[0]
    assert manifest["Content-Disposition"] == f'attachment; filename="{stem}-manifest.json"'
    assert json.loads(b"".join(manifest.streaming_content))["data"]["file"] == name


# --- Cloak's own error pages with DEBUG on, a refusal in one line -------------------------------


def _request_lines(caplog: Any) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "django.request"]


@pytest.fixture
def debug(settings: Any) -> None:
    settings.DEBUG = True  # as under `make run`


def test_with_debug_on_a_forbidden_document_is_cloaks_404_in_one_line(
    team: Team, debug: None, caplog: Any
) -> None:
    document = DocumentFactory(project=team.project, language="en", status=DocumentStatus.NEW)
    with caplog.at_level(logging.INFO):
        response = client_for(team.annotator_fr).get(
            project_url("document_detail", team, pk=document.pk)
        )
    assert response.status_code == 404
    page = response.content.decode()
    assert "There is nothing here, or nothing you may see." in page
    assert "URLconf" not in page and "urlpatterns" not in page and "Traceback" not in page
    lines = _request_lines(caplog)
    assert len(lines) == 1
    assert lines[0].levelno == logging.WARNING and lines[0].exc_info is None
    assert (
        lines[0].getMessage()
        == f"Not Found: {project_url('document_detail', team, pk=document.pk)}"
    )


def test_with_debug_on_a_refusal_is_cloaks_403_in_one_line(
    team: Team, debug: None, caplog: Any
) -> None:
    with caplog.at_level(logging.INFO):
        response = client_for(team.annotator_en).get(project_url("review_list", team))
    assert response.status_code == 403
    assert "You may not do this" in response.content.decode()
    lines = _request_lines(caplog)
    assert len(lines) == 1
    assert lines[0].exc_info is None and "\n" not in lines[0].getMessage()
    assert lines[0].getMessage() == f"Forbidden: {project_url('review_list', team)}"


def test_without_debug_a_403_is_logged_without_its_traceback(team: Team, caplog: Any) -> None:
    with caplog.at_level(logging.INFO):
        response = client_for(team.annotator_en).get(project_url("review_list", team))
    assert response.status_code == 403
    lines = _request_lines(caplog)
    assert len(lines) == 1 and lines[0].exc_info is None


def test_with_debug_on_an_unknown_address_is_cloaks_404(
    team: Team, debug: None, caplog: Any
) -> None:
    client = client_for(team.lead)
    with caplog.at_level(logging.INFO):
        response = client.get("/no/such/page/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "There is nothing here" in page and "URLconf" not in page
    assert len(_request_lines(caplog)) == 1
    api = client.get("/api/no-such-thing/")
    assert api.status_code == 404 and api.json() == {"detail": "Not found."}
    # An address one slash short is still sent to the page it names.
    slashless = client.get(project_url("review_list", team).rstrip("/"))
    assert slashless.status_code == 301


# --- The runs page in the navigation ------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "shown"),
    [("admin", True), ("lead", False), ("annotator_en", False), ("annotator_fr", False)],
)
def test_the_navigation_has_pre_annotation_for_those_who_start_runs(
    team: Team, role: str, shown: bool
) -> None:
    page = client_for(team.by_role()[role]).get(project_url("project_detail", team))
    assert page.status_code == 200
    nav = re.search(r'<ul class="nav-links">(.*?)</ul>', page.content.decode(), re.S)
    assert nav is not None
    link = f'<a href="{project_url("run_list", team)}"'
    assert (link in nav.group(1)) is shown
    assert ("Pre-annotation</a>" in nav.group(1)) is shown


def test_the_runs_page_is_the_current_entry_of_the_navigation(team: Team) -> None:
    page = client_for(team.admin).get(project_url("run_list", team)).content.decode()
    assert (
        f'<a href="{project_url("run_list", team)}" aria-current="page">Pre-annotation</a>' in page
    )
