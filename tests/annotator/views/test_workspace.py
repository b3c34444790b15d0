"""The document page as a workspace: each action on a span goes through the span service, an
htmx request gets the workspace fragment back, and a stale form changes nothing."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.keys.services import surface_choice, surface_decide
from annotator.models import Document, DocumentStatus, ReviewItem, Span, SpanSource, SpanStatus
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

TEXT = "Met Moshe Chaya 👋 at Rue Alphonse Metayer."


@pytest.fixture
def document(team: Team) -> Document:
    document = DocumentFactory(
        project=team.project, language="en", text=TEXT, assignee=team.annotator_en,
        status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip
    for surface, label in [("Moshe Chaya", "PER"), ("Rue Alphonse Metayer", "ADDRESS")]:
        start = TEXT.index(surface)
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label=label, source=SpanSource.NER, score=0.9)  # fmt: skip
    return document


def span_of(document: Document, surface: str) -> Span:
    return Span.objects.get(document=document, start=TEXT.index(surface))


def act(team: Team, span: Span, htmx: bool = True, **data: str) -> str:
    url = reverse("span_action", args=[team.project.slug, span.document_id, span.pk])
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client_for(team.annotator_en).post(url, {"version": span.version, **data}, **headers)
    assert response.status_code == (200 if htmx else 302)
    return response.content.decode()


def test_the_page_offers_an_action_for_each_span(team: Team, document: Document) -> None:
    url = reverse("document_detail", args=[team.project.slug, document.pk])
    page = client_for(team.annotator_en).get(url).content.decode()
    assert page.count('value="accept"') == 2 and "Mark done, next document" in page
    assert "2 proposals left to decide" in page
    assert page.count('name="version"') == 2  # one light form a span; its editor on demand
    span = span_of(document, "Moshe Chaya")
    editor = client_for(team.annotator_en).get(
        reverse("span_editor", args=[team.project.slug, document.pk, span.pk])
    )
    fragment = editor.content.decode()
    for action in ("label", "decide", "flag"):
        assert f'value="{action}"' in fragment
    assert fragment.count("data-suggestion=") == 5 and "<html" not in fragment


def test_accepting_records_a_pseudonym_and_answers_the_fragment(
    team: Team, document: Document
) -> None:
    fragment = act(team, span_of(document, "Moshe Chaya"), action="accept")
    span = span_of(document, "Moshe Chaya")
    assert span.status == SpanStatus.ACCEPTED and span.decided_by == team.annotator_en
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None and choice.replacement in fragment
    assert fragment.lstrip().startswith('<div id="workspace"') and "<html" not in fragment
    assert "1 proposal left to decide" in fragment


def test_relabel_decide_keep_and_flag(team: Team, document: Document) -> None:
    act(team, span_of(document, "Rue Alphonse"), action="label", label="LOC")
    assert span_of(document, "Rue Alphonse").label == "LOC"
    act(team, span_of(document, "Rue Alphonse"), action="decide", decision="keep",
        keep_reason="a public place")  # fmt: skip
    kept = span_of(document, "Rue Alphonse")
    assert (kept.decision, kept.keep_reason, kept.status) == ("keep", "a public place", "accepted")
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    assert surface_choice(team.project, "moshe chaya").replacement == "Raj Avrom"  # type: ignore[union-attr]
    act(team, span_of(document, "Moshe Chaya"), action="flag", comment="Is he a public figure?")
    assert ReviewItem.objects.filter(span=span_of(document, "Moshe Chaya")).exists()


def test_a_stale_form_changes_nothing_and_shows_the_span_as_it_is(
    team: Team, document: Document
) -> None:
    span = span_of(document, "Moshe Chaya")
    act(team, span, action="reject")  # the form of another tab, now stale:
    fragment = act(team, span, action="accept")
    assert "changed since you opened it" in fragment
    assert span_of(document, "Moshe Chaya").status == SpanStatus.REJECTED


def test_a_refused_action_says_why(team: Team, document: Document) -> None:
    fragment = act(team, span_of(document, "Moshe Chaya"), action="decide", decision="keep")
    assert "say why the span is kept" in fragment
    fragment = act(team, span_of(document, "Moshe Chaya"), action="label", label="NOPE")
    assert "NOPE" in fragment and span_of(document, "Moshe Chaya").label == "PER"


def test_without_htmx_an_action_comes_back_to_the_span(team: Team, document: Document) -> None:
    span = span_of(document, "Moshe Chaya")
    url = reverse("span_action", args=[team.project.slug, document.pk, span.pk])
    response = client_for(team.annotator_en).post(
        url, {"version": span.version, "action": "reject"}
    )
    detail = reverse("document_detail", args=[team.project.slug, document.pk])
    assert response["Location"] == f"{detail}#span-{span.pk}"
    assert span_of(document, "Moshe Chaya").status == SpanStatus.REJECTED


def test_done_needs_every_proposal_decided_then_opens_the_next(
    team: Team, document: Document
) -> None:
    following = DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    annotator = client_for(team.annotator_en)
    done_url = reverse("document_done", args=[team.project.slug, document.pk])
    refused = annotator.post(done_url)
    assert refused["Location"] == reverse("document_detail", args=[team.project.slug, document.pk])
    assert Document.objects.get(pk=document.pk).status != DocumentStatus.DONE
    for surface in ("Moshe Chaya", "Rue Alphonse"):
        act(team, span_of(document, surface), action="reject")
    response = annotator.post(done_url)
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.DONE
    assert response["Location"] == reverse(
        "document_detail", args=[team.project.slug, following.pk]
    )


def test_the_page_costs_the_same_queries_for_two_spans_or_forty(team: Team) -> None:
    def queries(spans: int) -> int:
        text = " ".join(f"Name{n} Surname{n}" for n in range(spans))
        document = DocumentFactory(project=team.project, language="en", text=text)
        for n in range(spans):
            start = text.index(f"Name{n} ")
            status = SpanStatus.ACCEPTED if n % 2 else SpanStatus.PROPOSED
            Span.objects.create(
                document=document, start=start, end=start + len(f"Name{n}"), label="PER",
                source=SpanSource.NER, status=status,
            )  # fmt: skip
        url = reverse("document_detail", args=[team.project.slug, document.pk])
        client = client_for(team.annotator_en)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured.captured_queries)

    assert queries(2) == queries(40)


def test_accept_all_of_a_label_and_reject_all_of_a_source(team: Team, document: Document) -> None:
    extra = TEXT.index("Met")
    Span.objects.create(document=document, start=extra, end=extra + 3, label="PER",
                        source=SpanSource.REGEX)  # fmt: skip
    url = reverse("spans_bulk", args=[team.project.slug, document.pk])
    annotator = client_for(team.annotator_en)
    fragment = annotator.post(
        url, {"status": "accepted", "label": "PER"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "2 proposals accepted." in fragment
    statuses = dict(Span.objects.filter(document=document).values_list("start", "status"))
    assert statuses == {extra: "accepted", TEXT.index("Moshe"): "accepted",
                        TEXT.index("Rue"): "proposed"}  # fmt: skip
    fragment = annotator.post(
        url, {"status": "rejected", "source": "ner"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "1 proposal rejected." in fragment
    assert span_of(document, "Rue Alphonse").status == SpanStatus.REJECTED
    refused = annotator.post(url, {"status": "accepted"}, HTTP_HX_REQUEST="true").content.decode()
    assert "choose a label or a source" in refused


def test_accept_all_leaves_a_proposal_whose_surface_was_decided_otherwise(
    team: Team, document: Document
) -> None:
    surface_decide(project=team.project, surface="Moshe Chaya", language="en", label="PER",
                   decision="keep", keep_reason="a public figure")  # fmt: skip
    url = reverse("spans_bulk", args=[team.project.slug, document.pk])
    fragment = (
        client_for(team.annotator_en)
        .post(url, {"status": "accepted", "label": "PER"}, HTTP_HX_REQUEST="true")
        .content.decode()
    )
    assert "0 proposals accepted. 1 left" in fragment
    assert span_of(document, "Moshe Chaya").status == SpanStatus.PROPOSED


def test_suggestions_offer_the_chosen_pseudonym_first_and_save_one(
    team: Team, document: Document
) -> None:
    surface_decide(project=team.project, surface="Moshe Chaya", language="en", label="PER",
                   decision="pseudonymize", replacement="Raj Avrom")  # fmt: skip
    span = span_of(document, "Moshe Chaya")
    url = reverse("span_suggestions", args=[team.project.slug, document.pk, span.pk])
    fragment = client_for(team.annotator_en).get(url).content.decode()
    assert fragment.count("data-suggestion=") == 5
    assert fragment.index("Raj Avrom") < fragment.index('data-suggestion="2"')
    assert "Moshe Chaya" not in fragment


def test_an_edge_moves_by_a_word_and_by_a_whole_character(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="move", edge="start", unit="word",
        extend="on")  # fmt: skip
    span = Span.objects.get(document=document, label="PER")
    assert TEXT[span.start : span.end] == "Met Moshe Chaya"
    act(team, span, action="move", edge="end", unit="char", extend="on")
    span.refresh_from_db()
    assert TEXT[span.start : span.end] == "Met Moshe Chaya 👋"
    editor = client_for(team.annotator_en).get(
        reverse("span_editor", args=[team.project.slug, document.pk, span.pk])
    )
    assert editor.content.decode().count('name="action" value="move"') == 8
