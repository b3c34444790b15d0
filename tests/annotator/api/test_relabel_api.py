"""Through the API: a decided PER span relabelled DATE gets a replacement drawn for DATE, and
the table a lead reads says DATE; an annotator relabels, only a lead or an admin reads the
table."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotator.models import AuditAction, AuditEvent, DocumentStatus
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

TEXT = "We met Tuesday at noon 👋🏽 and Tuesday again."
DAYS = {"Monday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}


def api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize(
    ("reader", "reads"), [("lead", True), ("admin", True), ("annotator_en", False)]
)
def test_a_decided_person_relabelled_date_gets_a_date_and_the_table_says_date(
    team: Team, reader: str, reads: bool
) -> None:
    document = DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.PREANNOTATED)
    spans = reverse("api-span-list", kwargs={"slug": team.project.slug, "pk": document.pk})
    annotator = api(team.annotator_en)
    start = TEXT.rindex("Tuesday")  # after the emoji: offsets in code points
    created = annotator.post(
        spans, {"start": start, "end": start + 7, "label": "PER"}, format="json"
    )
    assert created.status_code == 201, created.content
    span = created.json()
    person = span["replacement"]
    assert person and person not in DAYS

    patched = annotator.patch(
        f"{spans}{span['id']}/", {"version": span["version"], "label": "DATE"}, format="json"
    )

    assert patched.status_code == 200, patched.content
    body = patched.json()
    assert body["label"] == "DATE" and body["entity_id"] == span["entity_id"]
    assert body["replacement"] in DAYS  # drawn for a date, not the person's name
    entity = reverse(
        "api-entity-detail", kwargs={"slug": team.project.slug, "pk": span["entity_id"]}
    )
    read = api(team.by_role()[reader]).get(entity)
    assert read.status_code in ((200,) if reads else (403, 404))
    if reads:
        table = read.json()
        assert table["label"] == "DATE"
        (name,) = [alias for alias in table["aliases"] if not alias["token"]]
        assert name["original"] == "Tuesday" and name["replacement"] == body["replacement"]
    else:
        assert "Tuesday" not in read.content.decode()
    edit = AuditEvent.objects.get(action=AuditAction.KEY_EDIT)
    assert edit.actor == team.annotator_en and edit.target == f"entity:{span['entity_id']}"
    assert edit.detail["label"] == ["PER", "DATE"]
    assert "Tuesday" not in str(edit.detail) and person not in str(edit.detail)
    # The project's log shows it, by ids and labels.
    log = reverse("api-audit-list", kwargs={"slug": team.project.slug})
    (row,) = api(team.admin).get(log, {"action": "key_edit"}).json()["results"]
    assert row["target"] == edit.target and row["detail"]["action"] == "relabel"
