"""The key export and import pages: admins only, a download or a clear answer, audited."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.urls import reverse

from annotator.keys.transfer import table_from_bytes, table_to_bytes
from annotator.models import AuditAction, AuditEvent
from annotator.services.table import surface_choice, surface_decide
from pseudonymizer.keytable import Alias as KeyAlias
from pseudonymizer.keytable import KeyTable
from tests.conftest import Team, client_for

pytestmark = pytest.mark.django_db

PASSPHRASE = "a long enough passphrase"


def decide(team: Team) -> None:
    surface_decide(
        project=team.project,
        surface="Moshe Chaya",
        language="en",
        label="PER",
        decision="pseudonymize",
        replacement="Raj Avrom",
    )


def export(team: Team, passphrase: str = PASSPHRASE, confirm: str | None = None) -> Any:
    url = reverse("key_export", kwargs={"slug": team.project.slug})
    data = {"passphrase": passphrase, "confirm": passphrase if confirm is None else confirm}
    return client_for(team.admin).post(url, data)


def upload(team: Team, data: bytes, passphrase: str = PASSPHRASE) -> Any:
    file = io.BytesIO(data)
    file.name = "keys.json.enc"
    url = reverse("key_import", kwargs={"slug": team.project.slug})
    return client_for(team.admin).post(url, {"file": file, "passphrase": passphrase})


def test_the_forms_show_and_are_never_cached(team: Team) -> None:
    for name, words in (
        ("key_export", "Download the encrypted key file"),
        ("key_import", "Import"),
    ):
        response = client_for(team.admin).get(reverse(name, kwargs={"slug": "radical"}))
        assert response.status_code == 200
        assert words in response.content.decode()
        assert "no-store" in response["Cache-Control"]


def test_an_export_is_the_encrypted_file_as_a_download_and_is_audited(team: Team) -> None:
    decide(team)
    response = export(team)
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="radical-keys.json.enc"'
    assert "no-store" in response["Cache-Control"]
    assert b"Moshe" not in response.content
    table = table_from_bytes(response.content, PASSPHRASE)
    assert table.lookup("moshe chaya").replacement == "Raj Avrom"  # type: ignore[union-attr]
    event = AuditEvent.objects.get(action=AuditAction.KEY_EXPORT)
    assert event.actor == team.admin and event.ip_address == "127.0.0.1"
    assert event.detail == {"aliases": 3, "entities": 1}


@pytest.mark.parametrize(
    ("passphrase", "confirm", "message"),
    [
        ("short", "short", "Ensure this value has at least 12 characters"),
        (PASSPHRASE, "something else entirely", "The two passphrases differ."),
        ("", "", "This field is required."),
    ],
)
def test_a_bad_passphrase_is_refused_with_a_clear_message(
    team: Team, passphrase: str, confirm: str, message: str
) -> None:
    response = export(team, passphrase, confirm)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not AuditEvent.objects.exists()


def test_an_import_says_what_it_added(team: Team) -> None:
    table = KeyTable(
        aliases=[
            KeyAlias("Jane Roe", "en", "Kim Lee", 1, "pseudonymize", "PER"),
            KeyAlias("Le Monde", "fr", "", 2, "keep", "ORG"),
        ]
    )
    response = upload(team, table_to_bytes(table, PASSPHRASE))
    assert response.status_code == 200
    text = " ".join(response.content.decode().split())
    assert "2 aliases added (2 new entities), 0 already in the table, of 2 in the file" in text
    choice = surface_choice(team.project, "Jane Roe")
    assert choice is not None and choice.replacement == "Kim Lee"
    assert AuditEvent.objects.get(action=AuditAction.KEY_IMPORT).detail["added"] == 2


def test_a_wrong_passphrase_or_a_conflict_is_a_clear_answer_that_changes_nothing(
    team: Team,
) -> None:
    decide(team)
    table = KeyTable(
        aliases=[
            KeyAlias("Jane Roe", "en", "Kim Lee", 1, "pseudonymize", "PER"),
            KeyAlias("Moshe Chaya", "en", "Tom Other", 2, "pseudonymize", "PER"),
        ]
    )
    data = table_to_bytes(table, PASSPHRASE)
    wrong = upload(team, data, "not the right passphrase")
    assert wrong.status_code == 400
    assert "wrong passphrase or damaged key file" in wrong.content.decode()
    refused = upload(team, data)
    assert refused.status_code == 409
    text = " ".join(refused.content.decode().split())
    assert "Nothing was imported." in text
    assert "the project gives this surface another replacement" in text
    assert "Moshe" not in text and "Jane" not in text
    assert surface_choice(team.project, "Jane Roe") is None
    outcomes = AuditEvent.objects.filter(action=AuditAction.KEY_IMPORT).order_by("pk")
    assert [e.detail["outcome"] for e in outcomes] == [
        "refused: unreadable or invalid file", "refused: conflicts",
    ]  # fmt: skip


@pytest.mark.parametrize("role", ["lead", "annotator_en", "outsider"])
def test_only_admins_reach_key_export_and_import(team: Team, role: str) -> None:
    decide(team)
    user = team.by_role()[role]
    expected = 404 if role == "outsider" else 403
    for name in ("key_export", "key_import"):
        url = reverse(name, kwargs={"slug": "radical"})
        assert client_for(user).get(url).status_code == expected
        data = {"passphrase": PASSPHRASE, "confirm": PASSPHRASE}
        assert client_for(user).post(url, data).status_code == expected
    assert not AuditEvent.objects.exists()
