"""The audit log page and its CSV: admins read and filter it; reading it is audited where the
log leaves the application (the CSV), and nothing in it names an original."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from html import unescape
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotator.audit import audit_record, client_ip
from annotator.models import AuditAction, AuditEvent
from annotator.selectors.audit import detail_text
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db


def record(team: Team, action: str, when: str, *, actor: Any = None, **fields: Any) -> AuditEvent:
    event = audit_record(action=action, actor=actor or team.lead, project=team.project, **fields)
    moment = datetime.fromisoformat(when).replace(tzinfo=UTC)
    AuditEvent.objects.filter(pk=event.pk).update(created_at=moment)
    return event


@pytest.fixture
def log(team: Team) -> list[AuditEvent]:
    return [
        record(team, AuditAction.KEY_READ, "2026-03-01T09:00", detail={"shown": 25}),
        record(
            team,
            AuditAction.KEY_SEARCH,
            "2026-03-02T10:00",
            target="entity:7",
            detail={"shown": 1, "words": 2, "filters": {"label": "PER"}},
            ip_address="10.1.2.3",
        ),
        record(
            team,
            AuditAction.KEY_EDIT,
            "2026-03-03T23:59",
            actor=team.admin,
            target="entity:7",
            detail={"changed": ["replacement"]},
        ),
        record(team, AuditAction.ASSIGN, "2026-03-04T08:00", actor=team.admin, target="doc:1"),
    ]


def page(team: Team, **params: Any) -> Any:
    url = reverse("audit_list", kwargs={"slug": team.project.slug})
    return client_for(team.admin).get(url, params)


def shown(response: Any) -> list[str]:
    return [row.event.action for row in response.context["rows"]]


def test_the_log_shows_who_when_what_target_detail_and_where_newest_first(
    team: Team, log: list[AuditEvent]
) -> None:
    response = page(team)
    assert response.status_code == 200
    assert shown(response) == ["assign", "key_edit", "key_search", "key_read"]
    html = unescape(response.content.decode())
    assert "Searched the correspondence table" in html
    assert team.lead.username in html and team.admin.username in html
    assert "2026-03-02 10:00:00" in html and "10.1.2.3" in html
    assert 'shown=1, words=2, filters={"label":"PER"}' in html
    assert "no-store" in response["Cache-Control"]


def test_the_log_filters_by_actions_actor_dates_and_target(
    team: Team, log: list[AuditEvent]
) -> None:
    assert shown(page(team, action=["key_read", "key_edit"])) == ["key_edit", "key_read"]
    assert shown(page(team, actor=team.admin.username.upper())) == ["assign", "key_edit"]
    # Days are inclusive at both ends: 23:59 on the 3rd is in "until the 3rd".
    assert shown(page(team, since="2026-03-02", until="2026-03-03")) == ["key_edit", "key_search"]
    assert shown(page(team, target="ENTITY:")) == ["key_edit", "key_search"]
    assert shown(page(team, target="entity", actor=team.lead.username)) == ["key_search"]
    assert shown(page(team, actor="nobody")) == []
    assert "No event matches these filters" in page(team, actor="nobody").content.decode()


def test_a_bad_filter_is_a_400_that_says_why_and_filters_nothing(
    team: Team, log: list[AuditEvent]
) -> None:
    response = page(team, since="2026-03-05", until="2026-03-01")
    assert response.status_code == 400
    assert "must not come after" in response.content.decode()
    response = page(team, action="no_such_action")
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()


def test_the_log_pages_and_only_holds_its_own_project(team: Team) -> None:
    for number in range(53):
        audit_record(action=AuditAction.ASSIGN, project=team.project, target=f"doc:{number}")
    audit_record(action=AuditAction.ASSIGN, project=None, target="doc:elsewhere")
    first, second = page(team), page(team, page=2)
    assert len(first.context["rows"]) == 50 and len(second.context["rows"]) == 3
    assert second.context["rows"][-1].event.target == "doc:0"
    assert "doc:elsewhere" not in first.content.decode() + second.content.decode()


def test_looking_at_the_log_is_not_an_event(team: Team, log: list[AuditEvent]) -> None:
    page(team)
    page(team, action="key_read")
    assert not AuditEvent.objects.filter(action=AuditAction.AUDIT_READ).exists()


def test_the_csv_holds_the_filtered_log_and_its_download_is_audited(
    team: Team, log: list[AuditEvent]
) -> None:
    url = reverse("audit_export", kwargs={"slug": team.project.slug})
    response = client_for(team.admin).get(url, {"target": "entity", "since": "2026-03-01"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="radical-audit-')
    assert "no-store" in response["Cache-Control"]
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "when", "who", "action", "action_label", "target", "detail", "ip_address",
    ]  # fmt: skip
    assert [row[2] for row in rows[1:]] == ["key_edit", "key_search"]
    search = rows[2]
    assert search[0].startswith("2026-03-02T10:00:00")
    assert search[1:5] == [
        team.lead.username, "key_search", "Searched the correspondence table", "entity:7",
    ]  # fmt: skip
    assert search[5] == '{"filters":{"label":"PER"},"shown":1,"words":2}'
    assert search[6] == "10.1.2.3"
    read = AuditEvent.objects.get(action=AuditAction.AUDIT_READ)
    assert read.actor == team.admin and read.ip_address == "127.0.0.1"
    assert read.detail["format"] == "csv"
    assert read.detail["filters"]["target"] == "entity"
    assert read.detail["filters"]["since"] == "2026-03-01"


def test_the_csv_never_lets_a_spreadsheet_run_a_cell(team: Team) -> None:
    audit_record(action=AuditAction.IMPORT, project=team.project, target='=HYPERLINK("x")')
    url = reverse("audit_export", kwargs={"slug": team.project.slug})
    response = client_for(team.admin).get(url)
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    assert "'=HYPERLINK" in text
    assert "\n=HYPERLINK" not in text and ",=HYPERLINK" not in text


def test_a_bad_csv_filter_is_a_400_and_not_audited(team: Team) -> None:
    url = reverse("audit_export", kwargs={"slug": team.project.slug})
    response = client_for(team.admin).get(url, {"since": "yesterday"})
    assert response.status_code == 400
    assert "Enter a valid date" in response.content.decode()
    assert not AuditEvent.objects.filter(action=AuditAction.AUDIT_READ).exists()


@pytest.mark.parametrize("role", ["lead", "annotator_en", "outsider"])
def test_only_admins_read_the_log(team: Team, role: str) -> None:
    user = team.by_role()[role]
    expected = 404 if role == "outsider" else 403
    for name in ("audit_list", "audit_export"):
        url = reverse(name, kwargs={"slug": team.project.slug})
        assert client_for(user).get(url).status_code == expected
    assert not AuditEvent.objects.filter(action=AuditAction.AUDIT_READ).exists()


def test_the_client_address_is_the_peer_never_a_header_anyone_can_send(rf: Any) -> None:
    request = rf.get("/", REMOTE_ADDR="192.0.2.7", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert client_ip(request) == "192.0.2.7"
    assert client_ip(rf.get("/", REMOTE_ADDR="not an address")) is None
    assert client_ip(rf.get("/", REMOTE_ADDR="2001:db8::1")) == "2001:db8::1"


def test_a_long_detail_is_cut_in_one_line() -> None:
    text = detail_text({"ids": list(range(200))})
    assert len(text) == 160 and text.endswith("…")
    assert detail_text({}) == ""


def test_no_original_reaches_the_audit_log_when_surfaces_are_decided_keys_read_and_exported(
    team: Team,
) -> None:
    """Decide surfaces as an annotator does, read and search the keys, export and import
    them: no original in any event, nor in the log's page, API or CSV."""
    originals = ["Moshe Chaya", "Nadia Benali", "Moshe", "Chaya", "Nadia", "Benali"]
    document = DocumentFactory(
        project=team.project, language="en", text="Moshe Chaya met Nadia Benali."
    )
    client = APIClient()
    client.force_authenticate(team.annotator_en)
    spans = reverse("api-span-list", kwargs={"slug": team.project.slug, "pk": document.pk})
    for start, end in ((0, 11), (16, 28)):
        added = client.post(spans, {"start": start, "end": end, "label": "PER"}, format="json")
        assert added.status_code == 201, added.json()
    admin = client_for(team.admin)
    slug = {"slug": team.project.slug}
    keys = reverse("key_list", kwargs=slug)
    assert admin.get(keys).status_code == 200
    assert admin.get(keys, {"q": "Moshe Chaya"}, follow=True).status_code == 200
    exported = admin.post(
        reverse("key_export", kwargs=slug),
        {"passphrase": "a long passphrase", "confirm": "a long passphrase"},
    )
    assert exported.status_code == 200
    upload = io.BytesIO(exported.content)
    upload.name = "keys.json.enc"
    imported = admin.post(
        reverse("key_import", kwargs=slug),
        {"file": upload, "passphrase": "a long passphrase"},
    )
    assert imported.status_code == 200

    events = AuditEvent.objects.filter(project=team.project)
    actions = set(events.values_list("action", flat=True))
    assert {AuditAction.KEY_READ, AuditAction.KEY_SEARCH} <= actions
    assert {AuditAction.KEY_EXPORT, AuditAction.KEY_IMPORT} <= actions
    stored = " ".join(f"{e.target} {e.detail}" for e in events)
    log_page = admin.get(reverse("audit_list", kwargs=slug)).content.decode()
    log_api = admin.get(reverse("api-audit-list", kwargs=slug)).content.decode()
    log_csv = b"".join(admin.get(reverse("audit_export", kwargs=slug)).streaming_content)
    for text in (stored, log_page, log_api, log_csv.decode("utf-8-sig")):
        for original in originals:
            assert original.casefold() not in text.casefold(), original
        assert "a long passphrase" not in text
