"""/api/projects/{slug}/audit/: the audit log for admins, filtered, limit/offset, newest first."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotator.audit import audit_record
from annotator.models import AuditAction, AuditEvent
from tests.conftest import Team

pytestmark = pytest.mark.django_db


def api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def url(team: Team) -> str:
    return reverse("api-audit-list", kwargs={"slug": team.project.slug})


@pytest.fixture
def log(team: Team) -> None:
    for action, day, actor, target in [
        (AuditAction.KEY_READ, 1, team.lead, ""),
        (AuditAction.KEY_SEARCH, 2, team.lead, "entity:7"),
        (AuditAction.KEY_EDIT, 3, team.admin, "entity:7"),
        (AuditAction.ASSIGN, 4, team.admin, "doc:1"),
    ]:
        event = audit_record(
            action=action,
            actor=actor,
            project=team.project,
            target=target,
            detail={"day": day},
            ip_address=f"10.0.0.{day}",
        )
        moment = datetime(2026, 3, day, 12, tzinfo=UTC)
        AuditEvent.objects.filter(pk=event.pk).update(created_at=moment)
    audit_record(action=AuditAction.ASSIGN, project=None, target="doc:elsewhere")


def actions(team: Team, **params: Any) -> list[str]:
    response = api(team.admin).get(url(team), params)
    assert response.status_code == 200, response.json()
    return [event["action"] for event in response.json()["results"]]


def test_an_admin_reads_the_log_newest_first_with_who_what_and_where(team: Team, log: None) -> None:
    body = api(team.admin).get(url(team)).json()
    assert body["count"] == 4
    first = body["results"][0]
    assert first["action"] == "assign" and first["action_label"] == "Assigned documents"
    assert first["actor"] == team.admin.username
    assert first["target"] == "doc:1" and first["detail"] == {"day": 4}
    assert first["ip_address"] == "10.0.0.4"
    assert first["created_at"].startswith("2026-03-04T12:00:00")


def test_the_log_filters_and_pages(team: Team, log: None) -> None:
    assert actions(team, action="key_read,key_edit") == ["key_edit", "key_read"]
    assert actions(team, actor=team.lead.username.upper()) == ["key_search", "key_read"]
    assert actions(team, since="2026-03-02", until="2026-03-03") == ["key_edit", "key_search"]
    assert actions(team, target="ENTITY") == ["key_edit", "key_search"]
    assert actions(team, limit=2, offset=1) == ["key_edit", "key_search"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"action": "key_read,nonsense"}, "action"),
        ({"since": "March"}, "since"),
        ({"action": "key_read, key_edit"}, "action"),
        ({"limit": 0}, "limit"),
    ],
)
def test_a_bad_filter_is_a_400_that_names_it(
    team: Team, params: dict[str, Any], field: str
) -> None:
    response = api(team.admin).get(url(team), params)
    assert response.status_code == 400
    assert response.json()["detail"].startswith(f"{field}: ")


def test_reading_the_log_in_the_api_is_not_an_event(team: Team, log: None) -> None:
    api(team.admin).get(url(team))
    assert not AuditEvent.objects.filter(action=AuditAction.AUDIT_READ).exists()


@pytest.mark.parametrize(("role", "expected"), [("lead", 403), ("annotator_en", 403),
                                                 ("outsider", 404)])  # fmt: skip
def test_only_admins_read_the_log(team: Team, log: None, role: str, expected: int) -> None:
    response = api(team.by_role()[role]).get(url(team))
    assert response.status_code == expected
    assert "results" not in response.json()


def test_the_schema_documents_the_filters(team: Team) -> None:
    schema = api(team.admin).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/projects/{slug}/audit/"]["get"]
    names = {parameter["name"] for parameter in operation["parameters"]}
    assert {"action", "actor", "since", "until", "target", "limit", "offset"} <= names
    assert {"200", "400", "403", "404"} <= set(operation["responses"])
