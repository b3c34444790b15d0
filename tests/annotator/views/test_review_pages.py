"""The review queue's pages: the list, an item, resolving and commenting, the counts on the
project page, and what the annotator sees on their document."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.models import ReviewItem, ReviewKind, ReviewStatus, Span, SpanSource, SpanStatus
from annotator.services.review.resolve import review_resolve
from annotator.services.spans import SpanChange, span_update
from annotator.services.table import surface_decide
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."


@pytest.fixture
def flagged(team: Team) -> dict[str, Any]:
    choice = surface_decide(project=team.project, surface="Moshe Chaya", language="en",
                            label="PER", decision="pseudonymize", replacement="Raj Avrom",
                            actor=team.lead)  # fmt: skip
    document = DocumentFactory(project=team.project, text=TEXT, external_id="tweet-1")
    span = SpanFactory(document=document, source=SpanSource.HUMAN, status=SpanStatus.ACCEPTED,
                       decision="pseudonymize", entity_id=choice.entity_id)  # fmt: skip
    span_update(document=document, span_id=span.pk, actor=team.annotator_en,
                version=span.version, change=SpanChange(flag="Famous singer, keep?"))  # fmt: skip
    item = ReviewItem.objects.get(kind=ReviewKind.FLAG)
    return {"document": document, "span": span, "item": item}


def url(name: str, team: Team, **kwargs: Any) -> str:
    return reverse(name, kwargs={"slug": team.project.slug, **kwargs})


def test_the_lead_sees_the_queue_with_context_and_a_link_to_the_span(
    team: Team, flagged: dict[str, Any]
) -> None:
    response = client_for(team.lead).get(url("review_list", team))
    assert response.status_code == 200
    page = response.content.decode()
    item, document = flagged["item"], flagged["document"]
    assert f"#{item.pk}" in page and "Flagged by an annotator" in page
    assert f"{url('document_detail', team, pk=document.pk)}#span-{flagged['span'].pk}" in page
    assert "Moshe Chaya" in page  # the lead may see originals in context


def test_the_queue_filters_by_kind_status_and_language(team: Team, flagged: dict[str, Any]) -> None:
    client = client_for(team.lead)
    base = url("review_list", team)
    item_link = f"#{flagged['item'].pk}</a>"
    assert item_link not in client.get(f"{base}?kind=keep_conflict").content.decode()
    assert item_link not in client.get(f"{base}?language=fr").content.decode()
    assert item_link not in client.get(f"{base}?status=resolved").content.decode()
    assert item_link in client.get(f"{base}?kind=flag&language=en&status=all").content.decode()


def test_the_lead_resolves_an_item_from_its_page(team: Team, flagged: dict[str, Any]) -> None:
    item = flagged["item"]
    client = client_for(team.lead)
    detail = url("review_detail", team, pk=item.pk)
    page = client.get(detail).content.decode()
    assert "Famous singer, keep?" in page and "Rationale" in page

    refused = client.post(detail, {"action": "resolve", "decision": "keep", "rationale": ""})
    assert refused.status_code == 400
    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN

    done = client.post(detail, {"action": "resolve", "decision": "keep",
                                "rationale": "A public figure."})  # fmt: skip
    assert done.status_code == 302 and done["Location"] == url("review_list", team)
    item.refresh_from_db()
    assert item.status == ReviewStatus.RESOLVED and item.resolved_by == team.lead
    assert Span.objects.get(pk=flagged["span"].pk).decision == "keep"

    again = client.post(detail, {"action": "dismiss", "rationale": "Twice."})
    assert again.status_code == 409
    assert "already resolved" in again.content.decode()


def test_an_htmx_resolution_answers_with_the_item(team: Team, flagged: dict[str, Any]) -> None:
    detail = url("review_detail", team, pk=flagged["item"].pk)
    response = client_for(team.admin).post(
        detail, {"action": "dismiss", "rationale": "Fine."}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="review-item"' in page and "<html" not in page and "Resolution" in page


def test_a_comment_is_added_and_an_empty_one_refused(team: Team, flagged: dict[str, Any]) -> None:
    item = flagged["item"]
    client = client_for(team.lead)
    comment_url = url("review_comment", team, pk=item.pk)
    assert client.post(comment_url, {"body": "  "}).status_code == 400
    response = client.post(comment_url, {"body": "Checking the source."})
    assert response.status_code == 302
    assert list(item.comments.values_list("body", flat=True)) == [
        "Famous singer, keep?", "Checking the source.",
    ]  # fmt: skip


@pytest.mark.parametrize("role", ["annotator_en", "annotator_fr"])
def test_annotators_get_403_on_every_review_page(
    team: Team, flagged: dict[str, Any], role: str
) -> None:
    client = client_for(team.by_role()[role])
    pk = flagged["item"].pk
    assert client.get(url("review_list", team)).status_code == 403
    assert client.get(url("review_detail", team, pk=pk)).status_code == 403
    resolve = {"action": "resolve", "decision": "keep", "rationale": "Mine now."}
    assert client.post(url("review_detail", team, pk=pk), resolve).status_code == 403
    assert client.post(url("review_comment", team, pk=pk), {"body": "Hi"}).status_code == 403
    flagged["item"].refresh_from_db()
    assert flagged["item"].status == ReviewStatus.OPEN


def test_an_outsider_gets_404(team: Team, flagged: dict[str, Any]) -> None:
    client = client_for(team.outsider)
    assert client.get(url("review_list", team)).status_code == 404
    assert client.get(url("review_detail", team, pk=flagged["item"].pk)).status_code == 404


def test_the_project_page_counts_open_items_for_leads_and_own_flags_for_annotators(
    team: Team, flagged: dict[str, Any]
) -> None:
    lead_page = client_for(team.lead).get(url("project_detail", team)).content.decode()
    assert url("review_list", team) in lead_page
    assert "<strong>1</strong> Flagged by an annotator" in lead_page
    annotator_page = client_for(team.annotator_en).get(url("project_detail", team))
    text = annotator_page.content.decode()
    assert url("review_list", team) not in text
    assert "1 waiting for the lead, 0 resolved" in text
    other = client_for(team.annotator_fr).get(url("project_detail", team)).content.decode()
    assert "Your flags" not in other


def test_the_annotator_sees_the_lead_s_resolution_on_their_document(
    team: Team, flagged: dict[str, Any]
) -> None:
    document = url("document_detail", team, pk=flagged["document"].pk)
    client = client_for(team.annotator_en)
    assert "resolutions on this document" not in client.get(document).content.decode()
    review_resolve(item=flagged["item"], actor=team.lead, rationale="A well-known singer.",
                   decision="keep")  # fmt: skip
    page = client.get(document).content.decode()
    assert "resolutions on this document" in page
    assert f'href="#span-{flagged["span"].pk}"' in page
    assert "A well-known singer." in page and "<strong>Keep" in page


def test_an_item_shows_its_span_as_it_is_now_and_a_resolution_leads_to_the_next(
    team: Team, flagged: dict[str, Any]
) -> None:
    """Issue 31: the item shows the span now (status, decision, pseudonym), and resolving
    one goes on to the next open item, as a lead works through the queue."""
    item = flagged["item"]
    other_document = DocumentFactory(project=team.project, text=TEXT, external_id="tweet-2")
    other = SpanFactory(document=other_document, source=SpanSource.HUMAN,
                        status=SpanStatus.ACCEPTED, decision="pseudonymize",
                        entity_id=flagged["span"].entity_id)  # fmt: skip
    span_update(document=other_document, span_id=other.pk, actor=team.annotator_en,
                version=other.version, change=SpanChange(flag="Him again?"))  # fmt: skip
    second = ReviewItem.objects.exclude(pk=item.pk).get(kind=ReviewKind.FLAG)
    client = client_for(team.lead)

    page = client.get(url("review_detail", team, pk=item.pk)).content.decode()
    now = page.split('id="span-now"', 1)[1].split("</dl>", 1)[0]
    assert "Accepted" in now and "Pseudonymize" in now and "Raj Avrom" in now

    resolution = {"action": "resolve", "decision": "keep", "rationale": "Public."}
    done = client.post(url("review_detail", team, pk=item.pk), resolution)
    assert done.status_code == 302
    assert done["Location"] == url("review_detail", team, pk=second.pk)
    resolved = client.get(url("review_detail", team, pk=item.pk)).content.decode()
    assert 'id="review-next"' in resolved and f"#{second.pk}" in resolved
    now = resolved.split('id="span-now"', 1)[1].split("</dl>", 1)[0]
    assert "Keep" in now and "Raj Avrom" not in now  # as it is now: kept, no pseudonym

    last = client.post(url("review_detail", team, pk=second.pk),
                       {"action": "dismiss", "rationale": "Seen."})  # fmt: skip
    assert last["Location"] == url("review_list", team)


def test_one_city_decided_apart_links_both_entities_for_the_lead_to_merge(team: Team) -> None:
    from annotator.services.review.scan import review_scan

    city = surface_decide(project=team.project, surface="الإسكندرية", language="ar",
                          label="LOC", decision="pseudonymize", replacement="البويرة")  # fmt: skip
    headed = surface_decide(project=team.project, surface="مدينة الإسكندرية", language="ar",
                            label="LOC", decision="pseudonymize",
                            replacement="مدينة المغير")  # fmt: skip
    review_scan(project=team.project)
    item = ReviewItem.objects.get(kind=ReviewKind.NAMED_APART)
    page = client_for(team.lead).get(url("review_detail", team, pk=item.pk)).content.decode()
    assert 'id="named-apart"' in page
    for entity_id in (city.entity_id, headed.entity_id):
        assert url("key_entity", team, pk=entity_id) in page
