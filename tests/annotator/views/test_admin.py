"""Django's admin: every model is there, the keys never show an original, the log is read-only."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.urls import reverse

from annotator.keys.models import Alias, Entity
from annotator.models import AuditAction, AuditEvent, ImportJob, ReviewItem
from tests.conftest import Team, client_for
from tests.factories import SpanFactory, UserFactory

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


def test_every_model_is_registered() -> None:
    from django.apps import apps

    for app_label in ("annotator", "keys"):
        for model in apps.get_app_config(app_label).get_models():
            assert admin.site.is_registered(model), model


def test_every_changelist_and_change_page_opens(team: Team, superuser: Any, alias: Alias) -> None:
    span = SpanFactory(document__project=team.project)
    ImportJob.objects.create(project=team.project, filename="a.jsonl")
    ReviewItem.objects.create(project=team.project, kind="flag", document=span.document)
    client = client_for(superuser)
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        response = client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        assert response.status_code == 200, meta.label
        row = model_admin.get_queryset(response.wsgi_request).first()
        if row is not None:
            url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[row.pk])
            assert client.get(url).status_code == 200, meta.label


def test_an_alias_never_shows_its_original(team: Team, superuser: Any, alias: Alias) -> None:
    client = client_for(superuser)
    listing = client.get(reverse("admin:keys_alias_changelist")).content.decode()
    change = client.get(reverse("admin:keys_alias_change", args=[alias.pk])).content.decode()
    entity = client.get(
        reverse("admin:keys_entity_change", args=[alias.entity_id])
    ).content.decode()
    for page in (listing, change, entity):
        assert ORIGINAL not in page
        assert "original_encrypted" not in page
    assert alias.original_digest[:12] in listing
    assert "Raj Avrom" in listing
    assert ORIGINAL not in str(alias)


def test_looking_at_the_keys_in_the_admin_is_audited(
    team: Team, superuser: Any, alias: Alias
) -> None:
    client_for(superuser).get(reverse("admin:keys_alias_changelist"))
    event = AuditEvent.objects.filter(action=AuditAction.KEY_READ).get()
    assert event.actor == superuser
    assert event.target == "admin:alias:list"


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
