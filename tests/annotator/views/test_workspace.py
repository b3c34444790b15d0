"""The document page as a workspace: each action on a span goes through the span service, an
htmx request gets the workspace fragment back, and a stale form changes nothing."""

from __future__ import annotations

import html
import re

import pytest
from django.db import connection
from django.test import Client
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


# One browser for the annotator in each test: the undo stack lives in its session.
_annotators: dict[int, Client] = {}


@pytest.fixture(autouse=True)
def _fresh_annotators() -> None:
    _annotators.clear()


def annotator_of(team: Team) -> Client:
    user = team.annotator_en
    if user.pk not in _annotators:
        _annotators[user.pk] = client_for(user)
    return _annotators[user.pk]


def span_of(document: Document, surface: str) -> Span:
    return Span.objects.get(document=document, start=TEXT.index(surface))


def act(team: Team, span: Span, htmx: bool = True, **data: str) -> str:
    url = reverse("span_action", args=[team.project.slug, span.document_id, span.pk])
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = annotator_of(team).post(url, {"version": span.version, **data}, **headers)
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
    assert "<html" not in fragment and 'id="workspace"' not in fragment  # a patch, not the page
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


def undo(team: Team, document: Document) -> str:
    url = reverse("span_undo", args=[team.project.slug, document.pk])
    response = annotator_of(team).post(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


def patch_of(fragment: str) -> tuple[list[str], tuple[int, int] | None]:
    """The span ids of the rows a patch carries, and the stretch of text it re-renders."""
    rows = re.findall(r'<tr id="span-(\d+)"', fragment)
    text = re.search(r'data-patch="text" data-from="(\d+)" data-to="(\d+)"', fragment)
    return rows, (int(text[1]), int(text[2])) if text else None


def test_an_action_answers_with_only_what_changed(team: Team, document: Document) -> None:
    moshe, rue = span_of(document, "Moshe Chaya"), span_of(document, "Rue Alphonse")
    fragment = act(team, moshe, action="label", label="LOC")
    assert patch_of(fragment) == ([str(moshe.pk)], (moshe.start, moshe.end))
    assert str(rue.pk) not in fragment and "Rue Alphonse" not in fragment
    assert 'id="workspace-status"' in fragment and "2 proposals left" in fragment
    assert "Undo the new label" in fragment


def test_a_move_patches_the_text_over_the_old_and_the_new_edges(
    team: Team, document: Document
) -> None:
    moshe = span_of(document, "Moshe Chaya")
    fragment = act(team, moshe, action="move", edge="start", unit="word", extend="on")
    assert patch_of(fragment) == ([str(moshe.pk)], (0, moshe.end))
    assert '<mark class="hl c0" data-start="0" data-end="15"' in fragment


def test_an_added_span_rejects_the_proposal_it_overlaps_and_undo_brings_it_back(
    team: Team, document: Document
) -> None:
    rue = span_of(document, "Rue Alphonse")
    start = TEXT.index("Alphonse")
    url = reverse("span_add", args=[team.project.slug, document.pk])
    response = annotator_of(team).post(
        url, {"start": start, "end": start + len("Alphonse"), "label": "PER"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    added = Span.objects.get(document=document, source=SpanSource.HUMAN)
    rows, window = patch_of(response.content.decode())
    assert sorted(rows) == sorted([str(rue.pk), str(added.pk)])
    assert window == (rue.start, rue.end)
    assert Span.objects.get(pk=rue.pk).status == SpanStatus.REJECTED

    fragment = undo(team, document)
    assert not Span.objects.filter(pk=added.pk).exists()
    back = Span.objects.get(pk=rue.pk)
    assert back.status == SpanStatus.PROPOSED and back.version > rue.version
    assert f'data-removed="{added.pk}"' in fragment and "Undone: the span added." in fragment


@pytest.mark.parametrize(
    "action",
    [
        {"action": "accept"},
        {"action": "reject"},
        {"action": "label", "label": "LOC"},
        {"action": "move", "edge": "end", "unit": "char", "extend": "on"},
        {"action": "decide", "decision": "keep", "keep_reason": "a public figure"},
        {"action": "flag", "comment": "Is he a public figure?"},
    ],
    ids=lambda action: action["action"],
)
def test_undo_puts_a_span_back_as_it_was(
    team: Team, document: Document, action: dict[str, str]
) -> None:
    fields = ("start", "end", "label", "status", "decision", "keep_reason", "entity_id")
    span = span_of(document, "Moshe Chaya")
    before = {name: getattr(span, name) for name in fields}
    act(team, span, **action)
    assert (
        Span.objects.filter(pk=span.pk).values(*fields).get() != before
        or action["action"] == "flag"
    )
    undo(team, document)
    assert Span.objects.filter(pk=span.pk).values(*fields).get() == before
    assert not ReviewItem.objects.filter(span=span).exists()
    assert "Nothing to undo" in undo(team, document)


def test_undo_brings_back_the_pseudonym_chosen_before(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Ilan Peretz")  # fmt: skip
    assert surface_choice(team.project, "Moshe Chaya").replacement == "Ilan Peretz"  # type: ignore[union-attr]
    fragment = undo(team, document)
    assert surface_choice(team.project, "Moshe Chaya").replacement == "Raj Avrom"  # type: ignore[union-attr]
    assert "Raj Avrom" in fragment and "Moshe Chaya" in fragment  # its row, for its annotator


def test_undo_of_accept_all_puts_every_proposal_back(team: Team, document: Document) -> None:
    url = reverse("spans_bulk", args=[team.project.slug, document.pk])
    annotator_of(team).post(url, {"status": "rejected", "source": "ner"}, HTTP_HX_REQUEST="true")
    assert not Span.objects.filter(document=document, status=SpanStatus.PROPOSED).exists()
    assert "Undone: reject all." in undo(team, document)
    assert Span.objects.filter(document=document, status=SpanStatus.PROPOSED).count() == 2


def test_undo_never_takes_back_what_someone_changed_since(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="accept")
    span = span_of(document, "Moshe Chaya")
    lead = client_for(team.lead)  # the lead relabels it meanwhile
    lead.post(
        reverse("span_action", args=[team.project.slug, document.pk, span.pk]),
        {"version": span.version, "action": "label", "label": "LOC"},
    )
    fragment = undo(team, document)
    assert "nothing was undone" in fragment
    after = span_of(document, "Moshe Chaya")
    assert (after.status, after.label) == (SpanStatus.ACCEPTED, "LOC")


def test_an_action_costs_the_same_queries_for_two_spans_or_forty(team: Team) -> None:
    def queries(spans: int) -> int:
        text = " ".join(f"Name{n} Surname{n}" for n in range(spans))
        document = DocumentFactory(project=team.project, language="en", text=text)
        for n in range(spans):
            start = text.index(f"Name{n} ")
            Span.objects.create(
                document=document, start=start, end=start + len(f"Name{n}"), label="PER",
                source=SpanSource.NER,
            )  # fmt: skip
        span = Span.objects.filter(document=document).order_by("start")[spans // 2]
        url = reverse("span_action", args=[team.project.slug, document.pk, span.pk])
        client = client_for(team.annotator_en)
        with CaptureQueriesContext(connection) as captured:
            response = client.post(
                url, {"version": span.version, "action": "label", "label": "LOC"},
                HTTP_HX_REQUEST="true",
            )  # fmt: skip
        assert response.status_code == 200 and patch_of(response.content.decode())[0] == [
            str(span.pk)
        ]
        return len(captured.captured_queries)

    assert queries(2) == queries(40)


def test_the_page_is_never_stored_by_the_browser(team: Team, document: Document) -> None:
    url = reverse("document_detail", args=[team.project.slug, document.pk])
    response = client_for(team.annotator_en).get(url)
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    assert 'id="workspace-patch"' in page and "Undo" not in page.split('id="keys-legend"')[0]


def preview(team: Team, document: Document, strategy: str = "") -> str:
    url = reverse("document_preview", args=[team.project.slug, document.pk])
    response = annotator_of(team).get(
        url, {"strategy": strategy} if strategy else {}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    return response.content.decode()


def released_text(fragment: str) -> str:
    body = fragment.split('class="doc-text doc-released"')[1].split(">", 1)[1]
    return html.unescape(re.sub(r"<[^>]+>", "", body.rsplit("</div>", 2)[0]))


def test_the_preview_renders_the_decisions_under_each_strategy(
    team: Team, document: Document
) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    fragment = preview(team, document)  # the project's strategy: realistic
    assert released_text(fragment) == "Met Raj Avrom 👋 at Rue Alphonse Metayer."
    assert "1 proposal not decided yet stays as written" in fragment
    act(team, span_of(document, "Rue Alphonse"), action="decide", decision="delete")
    assert released_text(preview(team, document, "S3")) == "Met PER_1 👋 at ."
    assert released_text(preview(team, document, "S2")) == "Met PER 👋 at ."
    assert released_text(preview(team, document, "S0")) == "Met  👋 at ."
    assert "<html" not in preview(team, document, "S1")


def test_the_preview_says_why_a_document_cannot_be_released(team: Team, document: Document) -> None:
    # Two accepted spans across each other, as data imported from another tool may hold.
    start = TEXT.index("Chaya")
    Span.objects.create(document=document, start=start, end=TEXT.index("👋") + 1, label="PER",
                        source=SpanSource.IMPORT, status=SpanStatus.ACCEPTED)  # fmt: skip
    Span.objects.filter(pk=span_of(document, "Moshe Chaya").pk).update(status=SpanStatus.ACCEPTED)
    fragment = preview(team, document)
    assert "cannot be released as it is" in fragment and "overlap" in fragment
    assert "Moshe" not in fragment.split("cannot be released")[1]
    url = reverse("document_preview", args=[team.project.slug, document.pk])
    assert annotator_of(team).get(url, {"strategy": "S9"}).status_code == 400


def test_accepting_a_proposal_rejects_the_proposals_across_it(
    team: Team, document: Document
) -> None:
    start = TEXT.index("Chaya")  # a machine alternative across "Moshe Chaya"
    other = Span.objects.create(document=document, start=start, end=TEXT.index("👋") + 1,
                                label="PER", source=SpanSource.REGEX)  # fmt: skip
    fragment = act(team, span_of(document, "Moshe Chaya"), action="accept")
    assert Span.objects.get(pk=other.pk).status == SpanStatus.REJECTED
    assert f'<tr id="span-{other.pk}"' in fragment  # its row is patched too
    other.refresh_from_db()
    refused = act(team, other, action="accept")  # now across a person's span: refused
    assert "which a person decided" in refused
    assert Span.objects.get(pk=other.pk).status == SpanStatus.REJECTED
    undo(team, document)
    assert Span.objects.get(pk=other.pk).status == SpanStatus.PROPOSED
