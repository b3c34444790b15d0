"""The review queue's API: list with filters and paging, one item, resolve and dismiss."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from annotator.models import ReviewItem, ReviewKind, ReviewStatus, Span, SpanSource, SpanStatus
from annotator.services.spans import SpanChange, span_update
from annotator.services.table import surface_choice, surface_decide
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."


@pytest.fixture
def flagged(team: Team) -> dict[str, Any]:
    choice = surface_decide(project=team.project, surface="Moshe Chaya", language="en",
                            label="PER", decision="pseudonymize", replacement="Raj Avrom",
                            actor=team.lead)  # fmt: skip
    document = DocumentFactory(project=team.project, text=TEXT)
    span = SpanFactory(document=document, source=SpanSource.HUMAN, status=SpanStatus.ACCEPTED,
                       decision="pseudonymize", entity_id=choice.entity_id)  # fmt: skip
    span_update(document=document, span_id=span.pk, actor=team.annotator_en,
                version=span.version, change=SpanChange(flag="Keep?"))  # fmt: skip
    conflict = ReviewItem.objects.create(
        project=team.project, kind=ReviewKind.KEEP_CONFLICT, entity_id=choice.entity_id,
        detail={"language": "fr", "kept_in": ["fr"], "replaced_in": ["en"]}, fingerprint="x",
    )  # fmt: skip
    flag = ReviewItem.objects.get(kind=ReviewKind.FLAG)
    return {"flag": flag, "conflict": conflict, "span": span, "choice": choice}


def api(name: str, team: Team, **kwargs: Any) -> str:
    return reverse(name, kwargs={"slug": team.project.slug, **kwargs})


def post_json(client: Any, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, json.dumps(body), content_type="application/json")


def test_the_list_filters_and_pages(team: Team, flagged: dict[str, Any]) -> None:
    client = client_for(team.lead)
    listed = client.get(api("api-review-list", team)).json()
    assert listed["count"] == 2
    assert [row["kind"] for row in listed["results"]] == ["flag", "keep_conflict"]
    flag_row = listed["results"][0]
    assert flag_row["span"] == flagged["span"].pk and flag_row["language"] == "en"
    assert flag_row["comment_count"] == 1 and flag_row["raised_by"] == team.annotator_en.username
    by_kind = client.get(api("api-review-list", team), {"kind": "keep_conflict"}).json()
    assert [row["id"] for row in by_kind["results"]] == [flagged["conflict"].pk]
    by_language = client.get(api("api-review-list", team), {"language": "fr"}).json()
    assert [row["id"] for row in by_language["results"]] == [flagged["conflict"].pk]
    paged = client.get(api("api-review-list", team), {"limit": 1, "offset": 1}).json()
    assert len(paged["results"]) == 1 and paged["count"] == 2
    assert client.get(api("api-review-list", team), {"status": "resolved"}).json()["count"] == 0
    assert client.get(api("api-review-list", team), {"kind": "nope"}).status_code == 400
    assert client.get(api("api-review-list", team), {"colour": "red"}).status_code == 400


def test_an_item_comes_with_its_comments(team: Team, flagged: dict[str, Any]) -> None:
    response = client_for(team.admin).get(api("api-review-detail", team, pk=flagged["flag"].pk))
    assert response.status_code == 200
    body = response.json()
    assert [c["body"] for c in body["comments"]] == ["Keep?"]
    assert body["status"] == "open" and body["resolution"] == {}


def test_resolving_applies_the_decision_and_a_second_time_is_409(
    team: Team, flagged: dict[str, Any]
) -> None:
    client = client_for(team.lead)
    path = api("api-review-resolve", team, pk=flagged["flag"].pk)
    refused = post_json(client, path, {"decision": "pseudonymize", "replacement": "Dov Levi"})
    assert refused.status_code == 400 and "rationale" in refused.json()["detail"]
    missing = post_json(client, path, {"rationale": "Why not."})
    assert missing.status_code == 400 and "decision" in missing.json()["detail"]

    done = post_json(client, path, {"decision": "pseudonymize", "replacement": "Dov Levi",
                                    "rationale": "Closer in register."})  # fmt: skip
    assert done.status_code == 200
    body = done.json()
    assert body["status"] == "resolved" and body["resolved_by"] == team.lead.username
    assert body["resolution"]["replacement"] == "Dov Levi"
    chosen = surface_choice(team.project, "Moshe Chaya")
    assert chosen is not None and chosen.replacement == "Dov Levi"

    again = post_json(client, path, {"action": "dismiss", "rationale": "Again."})
    assert again.status_code == 409
    assert again.json()["current"]["status"] == "resolved"


def test_dismissing_changes_nothing_else(team: Team, flagged: dict[str, Any]) -> None:
    path = api("api-review-resolve", team, pk=flagged["conflict"].pk)
    response = post_json(client_for(team.admin), path,
                         {"action": "dismiss", "rationale": "Both right."})  # fmt: skip
    assert response.status_code == 200 and response.json()["resolution"] == {"action": "dismiss"}
    assert Span.objects.get(pk=flagged["span"].pk).decision == "pseudonymize"


@pytest.mark.parametrize("role", ["annotator_en", "annotator_fr"])
def test_annotators_get_403_and_change_nothing(
    team: Team, flagged: dict[str, Any], role: str
) -> None:
    client = client_for(team.by_role()[role])
    pk = flagged["flag"].pk
    assert client.get(api("api-review-list", team)).status_code == 403
    assert client.get(api("api-review-detail", team, pk=pk)).status_code == 403
    body = {"decision": "keep", "rationale": "Mine."}
    assert post_json(client, api("api-review-resolve", team, pk=pk), body).status_code == 403
    assert ReviewItem.objects.get(pk=pk).status == ReviewStatus.OPEN


def test_outsiders_get_404_and_items_of_another_project_are_not_found(
    team: Team, flagged: dict[str, Any]
) -> None:
    outsider = client_for(team.outsider)
    assert outsider.get(api("api-review-list", team)).status_code == 404
    assert outsider.get(api("api-review-detail", team, pk=flagged["flag"].pk)).status_code == 404
    # The outsider is an admin of "elsewhere": this project's item is not there.
    elsewhere = reverse("api-review-detail", kwargs={"slug": "elsewhere", "pk": flagged["flag"].pk})
    assert outsider.get(elsewhere).status_code == 404


def test_no_item_of_the_api_holds_an_original(team: Team, flagged: dict[str, Any]) -> None:
    listed = client_for(team.lead).get(api("api-review-list", team), {"status": "all"})
    assert "moshe" not in listed.content.decode().lower()


def test_the_schema_documents_the_review_endpoints(team: Team) -> None:
    schema = client_for(team.lead).get(reverse("api-schema"), {"format": "json"}).json()
    resolve = schema["paths"]["/api/projects/{slug}/review/{id}/resolve/"]["post"]
    assert {"200", "400", "403", "404", "409"} <= set(resolve["responses"])
    listing = schema["paths"]["/api/projects/{slug}/review/"]["get"]
    names = {parameter["name"] for parameter in listing["parameters"]}
    assert {"kind", "status", "language", "limit", "offset"} <= names
