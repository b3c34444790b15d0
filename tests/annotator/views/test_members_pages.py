"""Issue 31: projects and members in the app, not Django's admin. A new project from a form
(languages, a preset's labels with some left out and some added), and its members added,
changed and removed from the members page; every role tried on every page."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    DocumentStatus,
    Membership,
    Project,
    Role,
)
from pseudonymizer.schemas import PRESETS, label_names
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

NEW = {
    "slug": "letters",
    "name": "Cover letters",
    "languages": ["en", "fr"],
    "other_languages": "pl",
    "preset": "basic",
    "labels": ["PER", "LOC", "ORG"],
    "custom_labels": "SCHOOL: a school or university\nEMPLOYER",
}


def _superuser() -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.org", "x-9-long-pw!")


def test_an_administrator_creates_a_project_from_the_form_and_becomes_its_admin() -> None:
    root = _superuser()
    client = client_for(root)
    page = client.get(reverse("project_new"))
    assert page.status_code == 200
    assert b'name="custom_labels"' in page.content and b"raw" not in page.content.lower()

    response = client.post(reverse("project_new"), NEW)
    assert response.status_code == 302 and response.url == reverse("members", args=["letters"])
    project = Project.objects.get(slug="letters")
    assert project.languages == ["en", "fr", "pl"]
    assert label_names(project.label_schema) == ["PER", "LOC", "ORG", "SCHOOL", "EMPLOYER"]
    assert project.label_schema["labels"][3]["description"] == "a school or university"
    assert Membership.objects.get(project=project, user=root).role == Role.ADMIN
    assert AuditEvent.objects.filter(action=AuditAction.PROJECT_CHANGE).exists()


def test_the_labels_follow_the_preset_chosen() -> None:
    client = client_for(_superuser())
    page = client.get(reverse("project_new_labels"), {"preset": "multigrascco"})
    assert page.status_code == 200
    for name in label_names(PRESETS["multigrascco"]):
        assert f'value="{name}"'.encode() in page.content


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"slug": "new"}, "choose another slug"),
        ({"labels": [], "custom_labels": ""}, "at least one label"),
        ({"custom_labels": "TWO WORDS here"}, "not a label"),
        ({"other_languages": "english"}, "not a language code"),
        ({"custom_labels": "PER"}, "appears twice"),
    ],
)
def test_a_bad_project_is_refused_with_its_reason_and_nothing_is_created(
    change: dict[str, Any], message: str
) -> None:
    client = client_for(_superuser())
    response = client.post(reverse("project_new"), {**NEW, **change})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Project.objects.exists()


def test_only_administrators_create_projects(team: Team) -> None:
    for user in (team.admin, team.lead, team.annotator_en, team.outsider):
        client = client_for(user)
        assert client.get(reverse("project_new")).status_code == 403
        assert client.post(reverse("project_new"), NEW).status_code == 403
        assert b"New project" not in client.get(reverse("home")).content
    assert Client().get(reverse("project_new")).status_code == 302  # to the login page
    granted = team.outsider
    granted.user_permissions.add(Permission.objects.get(codename="add_project"))
    granted = get_user_model().objects.get(pk=granted.pk)  # permissions are cached per object
    assert client_for(granted).get(reverse("project_new")).status_code == 200
    assert not Project.objects.filter(slug="letters").exists()


def test_the_members_page_for_every_role(team: Team) -> None:
    url = reverse("members", args=[team.project.slug])
    admin = client_for(team.admin).get(url)
    assert admin.status_code == 200 and b'id="member-add-form"' in admin.content
    lead = client_for(team.lead).get(url)
    assert lead.status_code == 200 and b'id="member-add-form"' not in lead.content
    assert team.annotator_en.username.encode() in lead.content
    assert client_for(team.annotator_en).get(url).status_code == 403
    assert client_for(team.outsider).get(url).status_code == 404
    assert Client().get(url).status_code == 302
    for user in (team.lead, team.annotator_en):
        client = client_for(user)
        body = {"username": team.outsider.username, "role": "admin", "languages": ["en"]}
        assert client.post(reverse("member_set", args=[team.project.slug]), body).status_code == 403
        removal = {"username": team.annotator_fr.username, "confirm": "on"}
        assert (
            client.post(reverse("member_remove", args=[team.project.slug]), removal).status_code
            == 403
        )
    assert not Membership.objects.filter(project=team.project, user=team.outsider).exists()


def test_an_admin_adds_changes_and_removes_a_member(team: Team) -> None:
    client = client_for(team.admin)
    slug = team.project.slug
    added = client.post(reverse("member_set", args=[slug]), {
        "username": "newcomer", "role": "annotator", "languages": ["ar"],
        "password": "a-long-enough-pw-42", "email": "n@example.org",
    })  # fmt: skip
    assert added.status_code == 302
    membership = Membership.objects.get(project=team.project, user__username="newcomer")
    assert (membership.role, membership.languages) == ("annotator", ["ar"])
    assert get_user_model().objects.get(username="newcomer").check_password("a-long-enough-pw-42")

    changed = client.post(reverse("member_set", args=[slug]), {
        "username": "newcomer", "role": "lead", "languages": [],
    })  # fmt: skip
    assert changed.status_code == 302
    assert Membership.objects.get(pk=membership.pk).role == "lead"

    held = DocumentFactory(project=team.project, language="fr", assignee=team.annotator_fr)
    done = DocumentFactory(project=team.project, language="fr", assignee=team.annotator_fr,
                           status=DocumentStatus.DONE)  # fmt: skip
    asked = client.post(reverse("member_remove", args=[slug]),
                        {"username": team.annotator_fr.username})  # fmt: skip
    assert asked.status_code == 200 and b'id="member-remove-confirm"' in asked.content
    assert Membership.objects.filter(project=team.project, user=team.annotator_fr).exists()
    removed = client.post(reverse("member_remove", args=[slug]),
                          {"username": team.annotator_fr.username, "confirm": "on"})  # fmt: skip
    assert removed.status_code == 302
    assert not Membership.objects.filter(project=team.project, user=team.annotator_fr).exists()
    assert Document.objects.get(pk=held.pk).assignee is None
    assert Document.objects.get(pk=done.pk).assignee == team.annotator_fr
    events = AuditEvent.objects.filter(action=AuditAction.MEMBER_CHANGE).order_by("pk")
    assert [e.detail["event"] for e in events][-3:] == ["added", "changed", "removed"]


def test_a_bad_member_is_refused_and_the_last_admin_stays(team: Team) -> None:
    client = client_for(team.admin)
    slug = team.project.slug
    refused = client.post(reverse("member_set", args=[slug]), {
        "username": "nobody-yet", "role": "annotator", "languages": ["en"],
    })  # fmt: skip
    assert refused.status_code == 400 and b"give a password" in refused.content
    no_language = client.post(reverse("member_set", args=[slug]), {
        "username": team.outsider.username, "role": "annotator", "languages": [],
    })  # fmt: skip
    assert no_language.status_code == 400
    assert not Membership.objects.filter(project=team.project, user=team.outsider).exists()
    Membership.objects.filter(project=team.project, role=Role.ADMIN).exclude(
        user=team.admin
    ).delete()
    last = client.post(reverse("member_remove", args=[slug]),
                       {"username": team.admin.username, "confirm": "on"}, follow=True)  # fmt: skip
    assert b"last admin" in last.content
    assert Membership.objects.filter(project=team.project, user=team.admin).exists()


def test_a_password_never_resets_an_existing_account_and_the_last_admin_stays_admin(
    team: Team,
) -> None:
    """A project's admin naming someone with a password would take over their account (a
    superuser's included): a password only creates one. And the last admin is not demoted."""
    root = _superuser()
    client = client_for(team.admin)
    slug = team.project.slug
    takeover = client.post(reverse("member_set", args=[slug]), {
        "username": root.username, "role": "annotator", "languages": ["en"],
        "password": "a-brand-new-pw-4242",
    })  # fmt: skip
    assert (
        takeover.status_code == 400 and b"a password is only for creating one" in takeover.content
    )
    root.refresh_from_db()
    assert not root.check_password("a-brand-new-pw-4242")
    assert not Membership.objects.filter(project=team.project, user=root).exists()

    Membership.objects.filter(project=team.project, role=Role.ADMIN).exclude(
        user=team.admin
    ).delete()
    demoted = client.post(reverse("member_set", args=[slug]), {
        "username": team.admin.username, "role": "lead", "languages": [],
    })  # fmt: skip
    assert demoted.status_code == 400 and b"last admin" in demoted.content
    assert Membership.objects.get(project=team.project, user=team.admin).role == Role.ADMIN
