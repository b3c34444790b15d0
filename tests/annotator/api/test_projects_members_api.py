"""Creating projects and managing their members through the API, as every role: Cloak's
administrators create projects (a project's admin does not, by that role); a project's admin
adds, changes and removes its members, its lead only sees them, an annotator does neither,
an outsider is told the project does not exist, and an anonymous caller is asked to sign in.
Every write is audited; a refused one changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from annotator.models import AuditAction, AuditEvent, Document, DocumentStatus, Membership, Project
from annotator.services.tokens import api_token_issue
from pseudonymizer.schemas import PRESETS, label_names
from tests.conftest import PASSWORD, Team, client_for
from tests.factories import DocumentFactory, UserFactory

pytestmark = pytest.mark.django_db

PROJECTS = reverse("api-project-list")
MEMBERS = reverse("api-member-list", kwargs={"slug": "radical"})
# The roles of the `team` fixture, and the caller who is no one.
ROLES = ("admin", "lead", "annotator_en", "outsider", "anonymous")


def member_url(username: str, slug: str = "radical") -> str:
    return reverse("api-member-detail", kwargs={"slug": slug, "username": username})


def caller(team: Team, role: str) -> Any:
    return None if role == "anonymous" else team.by_role()[role]


def send(user: Any, method: str, url: str, body: Any = None) -> Any:
    """A JSON request as `user` (None: anonymous), signed in with a session."""
    client = client_for(user)
    if body is None:
        return getattr(client, method)(url)
    return getattr(client, method)(url, body, content_type="application/json")


def superuser() -> Any:
    return UserFactory(username="root", is_superuser=True, is_staff=True)


def project_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "slug": "minutes",
        "name": "Council minutes",
        "languages": ["fr", "en"],
        "schema": {
            "preset": "basic",
            "keep": ["PER", "LOC"],
            "extra": [{"name": "HANDLE", "description": "Social media handles"}],
        },
    }
    return {**body, **changes}


def events(action: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action).order_by("pk"))


# --- Creating a project ---------------------------------------------------------------------


def test_a_superuser_creates_a_project_from_a_preset_edited(team: Team) -> None:
    root = superuser()
    response = send(root, "post", PROJECTS, project_body())
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["slug"], body["name"], body["languages"]) == (
        "minutes",
        "Council minutes",
        ["fr", "en"],
    )
    assert [label["name"] for label in body["label_schema"]["labels"]] == ["PER", "LOC", "HANDLE"]
    assert body["label_schema"]["labels"][-1]["description"] == "Social media handles"
    assert body["role"] == "admin"
    project = Project.objects.get(slug="minutes")
    assert project.labels == ["PER", "LOC", "HANDLE"]
    assert project.created_by == root
    # Its creator manages it.
    assert Membership.objects.get(project=project).user == root
    [event] = events(AuditAction.PROJECT_CHANGE)
    assert (event.actor, event.project, event.detail["event"]) == (root, project, "created")


def test_a_preset_taken_whole_is_the_projects_preset(team: Team) -> None:
    body = project_body(schema={"preset": "cloaked"})
    response = send(superuser(), "post", PROJECTS, body)
    assert response.status_code == 201
    assert response.json()["schema_preset"] == "cloaked"
    assert Project.objects.get(slug="minutes").labels == label_names(PRESETS["cloaked"])


def test_custom_labels_alone_make_a_schema(team: Team) -> None:
    schema = {"preset": "basic", "keep": [], "extra": [{"name": "PATIENT_ID"}]}
    response = send(superuser(), "post", PROJECTS, project_body(schema=schema))
    assert response.status_code == 201
    assert Project.objects.get(slug="minutes").labels == ["PATIENT_ID"]


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("admin", 403),  # the admin of a project, not of Cloak
        ("lead", 403),
        ("annotator_en", 403),
        ("outsider", 403),  # an admin of another project
        ("anonymous", 401),
    ],
)
def test_only_cloaks_administrators_create_projects(team: Team, role: str, expected: int) -> None:
    response = send(caller(team, role), "post", PROJECTS, project_body())
    assert response.status_code == expected
    assert response.json()["detail"]
    assert not Project.objects.filter(slug="minutes").exists()
    assert events(AuditAction.PROJECT_CHANGE) == []


def test_the_add_project_permission_lets_a_user_create_projects(team: Team) -> None:
    team.outsider.user_permissions.add(
        Permission.objects.get(content_type__app_label="annotator", codename="add_project")
    )
    response = send(team.outsider, "post", PROJECTS, project_body())
    assert response.status_code == 201
    assert response.json()["role"] == "admin"
    assert Membership.objects.get(project__slug="minutes").user == team.outsider


def test_everyone_signed_in_still_lists_their_projects(team: Team) -> None:
    for role in ("admin", "lead", "annotator_en", "outsider"):
        assert send(caller(team, role), "get", PROJECTS).status_code == 200
    assert send(None, "get", PROJECTS).status_code == 401


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"slug": "Minutes!"}, "slug: "),
        ({"slug": "radical"}, "a project 'radical' already exists"),
        ({"languages": ["English"]}, "languages.0: "),
        ({"languages": []}, "languages: "),
        ({"schema": {"preset": "gdpr"}}, "schema.preset: "),
        ({"schema": {"preset": "basic", "keep": ["PATIENT"]}}, "label(s) PATIENT not in preset"),
        ({"schema": {"preset": "basic", "extra": [{"name": "PER"}]}}, "'PER' appears twice"),
        ({"schema": {"preset": "basic", "keep": []}}, "a schema needs a non-empty list"),
        ({"schema": {"preset": "basic", "extra": [{"name": "A B"}]}}, "schema.extra.0.name: "),
        # Never a schema of the caller's own, whole or slipped in beside a preset.
        ({"schema": {"labels": [{"name": "PER"}]}}, "schema.labels: not a field"),
        ({"schema": {"preset": "basic", "labels": [{"name": "X"}]}}, "schema.labels: not a"),
        ({"label_schema": {"labels": [{"name": "X"}]}}, "label_schema: not a field"),
        ({"schema": "basic"}, "Expected a dictionary"),
    ],
)
def test_a_bad_project_is_a_400_that_creates_nothing(
    team: Team, changes: dict[str, Any], words: str
) -> None:
    before = (Project.objects.count(), Membership.objects.count(), AuditEvent.objects.count())
    response = send(superuser(), "post", PROJECTS, project_body(**changes))
    assert response.status_code == 400
    assert words in response.json()["detail"]
    after = (Project.objects.count(), Membership.objects.count(), AuditEvent.objects.count())
    assert after == before


def test_a_project_is_created_from_json_only(team: Team) -> None:
    response = client_for(superuser()).post(PROJECTS, {"slug": "minutes", "languages": "fr"})
    assert response.status_code == 415
    assert not Project.objects.filter(slug="minutes").exists()


# --- Reading members --------------------------------------------------------------------------

READS = {"admin": 200, "lead": 200, "annotator_en": 403, "outsider": 404, "anonymous": 401}


@pytest.mark.parametrize("role", ROLES)
def test_leads_and_admins_see_the_members(team: Team, role: str) -> None:
    user = caller(team, role)
    listed = send(user, "get", MEMBERS)
    one = send(user, "get", member_url(team.annotator_en.username))
    assert (listed.status_code, one.status_code) == (READS[role], READS[role])
    if READS[role] == 200:
        assert len(listed.json()["results"]) == 4
        assert one.json()["username"] == team.annotator_en.username
        assert (one.json()["role"], one.json()["languages"]) == ("annotator", ["en"])


def test_someone_not_in_the_project_is_a_404(team: Team) -> None:
    for method in ("get", "patch", "delete"):
        body = {"role": "lead"} if method == "patch" else None
        for username in (team.outsider.username, "nobody"):
            response = send(team.admin, method, member_url(username), body)
            assert response.status_code == 404, (method, username)
    assert Membership.objects.filter(user=team.outsider, project=team.project).count() == 0


# --- Writing members, as every role ---------------------------------------------------------

WRITES = {"admin": None, "lead": 403, "annotator_en": 403, "outsider": 404, "anonymous": 401}


def memberships(team: Team) -> list[tuple[str, str, list[str]]]:
    return sorted(
        (m.user.username, m.role, m.languages)
        for m in Membership.objects.filter(project=team.project).select_related("user")
    )


@pytest.mark.parametrize("role", ROLES)
def test_only_admins_add_members(team: Team, role: str) -> None:
    newcomer = UserFactory(username="amira")
    before = memberships(team)
    body = {"username": "amira", "role": "annotator", "languages": ["ar"]}
    response = send(caller(team, role), "post", MEMBERS, body)
    if WRITES[role] is not None:
        assert response.status_code == WRITES[role]
        assert memberships(team) == before
        assert events(AuditAction.MEMBER_CHANGE) == []
        return
    assert response.status_code == 201
    assert response.json() == {
        "username": "amira",
        "role": "annotator",
        "languages": ["ar"],
        "created_at": response.json()["created_at"],
    }
    assert Membership.objects.get(project=team.project, user=newcomer).role == "annotator"
    [event] = events(AuditAction.MEMBER_CHANGE)
    assert (event.actor, event.project, event.target) == (
        team.admin,
        team.project,
        f"user:{newcomer.pk}",
    )
    assert event.detail == {
        "event": "added",
        "role": "annotator",
        "languages": ["ar"],
        "via": "api",
    }
    assert event.ip_address == "127.0.0.1"


@pytest.mark.parametrize("role", ROLES)
def test_only_admins_change_members(team: Team, role: str) -> None:
    before = memberships(team)
    url = member_url(team.annotator_en.username)
    response = send(caller(team, role), "patch", url, {"role": "lead"})
    if WRITES[role] is not None:
        assert response.status_code == WRITES[role]
        assert memberships(team) == before
        assert events(AuditAction.MEMBER_CHANGE) == []
        return
    assert response.status_code == 200
    # Only the role changes: the languages stay as they were.
    assert (response.json()["role"], response.json()["languages"]) == ("lead", ["en"])
    [event] = events(AuditAction.MEMBER_CHANGE)
    assert event.detail["event"] == "changed" and event.detail["via"] == "api"
    assert (event.actor, event.ip_address) == (team.admin, "127.0.0.1")


@pytest.mark.parametrize("role", ROLES)
def test_only_admins_remove_members(team: Team, role: str) -> None:
    before = memberships(team)
    response = send(caller(team, role), "delete", member_url(team.annotator_fr.username))
    if WRITES[role] is not None:
        assert response.status_code == WRITES[role]
        assert memberships(team) == before
        assert events(AuditAction.MEMBER_CHANGE) == []
        return
    assert response.status_code == 204
    assert not Membership.objects.filter(project=team.project, user=team.annotator_fr).exists()
    [event] = events(AuditAction.MEMBER_CHANGE)
    assert (event.actor, event.detail["event"], event.ip_address) == (
        team.admin,
        "removed",
        "127.0.0.1",
    )


def test_an_annotator_cannot_change_their_own_membership(team: Team) -> None:
    url = member_url(team.annotator_en.username)
    assert send(team.annotator_en, "patch", url, {"languages": ["en", "fr"]}).status_code == 403
    assert send(team.annotator_en, "delete", url).status_code == 403
    assert Membership.objects.get(user=team.annotator_en).languages == ["en"]


def test_a_token_works_as_a_session_does(team: Team) -> None:
    token = api_token_issue(user=team.admin).token
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    body = {"username": team.outsider.username, "role": "lead", "languages": []}
    response = client.post(MEMBERS, body, content_type="application/json")
    assert response.status_code == 201
    assert Membership.objects.get(project=team.project, user=team.outsider).role == "lead"


# --- What the admin's writes do ---------------------------------------------------------------


def test_adding_someone_already_in_changes_their_membership(team: Team) -> None:
    body = {"username": team.annotator_fr.username, "role": "annotator", "languages": ["fr", "ar"]}
    response = send(team.admin, "post", MEMBERS, body)
    assert response.status_code == 200
    assert response.json()["languages"] == ["fr", "ar"]
    assert Membership.objects.get(user=team.annotator_fr).languages == ["fr", "ar"]
    assert events(AuditAction.MEMBER_CHANGE)[0].detail["event"] == "changed"


def test_a_password_creates_an_account_for_someone_new(team: Team) -> None:
    body = {
        "username": "amira",
        "role": "annotator",
        "languages": ["ar"],
        "password": "a long passphrase of hers",
        "email": "amira@example.org",
    }
    response = send(team.admin, "post", MEMBERS, body)
    assert response.status_code == 201
    assert "password" not in response.json()
    user = get_user_model().objects.get(username="amira")
    assert user.check_password("a long passphrase of hers")
    assert user.email == "amira@example.org"
    assert Membership.objects.get(user=user).languages == ["ar"]


def test_a_password_never_changes_an_existing_account(team: Team) -> None:
    """Else a project's admin could take over anyone's account by adding them."""
    root = superuser()
    body = {
        "username": "root",
        "role": "annotator",
        "languages": ["en"],
        "password": "taken over, passphrase",
    }
    response = send(team.admin, "post", MEMBERS, body)
    assert response.status_code == 400
    assert "already has an account" in response.json()["detail"]
    root.refresh_from_db()
    assert root.check_password(PASSWORD)
    assert not Membership.objects.filter(user=root).exists()


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"username": "ghost", "role": "lead"}, "no user 'ghost': give a password"),
        ({"username": "amira", "role": "annotator", "languages": []}, "needs at least one"),
        ({"username": "amira", "role": "annotator", "languages": ["de"]}, "de not in project"),
        ({"username": "amira", "role": "owner", "languages": ["en"]}, "role: "),
        ({"username": "ami ra", "role": "lead"}, "username: "),
        ({"username": "new", "role": "lead", "password": "123"}, "password refused"),
        ({"username": "amira", "role": "annotator", "languages": "en"}, "languages: "),
    ],
)
def test_a_bad_member_is_a_400_that_changes_nothing(
    team: Team, body: dict[str, Any], words: str
) -> None:
    UserFactory(username="amira")
    before = (memberships(team), get_user_model().objects.count())
    response = send(team.admin, "post", MEMBERS, body)
    assert response.status_code == 400
    assert words in response.json()["detail"]
    assert (memberships(team), get_user_model().objects.count()) == before
    assert events(AuditAction.MEMBER_CHANGE) == []


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "give a role, languages or both"),
        ({"languages": []}, "needs at least one"),
        ({"languages": ["de"]}, "de not in project"),
        ({"role": "owner"}, "role: "),
    ],
)
def test_a_bad_change_is_a_400_that_changes_nothing(
    team: Team, body: dict[str, Any], words: str
) -> None:
    before = memberships(team)
    response = send(team.admin, "patch", member_url(team.annotator_en.username), body)
    assert response.status_code == 400
    assert words in response.json()["detail"]
    assert memberships(team) == before


def test_languages_change_alone(team: Team) -> None:
    url = member_url(team.annotator_en.username)
    response = send(team.admin, "patch", url, {"languages": ["en", "ar"]})
    assert response.status_code == 200
    assert (response.json()["role"], response.json()["languages"]) == ("annotator", ["en", "ar"])


def test_the_last_admin_cannot_be_removed(team: Team) -> None:
    response = send(team.admin, "delete", member_url(team.admin.username))
    assert response.status_code == 400
    assert "last admin" in response.json()["detail"]
    assert Membership.objects.get(user=team.admin, project=team.project).role == "admin"
    assert events(AuditAction.MEMBER_CHANGE) == []
    # With a second admin, the first may go.
    send(team.admin, "patch", member_url(team.lead.username), {"role": "admin"})
    assert send(team.admin, "delete", member_url(team.admin.username)).status_code == 204


def test_removing_an_annotator_releases_their_unfinished_documents(team: Team) -> None:
    held = DocumentFactory(
        project=team.project, assignee=team.annotator_en, status=DocumentStatus.IN_PROGRESS
    )
    finished = DocumentFactory(
        project=team.project, assignee=team.annotator_en, status=DocumentStatus.DONE
    )
    response = send(team.admin, "delete", member_url(team.annotator_en.username))
    assert response.status_code == 204
    assert Document.objects.get(pk=held.pk).assignee is None
    assert Document.objects.get(pk=finished.pk).assignee == team.annotator_en
    [event] = events(AuditAction.MEMBER_CHANGE)
    assert event.detail["documents_released"] == 1
    # They no longer see the project.
    assert (
        send(
            team.annotator_en, "get", reverse("api-project-detail", kwargs={"slug": "radical"})
        ).status_code
        == 404
    )


def test_a_new_annotator_gets_the_documents_nobody_holds(team: Team) -> None:
    waiting = DocumentFactory(project=team.project, language="ar")
    UserFactory(username="amira")
    body = {"username": "amira", "role": "annotator", "languages": ["ar"]}
    assert send(team.admin, "post", MEMBERS, body).status_code == 201
    assert Document.objects.get(pk=waiting.pk).assignee.username == "amira"
