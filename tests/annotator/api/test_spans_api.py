"""The span API, every endpoint as every role, and its answers to bad and stale requests."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotator.models import Document, DocumentStatus, Span, SpanSource, SpanStatus
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer. 👋🏽 Chaya."

# Who may do what on an English document: the annotator of French sees no such document.
EXPECTED = {
    "admin": True,
    "lead": True,
    "annotator_en": True,
    "annotator_fr": False,
    "outsider": False,
}


def api(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def document(team: Team) -> Document:
    return DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.PREANNOTATED)


def url(document: Document, span: Span | None = None, suffix: str = "") -> str:
    base = f"/api/projects/{document.project.slug}/documents/{document.pk}/spans/"
    return f"{base}{span.pk}/{suffix}" if span is not None else base


@pytest.mark.parametrize("role", [*EXPECTED, "anonymous"])
def test_every_span_endpoint_as_every_role(team: Team, document: Document, role: str) -> None:
    user = None if role == "anonymous" else team.by_role()[role]
    client = api(user)
    allowed = EXPECTED.get(role, False)
    denied = 401 if user is None else 404

    span = SpanFactory(document=document, start=12, end=23, label="PER", source="ner")
    listed = client.get(url(document))
    assert listed.status_code == (200 if allowed else denied)
    detail = client.get(url(document, span))
    assert detail.status_code == (200 if allowed else denied)
    suggestions = client.get(url(document, span, "suggestions/"))
    assert suggestions.status_code == (200 if allowed else denied)

    added = client.post(url(document), {"start": 28, "end": 49, "label": "ADDRESS"}, format="json")
    assert added.status_code == (201 if allowed else denied)
    patched = client.patch(url(document, span), {"version": 1, "status": "accepted"}, format="json")
    assert patched.status_code == (200 if allowed else denied)
    deleted = client.delete(url(document, span) + "?version=2")
    assert deleted.status_code == (204 if allowed else denied)

    spans = Span.objects.filter(document=document)
    if allowed:
        assert spans.count() == 2
        assert spans.get(pk=span.pk).status == SpanStatus.REJECTED
    else:
        assert list(spans.values_list("pk", "status", "version")) == [(span.pk, "proposed", 1)]


def test_a_span_has_its_contract_fields_and_never_the_text(team: Team, document: Document) -> None:
    SpanFactory(document=document, start=12, end=23, label="PER", source="ner", score=0.87)
    body = api(team.annotator_en).get(url(document)).json()
    (span,) = body["results"]
    assert {
        "id", "start", "end", "label", "source", "score", "status", "decision",
        "keep_reason", "replacement", "version", "flagged",
    } <= set(span)  # fmt: skip
    assert (span["start"], span["end"], span["status"], span["score"]) == (12, 23, "proposed", 0.87)
    assert "Moshe" not in str(body)


def test_accepting_shows_the_replacement_and_a_stale_version_answers_409_with_the_span(
    team: Team, document: Document
) -> None:
    span = SpanFactory(document=document, start=12, end=23, label="PER", source="ner")
    client = api(team.annotator_en)
    accepted = client.patch(
        url(document, span), {"version": 1, "replacement": "Raj Avrom"}, format="json"
    )
    assert accepted.status_code == 200, accepted.json()
    assert accepted.json()["replacement"] == "Raj Avrom"
    assert accepted.json()["status"] == "accepted" and accepted.json()["version"] == 2

    stale = api(team.lead).patch(
        url(document, span), {"version": 1, "status": "rejected"}, format="json"
    )
    assert stale.status_code == 409
    assert stale.json()["current"]["version"] == 2
    assert stale.json()["current"]["status"] == "accepted"
    assert Span.objects.get(pk=span.pk).status == SpanStatus.ACCEPTED


def test_a_surface_decided_otherwise_answers_409_with_the_winners_choice(
    team: Team, document: Document
) -> None:
    client = api(team.annotator_en)
    first = client.post(
        url(document), {"start": 12, "end": 23, "label": "PER", "replacement": "Raj Avrom"},
        format="json",
    )  # fmt: skip
    assert first.status_code == 201
    other = DocumentFactory(project=team.project, text="moshe chaya again")
    second = client.post(
        url(other), {"start": 0, "end": 11, "label": "PER", "decision": "keep",
                     "keep_reason": "famous"},
        format="json",
    )  # fmt: skip
    assert second.status_code == 409
    assert second.json()["winner"]["replacement"] == "Raj Avrom"
    assert not Span.objects.filter(document=other).exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"start": 30, "end": 10, "label": "PER"}, "not a span"),
        ({"start": 0, "end": 999, "label": "PER"}, "not a span"),
        ({"start": 12, "end": 23, "label": "NOPE"}, "unknown label"),
        ({"start": 12, "end": 23, "label": "PER", "decision": "burn"}, "decision"),
        ({"start": "x", "end": 23, "label": "PER"}, "start"),
        ({"end": 23, "label": "PER"}, "start"),
    ],
)
def test_bad_requests_answer_400_and_change_nothing(
    team: Team, document: Document, body: dict[str, Any], message: str
) -> None:
    answer = api(team.annotator_en).post(url(document), body, format="json")
    assert answer.status_code == 400
    assert message in str(answer.json())
    assert not Span.objects.filter(document=document).exists()


def test_the_offsets_after_an_emoji_are_code_points(team: Team, document: Document) -> None:
    start = TEXT.index("Chaya.", TEXT.index("👋"))
    answer = api(team.annotator_en).post(
        url(document), {"start": start, "end": start + 5, "label": "PER"}, format="json"
    )
    assert answer.status_code == 201, answer.json()
    span = Span.objects.get(pk=answer.json()["id"])
    assert TEXT[span.start : span.end] == "Chaya"


def test_delete_needs_the_version(team: Team, document: Document) -> None:
    span = SpanFactory(document=document, start=12, end=23, label="PER", source=SpanSource.HUMAN)
    client = api(team.annotator_en)
    assert client.delete(url(document, span)).status_code == 400
    assert client.delete(url(document, span) + "?version=7").status_code == 409
    assert client.delete(url(document, span) + "?version=1").status_code == 204


def test_suggestions_put_the_chosen_replacement_first_and_never_an_original(
    team: Team, document: Document
) -> None:
    client = api(team.annotator_en)
    client.post(
        url(document), {"start": 12, "end": 23, "label": "PER", "replacement": "Raj Avrom"},
        format="json",
    )  # fmt: skip
    other = DocumentFactory(project=team.project, text="Moshe Chaya and Dana Levi.")
    proposal = SpanFactory(document=other, start=0, end=11, label="PER", source="ner")
    body = client.get(url(other, proposal, "suggestions/")).json()
    assert body["chosen"] == "Raj Avrom"
    assert body["suggestions"][0] == "Raj Avrom"
    fresh = SpanFactory(document=other, start=16, end=25, label="PER", source="ner")
    body = client.get(url(other, fresh, "suggestions/")).json()
    assert body["chosen"] is None
    assert len(body["suggestions"]) >= 3
    assert not {"Moshe Chaya", "Raj Avrom", "Dana Levi"} & set(body["suggestions"])
    assert all(len(s.split()) == 2 for s in body["suggestions"])


def test_listing_spans_costs_the_same_queries_for_many_spans(
    team: Team, document: Document, django_assert_max_num_queries: Any
) -> None:
    client = api(team.annotator_en)
    for start in range(0, 10):
        SpanFactory(document=document, start=start, end=start + 1, label="PER", source="ner")
    with django_assert_max_num_queries(12):
        assert client.get(url(document)).status_code == 200
    for start in range(10, 40):
        SpanFactory(document=document, start=start, end=start + 1, label="PER", source="ner")
    with django_assert_max_num_queries(12):
        assert client.get(url(document)).status_code == 200


def test_marking_a_document_done_says_which_proposals_are_left(
    team: Team, document: Document
) -> None:
    span = SpanFactory(document=document, start=12, end=23, label="PER", source="ner")
    where = f"/api/projects/{team.project.slug}/documents/{document.pk}/"
    client = api(team.annotator_en)
    refused = client.patch(where, {"status": "done"}, format="json")
    assert refused.status_code == 400
    assert str(span.pk) in refused.json()["detail"]
    client.patch(url(document, span), {"version": 1, "status": "rejected"}, format="json")
    done = client.patch(where, {"status": "done"}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "done"
    assert api(team.annotator_fr).patch(where, {"status": "done"}, format="json").status_code == 404
    stale = client.patch(where, {"status": "in_progress", "version": 1}, format="json")
    assert stale.status_code == 409


def test_a_span_gone_answers_404_saying_it_is_no_longer_in_the_document(
    team: Team, document: Document
) -> None:
    span = SpanFactory(document=document, start=12, end=23, label="PER", source=SpanSource.NER)
    Span.objects.filter(pk=span.pk).delete()  # a run replaced it, or another person removed it
    client = api(team.annotator_en)
    patched = client.patch(url(document, span), {"version": 1, "status": "accepted"}, "json")
    deleted = client.delete(url(document, span) + "?version=1")
    for answer in (patched, deleted):
        assert answer.status_code == 404
        assert "no longer in the document" in answer.json()["detail"]
    assert not Span.objects.filter(document=document).exists()


def test_less_than_a_word_is_refused_400_until_confirmed(team: Team, document: Document) -> None:
    """Issue 29, 4: the API asks for `confirm` as the page asks for a click."""
    client = api(team.annotator_en)
    letter = {"start": 12, "end": 13, "label": "PER"}  # "M" of "Moshe"
    refused = client.post(url(document), letter, format="json")
    assert refused.status_code == 400
    assert "a single letter or digit" in refused.json()["detail"]
    assert "confirm" in refused.json()["detail"]
    assert not Span.objects.filter(document=document, source=SpanSource.HUMAN).exists()
    added = client.post(url(document), {**letter, "confirm": True}, format="json")
    assert added.status_code == 201, added.json()
    proposal = SpanFactory(document=document, start=28, end=31, label="ADDRESS",
                           source=SpanSource.NER)  # fmt: skip
    change = {"version": proposal.version, "status": "accepted"}
    assert client.patch(url(document, proposal), change, format="json").status_code == 200
