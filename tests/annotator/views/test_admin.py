"""Django's admin: every model of `annotator` is there and none of the correspondence table,
memberships are written by the service (its checks, its audit), the log is read-only."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import NoReverseMatch, reverse

from annotator.keys.models import Alias, Entity
from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    DocumentStatus,
    ImportJob,
    JobStatus,
    LearnedModel,
    Membership,
    Project,
    ReviewItem,
    Role,
)
from annotator.routers import keys_alias
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory, UserFactory

pytestmark = pytest.mark.django_db

ORIGINAL = "Moshe Chaya"


@pytest.fixture
def superuser() -> Any:
    return UserFactory(username="root", is_staff=True, is_superuser=True)


@pytest.fixture
def alias(team: Team) -> Alias:
    entity = Entity.objects.create(project=team.project, label="PER")
    alias = Alias(entity=entity, project=team.project, language="en", replacement="Raj Avrom")
    alias.set_original(ORIGINAL, team.project.secret)
    alias.save()
    return alias


def _form_data(client: Client, url: str) -> dict[str, Any]:
    """The POST an admin change page would send unchanged: its form and inline formsets."""
    response = client.get(url)
    assert response.status_code == 200
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    data: dict[str, Any] = {}
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            if value is not None and value is not False:
                data[form.add_prefix(name)] = value
                if form.fields[name].show_hidden_initial:  # as the page's hidden input
                    data[form.add_initial_prefix(name)] = value
    return data


def test_every_annotator_model_is_registered_and_no_key_model_is() -> None:
    from django.apps import apps

    for model in apps.get_app_config("annotator").get_models():
        assert admin.site.is_registered(model), model
    for model in apps.get_app_config("keys").get_models():
        assert not admin.site.is_registered(model), model


def test_every_page_opens_and_none_reads_the_key_tables(
    team: Team, superuser: Any, alias: Alias
) -> None:
    span = SpanFactory(document__project=team.project)
    ImportJob.objects.create(project=team.project, filename="a.jsonl")
    ReviewItem.objects.create(project=team.project, kind="flag", document=span.document)
    client = client_for(superuser)
    pages = [reverse("admin:index")]
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        changelist = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        pages.append(changelist)
        row = model_admin.get_queryset(client.get(changelist).wsgi_request).first()
        if row is not None:
            pages.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[row.pk]))

    captures = [CaptureQueriesContext(connections[alias]) for alias in {"default", keys_alias()}]
    for capture in captures:
        capture.__enter__()
    try:
        for page in pages:
            assert client.get(page).status_code == 200, page
    finally:
        for capture in reversed(captures):
            capture.__exit__(None, None, None)
    statements = [query["sql"] for capture in captures for query in capture.captured_queries]
    assert statements  # the pages did query
    assert not [sql for sql in statements if "keys_" in sql]


def test_the_correspondence_table_has_no_admin_page(superuser: Any) -> None:
    client = client_for(superuser)

    for model in ("alias", "entity", "aliasword"):
        with pytest.raises(NoReverseMatch):
            reverse(f"admin:keys_{model}_changelist")
        assert client.get(f"/admin/keys/{model}/").status_code == 404
    index = client.get(reverse("admin:index")).content.decode()
    assert "Aliases" not in index
    assert "Entities" not in index


def test_adding_a_member_goes_through_the_service_and_its_audit(team: Team, superuser: Any) -> None:
    newcomer = UserFactory(username="newcomer")
    waiting = DocumentFactory(project=team.project, language="ar", assignee=None)

    response = client_for(superuser).post(
        reverse("admin:annotator_membership_add"),
        {
            "user": newcomer.pk,
            "project": team.project.pk,
            "role": "annotator",
            "languages": '["ar"]',
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    membership = Membership.objects.get(user=newcomer, project=team.project)
    assert (membership.role, membership.languages) == ("annotator", ["ar"])
    event = AuditEvent.objects.get(action=AuditAction.MEMBER_CHANGE, target=f"user:{newcomer.pk}")
    assert event.actor == superuser
    assert event.detail["event"] == "added"
    assert event.detail["via"] == "admin"
    assert event.ip_address == "127.0.0.1"  # the test client's REMOTE_ADDR
    # The service's own work: the new annotator gets their language's waiting documents.
    waiting.refresh_from_db()
    assert waiting.assignee == newcomer


@pytest.mark.parametrize(
    ("role", "languages", "message"),
    [
        ("annotator", "[]", "an annotator needs at least one language"),
        ("annotator", '["de"]', "not in project radical"),
    ],
)
def test_a_member_the_service_refuses_is_an_error_on_the_form(
    team: Team, superuser: Any, role: str, languages: str, message: str
) -> None:
    newcomer = UserFactory(username="newcomer")
    events = AuditEvent.objects.count()

    response = client_for(superuser).post(
        reverse("admin:annotator_membership_add"),
        {"user": newcomer.pk, "project": team.project.pk, "role": role, "languages": languages},
    )

    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Membership.objects.filter(user=newcomer).exists()
    assert AuditEvent.objects.count() == events


def test_changing_a_role_is_audited_and_cannot_move_the_membership(
    team: Team, superuser: Any
) -> None:
    membership = Membership.objects.get(user=team.annotator_fr, project=team.project)
    client = client_for(superuser)
    url = reverse("admin:annotator_membership_change", args=[membership.pk])

    response = client.post(url, {"user": team.outsider.pk, "role": Role.LEAD, "languages": "[]"})

    assert response.status_code == 302
    membership.refresh_from_db()
    assert (membership.user, membership.role) == (team.annotator_fr, Role.LEAD)
    event = AuditEvent.objects.get(
        action=AuditAction.MEMBER_CHANGE, target=f"user:{team.annotator_fr.pk}"
    )
    assert event.detail == {"event": "changed", "role": Role.LEAD, "languages": [], "via": "admin"}


def test_the_project_page_adds_and_removes_members_through_the_service(
    team: Team, superuser: Any
) -> None:
    newcomer = UserFactory(username="newcomer")
    client = client_for(superuser)
    url = reverse("admin:annotator_project_change", args=[team.project.pk])
    data = _form_data(client, url)
    total = int(data["memberships-TOTAL_FORMS"])
    leaving = next(
        index
        for index in range(total)
        if data.get(f"memberships-{index}-user") == team.annotator_en.pk
    )
    data[f"memberships-{leaving}-DELETE"] = "on"
    data.update(
        {
            "memberships-TOTAL_FORMS": total + 1,
            f"memberships-{total}-user": newcomer.pk,
            f"memberships-{total}-role": "annotator",
            f"memberships-{total}-languages": '["en"]',
        }
    )

    response = client.post(url, data)

    assert response.status_code == 302, response.content.decode()[:3000]
    assert Membership.objects.filter(user=newcomer, project=team.project, role="annotator").exists()
    assert not Membership.objects.filter(user=team.annotator_en, project=team.project).exists()
    events = {
        event.target: event.detail["event"]
        for event in AuditEvent.objects.filter(action=AuditAction.MEMBER_CHANGE)
    }
    assert events == {f"user:{newcomer.pk}": "added", f"user:{team.annotator_en.pk}": "removed"}


def _inline_removal(client: Client, project: Project, user: Any) -> tuple[str, dict[str, Any]]:
    """The project's change page, and its POST with `user`'s membership ticked for deletion."""
    url = reverse("admin:annotator_project_change", args=[project.pk])
    data = _form_data(client, url)
    leaving = next(
        index
        for index in range(int(data["memberships-TOTAL_FORMS"]))
        if data.get(f"memberships-{index}-user") == user.pk
    )
    data[f"memberships-{leaving}-DELETE"] = "on"
    return url, data


def _remove_through_the_admin(client: Client, how: str, membership: Membership) -> Any:
    """Remove `membership` the way `how` names: its delete page, the changelist's "delete
    selected" action, or the project page's inline."""
    if how == "delete page":
        url = reverse("admin:annotator_membership_delete", args=[membership.pk])
        return client.post(url, {"post": "yes"})
    if how == "delete selected":
        return client.post(
            reverse("admin:annotator_membership_changelist"),
            {"action": "delete_selected", "_selected_action": [membership.pk], "post": "yes"},
        )
    url, data = _inline_removal(client, membership.project, membership.user)
    return client.post(url, data)


REMOVALS = ("delete page", "delete selected", "inline")


@pytest.mark.parametrize("how", REMOVALS)
def test_removing_a_member_goes_through_the_service_and_its_audit(
    team: Team, superuser: Any, how: str
) -> None:
    held = DocumentFactory(project=team.project, assignee=team.annotator_en)
    finished = DocumentFactory(
        project=team.project, assignee=team.annotator_en, status=DocumentStatus.DONE
    )
    membership = Membership.objects.get(user=team.annotator_en, project=team.project)

    response = _remove_through_the_admin(client_for(superuser), how, membership)

    assert response.status_code == 302, response.content.decode()[:3000]
    assert not Membership.objects.filter(pk=membership.pk).exists()
    # The service's own work: what they held unfinished goes back to the pool, the rest stays.
    assert Document.objects.get(pk=held.pk).assignee is None
    assert Document.objects.get(pk=finished.pk).assignee == team.annotator_en
    event = AuditEvent.objects.get(
        action=AuditAction.MEMBER_CHANGE, target=f"user:{team.annotator_en.pk}"
    )
    assert event.actor == superuser
    assert event.ip_address == "127.0.0.1"
    assert event.detail == {
        "event": "removed",
        "role": Role.ANNOTATOR,
        "documents_released": 1,
        "via": "admin",
    }


@pytest.mark.parametrize("how", REMOVALS)
def test_removing_the_last_admin_is_refused_with_a_message_and_changes_nothing(
    team: Team, superuser: Any, how: str
) -> None:
    membership = Membership.objects.get(user=team.admin, project=team.project)
    events, log_entries = AuditEvent.objects.count(), LogEntry.objects.count()

    response = _remove_through_the_admin(client_for(superuser), how, membership)

    assert response.status_code == 302
    shown = [(message.level_tag, str(message)) for message in get_messages(response.wsgi_request)]
    assert shown == [
        ("error", "the project's last admin cannot leave it: make someone else admin first")
    ]
    assert Membership.objects.filter(pk=membership.pk, role=Role.ADMIN).exists()
    assert AuditEvent.objects.count() == events
    assert LogEntry.objects.count() == log_entries


def test_a_refused_removal_on_the_project_page_rolls_back_the_rest_of_the_page(
    team: Team, superuser: Any
) -> None:
    # Removing the last admin and someone else at once: neither goes, nor the name change.
    client = client_for(superuser)
    url, data = _inline_removal(client, team.project, team.admin)
    _, others = _inline_removal(client, team.project, team.annotator_en)
    data.update({key: value for key, value in others.items() if key.endswith("-DELETE")})
    data["name"] = "Renamed"

    response = client.post(url, data)

    assert response.status_code == 302
    assert response.url == url
    assert Membership.objects.filter(project=team.project).count() == 4
    team.project.refresh_from_db()
    assert team.project.name != "Renamed"
    assert not AuditEvent.objects.filter(action=AuditAction.MEMBER_CHANGE).exists()


def test_a_new_project_gets_its_members_once_saved(superuser: Any) -> None:
    response = client_for(superuser).get(reverse("admin:annotator_project_add"))

    assert response.status_code == 200
    assert list(response.context["inline_admin_formsets"]) == []


def test_the_audit_log_cannot_be_added_changed_or_deleted(team: Team, superuser: Any) -> None:
    client = client_for(superuser)
    event = AuditEvent.objects.create(action=AuditAction.IMPORT, project=team.project, target="x")
    assert client.get(reverse("admin:annotator_auditevent_add")).status_code == 403
    assert (
        client.get(reverse("admin:annotator_auditevent_delete", args=[event.pk])).status_code == 403
    )
    response = client.post(
        reverse("admin:annotator_auditevent_change", args=[event.pk]), {"target": "forged"}
    )
    assert response.status_code == 403
    event.refresh_from_db()
    assert event.target != "forged"


def test_the_admin_does_not_delete_projects(team: Team, superuser: Any) -> None:
    # Their keys are out of its reach: `manage.py delete_project` deletes all of a project.
    client = client_for(superuser)
    url = reverse("admin:annotator_project_delete", args=[team.project.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, {"post": "yes"}).status_code == 403
    assert Project.objects.filter(pk=team.project.pk).exists()


def test_a_learned_models_page_shows_its_held_out_documents_beside_its_scores(
    team: Team, superuser: Any
) -> None:
    model = LearnedModel.objects.create(
        project=team.project, language="en", version=1, status=JobStatus.DONE,
        scores={"*": {"precision": 0.5, "recall": 0.25, "f1": 0.333}},
        held_out_documents=[4107, 4111],
    )  # fmt: skip
    url = reverse("admin:annotator_learnedmodel_change", args=[model.pk])

    response = client_for(superuser).get(url)

    assert response.status_code == 200
    page = response.content.decode()
    assert "Held out documents" in page and "[4107, 4111]" in page
    assert 'name="held_out_documents"' not in page  # shown, never edited
