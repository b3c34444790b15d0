"""The document list and the reading view of one document."""

from __future__ import annotations

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.models import Document, DocumentStatus, Span, SpanSource, SpanStatus
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

# Arabic with an emoji before the first span (two UTF-16 units, one code point), a CRLF line
# end, embedded Latin with a combining accent, and characters that HTML must escape.
ARABIC = "مرحبا 👋 موشيه حايا!\r\nزار Me\u0301tayer في <باريس> & بيروت."


def list_url(**params: str) -> str:
    url = reverse("document_list", args=["radical"])
    if params:
        url += "?" + "&".join(f"{key}={value}" for key, value in params.items())
    return url


def detail_url(document: Document) -> str:
    return reverse("document_detail", args=["radical", document.pk])


def rendered_text(page: str) -> str:
    match = re.search(r'<div class="doc-text"[^>]*>(.*?)</div>', page, re.DOTALL)
    assert match is not None
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def highlights(page: str) -> list[tuple[int, int, str]]:
    return [
        (int(start), int(end), html.unescape(surface))
        for start, end, surface in re.findall(
            r'<mark(?: dir="\w+")? class="hl [^"]*" data-start="(\d+)" data-end="(\d+)"'
            r"[^>]*>(.*?)</mark>",
            page,
            re.DOTALL,
        )
    ]


@pytest.fixture
def arabic(team: Team) -> Document:
    document = Document.objects.create(
        project=team.project, language="ar", external_id="ar-1", text=ARABIC
    )
    for surface, label in [("موشيه حايا", "PER"), ("Me\u0301tayer", "PER"), ("باريس", "LOC")]:
        start = ARABIC.index(surface)
        Span.objects.create(
            document=document,
            start=start,
            end=start + len(surface),
            label=label,
            source=SpanSource.IMPORT,
        )
    return document


def test_an_arabic_document_reads_right_to_left_with_its_spans_exact(
    team: Team, arabic: Document
) -> None:
    response = client_for(team.lead).get(detail_url(arabic))
    assert response.status_code == 200
    page = response.content.decode()
    assert re.search(r'<div class="doc-text" dir="rtl" lang="ar">', page)
    # Every character comes back, escaped on the way and exact after unescaping: CRLF included.
    assert rendered_text(page) == ARABIC
    # A raw CR would become LF in the browser's parser and shift every offset after it.
    assert "&#13;\n" in page.split('class="doc-text"')[1].split("</div>")[0]
    assert "&lt;" in page and "&gt; &amp; بيروت" in page
    assert highlights(page) == [
        (ARABIC.index("موشيه"), ARABIC.index("!"), "موشيه حايا"),
        (ARABIC.index("Me"), ARABIC.index("Me") + 8, "Me\u0301tayer"),
        (ARABIC.index("باريس"), ARABIC.index("باريس") + 5, "باريس"),
    ]
    for start, end, surface in highlights(page):
        assert ARABIC[start:end] == surface
    # The span table: label, source, status, decision, offsets and the surface.
    assert f"<td>{ARABIC.index('Me')}</td>" in page  # its start offset
    assert 'dir="ltr" lang="ar">Me\u0301tayer</td>' in page
    assert "Imported" in page and "Proposed" in page and "Pseudonymize" in page


def test_a_latin_document_reads_left_to_right(team: Team) -> None:
    document = DocumentFactory(project=team.project, language="fr")
    page = client_for(team.annotator_fr).get(detail_url(document)).content.decode()
    assert 'dir="ltr" lang="fr"' in page


def test_overlapping_spans_are_highlighted_without_nesting(team: Team) -> None:
    document = DocumentFactory(project=team.project, text="Rue Alphonse Metayer")
    SpanFactory(document=document, start=0, end=12, label="ADDRESS")
    SpanFactory(document=document, start=4, end=20, label="PER", status=SpanStatus.ACCEPTED)
    page = client_for(team.lead).get(detail_url(document)).content.decode()
    assert [surface for _, _, surface in highlights(page)] == ["Rue ", "Alphonse", " Metayer"]
    assert "hl-overlap" in page
    assert 'title="ADDRESS, PER (' in page
    assert rendered_text(page) == "Rue Alphonse Metayer"


def test_an_annotator_of_french_gets_404_on_an_english_document(team: Team) -> None:
    english = DocumentFactory(project=team.project, language="en")
    french = DocumentFactory(project=team.project, language="fr")
    client = client_for(team.annotator_fr)
    assert client.get(detail_url(english)).status_code == 404
    assert client.get(detail_url(french)).status_code == 200
    assert client_for(team.annotator_en).get(detail_url(english)).status_code == 200


def test_a_document_of_another_project_is_not_found_here(team: Team) -> None:
    elsewhere = DocumentFactory(project__slug="other-project")
    assert client_for(team.admin).get(detail_url(elsewhere)).status_code == 404
    assert client_for(team.outsider).get(detail_url(elsewhere)).status_code == 404


def test_the_list_shows_an_annotator_only_their_languages(team: Team) -> None:
    for language in ("en", "fr", "ar"):
        DocumentFactory(project=team.project, language=language, external_id=f"post-{language}")
    page = client_for(team.annotator_fr).get(list_url()).content.decode()
    assert "post-fr" in page
    assert "post-en" not in page and "post-ar" not in page
    # Asking for another language filters nothing open: the filter is refused, the scope stays.
    page = client_for(team.annotator_fr).get(list_url(language="en")).content.decode()
    assert "post-en" not in page
    assert "Some filters were ignored" in page
    page = client_for(team.lead).get(list_url()).content.decode()
    assert all(f"post-{language}" in page for language in ("en", "fr", "ar"))


def test_the_list_filters_by_language_status_and_external_id(team: Team) -> None:
    DocumentFactory(project=team.project, language="en", external_id="tweet-1")
    DocumentFactory(
        project=team.project, language="en", external_id="tweet-2", status=DocumentStatus.REVIEWED
    )
    DocumentFactory(project=team.project, language="fr", external_id="post-3")
    client = client_for(team.lead)
    assert "tweet-1" in client.get(list_url(language="en")).content.decode()
    assert "post-3" not in client.get(list_url(language="en")).content.decode()
    page = client.get(list_url(status="reviewed")).content.decode()
    assert "tweet-2" in page and "tweet-1" not in page
    page = client.get(list_url(q="TWEET")).content.decode()
    assert "tweet-1" in page and "tweet-2" in page and "post-3" not in page


def test_the_list_counts_spans_and_shows_the_assignee(team: Team) -> None:
    document = DocumentFactory(project=team.project, assignee=team.annotator_en)
    SpanFactory.create_batch(3, document=document)
    page = client_for(team.lead).get(list_url()).content.decode()
    assert '<td class="num">3</td>' in page
    assert team.annotator_en.username in page


def test_the_list_is_paginated_by_fifty_keeping_the_filters(team: Team) -> None:
    DocumentFactory.create_batch(51, project=team.project, language="en")
    client = client_for(team.lead)
    first = client.get(list_url(language="en")).content.decode()
    assert first.count("<tr>") == 51  # the header row and 50 documents
    assert "?language=en&amp;page=2" in first
    second = client.get(list_url(language="en", page="2")).content.decode()
    assert second.count("<tr>") == 2


def test_with_htmx_the_list_answers_only_its_table(team: Team) -> None:
    DocumentFactory(project=team.project, external_id="tweet-1")
    response = client_for(team.lead).get(list_url(q="tweet"), headers={"HX-Request": "true"})
    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="document-table"')
    assert "<html" not in page and "tweet-1" in page
    assert "HX-Request" in response["Vary"]


def test_the_list_costs_the_same_queries_for_many_documents_and_spans(team: Team) -> None:
    client = client_for(team.lead)
    DocumentFactory(project=team.project)
    client.get(list_url())
    with CaptureQueriesContext(connection) as few:
        client.get(list_url())
    for document in DocumentFactory.create_batch(20, project=team.project, assignee=team.admin):
        SpanFactory.create_batch(2, document=document)
    with CaptureQueriesContext(connection) as many:
        client.get(list_url())
    assert len(many) == len(few)


def test_the_page_and_the_api_list_the_same_documents(team: Team) -> None:
    for n, language in enumerate(["en", "fr", "en", "ar"]):
        document = DocumentFactory(project=team.project, language=language, external_id=f"d-{n}")
        SpanFactory.create_batch(n, document=document)
    api = reverse("api-document-list", args=["radical"])
    for user in (team.lead, team.annotator_en):
        page = client_for(user).get(list_url(q="d-")).content.decode()
        rows = re.findall(r'dir="auto">(d-\d)</a></td>.*?<td class="num">(\d+)</td>', page, re.S)
        listed = client_for(user).get(api, {"q": "d-"}).json()["results"]
        assert rows == [(row["external_id"], str(row["span_count"])) for row in listed]
        assert rows


def test_a_non_member_gets_404_on_the_list(team: Team) -> None:
    assert client_for(team.outsider).get(list_url()).status_code == 404


def test_only_highlights_against_the_paragraph_are_isolated_and_each_span_shows_its_label(
    team: Team,
) -> None:
    """In Arabic, "@name" is isolated left to right (its "@" stays in front), while an Arabic
    word after its proclitic ("ل" + "مخبز") and a phone number in Arabic-Indic digits are not
    isolated: letters join across the highlight's edge and the "+" stays where the paragraph
    puts it. The label comes after the span's last piece, outside the text."""
    text = "اتصل بـ @moshe_c على +٤٤ ٧٧٠٠ ٩٠٠٤٤٨ لمخبز"
    document = Document.objects.create(
        project=team.project, language="ar", external_id="ar-dir", text=text
    )
    for surface, label in [("@moshe_c", "USERNAME"), ("+٤٤ ٧٧٠٠ ٩٠٠٤٤٨", "PHONE"), ("مخبز", "LOC")]:
        start = text.index(surface)
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label=label, source=SpanSource.REGEX)  # fmt: skip
    page = client_for(team.lead).get(detail_url(document)).content.decode()
    marks = re.findall(r"<mark([^>]*)>(.*?)</mark>", page.split('class="doc-text"')[1])
    attributes = {html.unescape(surface): attrs for attrs, surface in marks}
    assert 'dir="ltr"' in attributes["@moshe_c"]
    assert "dir=" not in attributes["+٤٤ ٧٧٠٠ ٩٠٠٤٤٨"]
    assert "dir=" not in attributes["مخبز"]
    assert 'data-label="LOC"' in attributes["مخبز"]
    assert rendered_text(page) == text
    # In the span table too, a number reads in the document's direction, a handle in its own.
    assert 'dir="rtl" lang="ar">+٤٤ ٧٧٠٠ ٩٠٠٤٤٨</td>' in page
    assert 'dir="ltr" lang="ar">@moshe_c</td>' in page
