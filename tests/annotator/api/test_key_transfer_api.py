"""/api/projects/{slug}/keys/export/ and /keys/import/: admins only, all or nothing, audited."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotator.keys.models import Alias
from annotator.keys.transfer import table_from_bytes
from annotator.models import AuditAction, AuditEvent, Membership, Role
from annotator.routers import keys_alias
from annotator.services.table import surface_choice, surface_decide
from tests.conftest import Team
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

PASSPHRASE = "a long enough passphrase"


def api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def decide(project: Any, surface: str, replacement: str) -> None:
    surface_decide(
        project=project,
        surface=surface,
        language="en",
        label="PER",
        decision="pseudonymize",
        replacement=replacement,
    )


def export(team: Team, passphrase: str = PASSPHRASE, user: Any = None) -> Any:
    url = reverse("api-key-export", kwargs={"slug": team.project.slug})
    return api(user or team.admin).post(url, {"passphrase": passphrase}, format="json")


def upload(slug: str, data: bytes, passphrase: str = PASSPHRASE, user: Any = None) -> Any:
    url = reverse("api-key-import", kwargs={"slug": slug})
    file = io.BytesIO(data)
    file.name = "keys.json.enc"
    return api(user).post(url, {"file": file, "passphrase": passphrase}, format="multipart")


def test_an_admin_exports_the_keys_and_imports_them_into_another_project(team: Team) -> None:
    decide(team.project, "Moshe Chaya", "Raj Avrom")
    response = export(team)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="radical-keys.json.enc"'
    assert "no-store" in response["Cache-Control"]
    assert b"Moshe" not in response.content
    table = table_from_bytes(response.content, PASSPHRASE)
    assert {a.surface for a in table.aliases} == {"Moshe Chaya", "Moshe", "Chaya"}

    other = ProjectFactory(slug="other")
    Membership.objects.create(project=other, user=team.admin, role=Role.ADMIN, languages=[])
    imported = upload("other", response.content, user=team.admin)
    assert imported.status_code == 200, imported.json()
    assert imported.json() == {"aliases": 3, "added": 3, "present": 0, "conflicts": 0,
                               "entities": 1}  # fmt: skip
    choice = surface_choice(other, "Moshe Chaya")
    assert choice is not None and choice.replacement == "Raj Avrom"
    again = upload("other", response.content, user=team.admin)
    assert again.json()["present"] == 3 and again.json()["added"] == 0


def test_a_short_passphrase_is_a_clear_400_and_nothing_is_exported(team: Team) -> None:
    response = export(team, "too short")
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "passphrase: Ensure this field has at least 12 characters."
    )
    assert not AuditEvent.objects.filter(action=AuditAction.KEY_EXPORT).exists()


def test_a_wrong_passphrase_is_a_clear_400_that_changes_nothing(team: Team) -> None:
    decide(team.project, "Moshe Chaya", "Raj Avrom")
    data = export(team).content
    response = upload("radical", data, "not the right one", user=team.admin)
    assert response.status_code == 400
    assert response.json() == {"detail": "wrong passphrase or damaged key file"}
    missing = api(team.admin).post(
        reverse("api-key-import", kwargs={"slug": "radical"}), {"passphrase": PASSPHRASE}
    )
    assert missing.status_code == 400
    assert missing.json()["detail"].startswith("file: ")


def test_a_conflicting_file_is_a_409_with_counts_and_rows_and_changes_nothing(
    team: Team,
) -> None:
    decide(team.project, "Moshe Chaya", "Raj Avrom")
    data = export(team).content
    other = ProjectFactory(slug="other")
    decide(other, "Moshe Chaya", "Tom Other")
    Membership.objects.create(project=other, user=team.admin, role=Role.ADMIN, languages=[])
    before = sorted(
        Alias.objects.using(keys_alias())
        .filter(project_id=other.pk)
        .values_list("pk", "replacement")
    )
    response = upload("other", data, user=team.admin)
    assert response.status_code == 409
    body = response.json()
    assert body["detail"].startswith("3 aliases of the file conflict")
    assert body["counts"]["conflicts"] == 3
    assert body["conflicts"][0] == {
        "row": 1, "entity": 1, "language": "en", "label": "PER",
        "reason": "the project gives this surface another replacement",
    }  # fmt: skip
    assert "Moshe" not in response.content.decode()
    after = Alias.objects.using(keys_alias()).filter(project_id=other.pk)
    assert sorted(after.values_list("pk", "replacement")) == before


@pytest.mark.parametrize(("role", "expected"), [("lead", 403), ("annotator_en", 403),
                                                 ("outsider", 404)])  # fmt: skip
def test_only_admins_export_or_import(team: Team, role: str, expected: int) -> None:
    decide(team.project, "Moshe Chaya", "Raj Avrom")
    user = team.by_role()[role]
    assert export(team, user=user).status_code == expected
    data = export(team).content
    assert upload("radical", data, user=user).status_code == expected
    events = AuditEvent.objects.values_list("action", "actor")
    assert list(events) == [(AuditAction.KEY_EXPORT, team.admin.pk)]
