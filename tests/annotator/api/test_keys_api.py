"""The correspondence table's API: leads and admins only, audited, 409 on a stale version."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.models import AuditAction, AuditEvent, Span
from annotator.services.table import Choice, surface_decide
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db


def decide(team: Team, surface: str, replacement: str | None = None, **kw: Any) -> Choice:
    options: dict[str, Any] = {"language": "en", "label": "PER", "decision": "pseudonymize"}
    options.update(kw)
    return surface_decide(project=team.project, surface=surface, replacement=replacement, **options)


def url(team: Team, name: str, pk: int | None = None) -> str:
    kwargs: dict[str, Any] = {"slug": team.project.slug}
    if pk is not None:
        kwargs["pk"] = pk
    return reverse(name, kwargs=kwargs)


def test_the_list_searches_and_pages_and_shows_originals_to_a_lead(team: Team) -> None:
    moshe = decide(team, "Moshe Chaya", "Raj Avrom")
    decide(team, "موشيه حايا", language="ar")
    decide(team, "Tom Reddle", "Sam Bell")
    client = client_for(team.lead)
    body = client.get(url(team, "api-entity-list"), {"q": "CHAYA"}).json()
    assert body["count"] == 1
    (entity,) = body["results"]
    assert entity["id"] == moshe.entity_id
    assert [a["original"] for a in entity["aliases"] if not a["token"]] == ["Moshe Chaya"]
    page = client.get(url(team, "api-entity-list"), {"limit": 2, "offset": 2}).json()
    assert page["count"] == 3 and len(page["results"]) == 1
    arabic = client.get(url(team, "api-entity-list"), {"language": "ar"}).json()
    assert [a["original"] for a in arabic["results"][0]["aliases"]][0] == "موشيه حايا"


def test_reads_are_audited_without_the_query(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    client = client_for(team.admin)
    client.get(url(team, "api-entity-list"), {"q": "moshe chaya", "label": "PER"})
    client.get(url(team, "api-entity-list"))
    search = AuditEvent.objects.get(action=AuditAction.KEY_SEARCH)
    assert search.actor == team.admin and search.ip_address == "127.0.0.1"
    assert search.detail["query"] is True and search.detail["query_words"] == 2
    assert search.detail["label"] == "PER"
    assert "moshe" not in str(search.detail).lower()
    assert AuditEvent.objects.filter(action=AuditAction.KEY_READ).count() == 1


def test_patch_edits_a_replacement_and_a_stale_version_is_a_409(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    client = client_for(team.lead)
    detail = url(team, "api-entity-detail", choice.entity_id)
    body = {"version": 1, "replacements": [{"alias": choice.alias_id, "replacement": "Ezra Lamm"}]}
    response = client.patch(detail, body, content_type="application/json")
    assert response.status_code == 200, response.json()
    assert response.json()["version"] == 2
    stale = client.patch(detail, body, content_type="application/json")
    assert stale.status_code == 409
    assert stale.json()["current"]["version"] == 2
    edits = AuditEvent.objects.filter(action=AuditAction.KEY_EDIT).order_by("pk")
    assert [event.detail.get("refused") for event in edits] == [None, "stale"]


def test_a_replacement_found_in_a_document_is_a_400_that_changes_nothing(team: Team) -> None:
    DocumentFactory(project=team.project)  # "… At Rue Alphonse Metayer."
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    response = client_for(team.lead).patch(
        url(team, "api-entity-detail", choice.entity_id),
        {"version": 1, "replacements": [{"alias": choice.alias_id, "replacement": "Metayer"}]},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "occurs in a document" in response.json()["detail"]
    assert (
        client_for(team.lead)
        .get(url(team, "api-entity-detail", choice.entity_id))
        .json()["version"]
        == 1
    )


def test_merge_split_and_link_through_the_api(team: Team) -> None:
    english = decide(team, "Moshe Chaya", "Raj Avrom")
    arabic = decide(team, "موشيه حايا", language="ar")
    document = DocumentFactory(project=team.project, language="ar", text="قال موشيه حايا شيئا")
    span = SpanFactory(document=document, start=4, end=14, status="accepted")
    Span.objects.filter(pk=span.pk).update(entity_id=arabic.entity_id)
    client = client_for(team.lead)
    candidates = client.get(url(team, "api-entity-candidates")).json()
    assert [(c["entity_id"], c["other_id"]) for c in candidates] == [
        (english.entity_id, arabic.entity_id)
    ]
    merged = client.post(
        url(team, "api-entity-merge", english.entity_id),
        {"other": arabic.entity_id, "version": 1, "other_version": 1},
        content_type="application/json",
    )
    assert merged.status_code == 200, merged.json()
    assert Span.objects.get(pk=span.pk).entity_id == english.entity_id
    split = client.post(
        url(team, "api-entity-split", english.entity_id),
        {"aliases": [arabic.alias_id], "version": 2},
        content_type="application/json",
    )
    assert split.status_code == 201, split.json()
    new = split.json()["new"]["id"]
    assert Span.objects.get(pk=span.pk).entity_id == new
    linked = client.post(
        url(team, "api-entity-link", english.entity_id),
        {"alias": arabic.alias_id, "version": 3},
        content_type="application/json",
    )
    assert linked.status_code == 200, linked.json()
    assert Span.objects.get(pk=span.pk).entity_id == english.entity_id
    gone = client.get(url(team, "api-entity-detail", new))
    assert gone.status_code == 404


def test_a_merge_of_differently_decided_entities_needs_a_decision(team: Team) -> None:
    english = decide(team, "Moshe Chaya", "Raj Avrom")
    kept = decide(team, "Tom Reddle", decision="keep", keep_reason="public figure")
    response = client_for(team.admin).post(
        url(team, "api-entity-merge", english.entity_id),
        {"other": kept.entity_id, "version": 1, "other_version": 1},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "say which decision" in response.json()["detail"]


@pytest.mark.parametrize("role", ["annotator_en", "annotator_fr", "outsider"])
def test_no_annotator_or_outsider_ever_sees_an_original(team: Team, role: str) -> None:
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    client = client_for(team.by_role()[role])
    for name, pk in [
        ("api-entity-list", None),
        ("api-entity-candidates", None),
        ("api-entity-detail", choice.entity_id),
    ]:
        response = client.get(url(team, name, pk))
        assert response.status_code in (403, 404)
        assert "Moshe" not in response.content.decode()
    response = client.patch(
        url(team, "api-entity-detail", choice.entity_id),
        {"version": 1, "decision": "delete"},
        content_type="application/json",
    )
    assert response.status_code in (403, 404)
    assert not AuditEvent.objects.filter(action__startswith="key_").exists()


def test_a_lead_of_another_project_gets_404(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    response = client_for(team.outsider).get(url(team, "api-entity-detail", choice.entity_id))
    assert response.status_code == 404
