from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from annotator.keys.crypto import surface_digest
from annotator.keys.models import Alias, Entity
from annotator.models import Span
from annotator.routers import KeysRouter
from tests.factories import ProjectFactory


def alias(entity: Entity, surface: str, replacement: str, language: str = "en") -> Alias:
    row = Alias(entity=entity, project=entity.project, language=language)
    row.set_original(surface, entity.project.secret)
    row.set_replacement(replacement)
    row.save()
    return row


@pytest.mark.django_db
def test_originals_are_encrypted_at_rest_and_readable_with_the_secret() -> None:
    project = ProjectFactory()
    entity = Entity.objects.create(project=project, label="PER")
    row = alias(entity, "موشيه حايا", "راج أفروم", language="ar")
    with connection.cursor() as cursor:
        cursor.execute("SELECT original_encrypted FROM keys_alias WHERE id = %s", [row.pk])
        stored = bytes(cursor.fetchone()[0])
    assert "موشيه".encode() not in stored
    assert Alias.objects.get(pk=row.pk).original == "موشيه حايا"
    assert "موشيه" not in str(row)


@pytest.mark.django_db
def test_one_surface_gets_one_replacement_per_project_whatever_its_case() -> None:
    project = ProjectFactory()
    entity = Entity.objects.create(project=project, label="PER")
    alias(entity, "Moshe Chaya", "Raj Avrom")
    with pytest.raises(IntegrityError), transaction.atomic():
        alias(entity, "MOSHE  chaya", "Tom Other")
    # Another project keeps its own keys.
    other = Entity.objects.create(project=ProjectFactory(), label="PER")
    alias(other, "Moshe Chaya", "Raj Avrom")


@pytest.mark.django_db
def test_two_surfaces_never_share_a_pseudonym() -> None:
    entity = Entity.objects.create(project=ProjectFactory(), label="PER")
    alias(entity, "Moshe Chaya", "Raj Avrom")
    with pytest.raises(IntegrityError), transaction.atomic():
        alias(entity, "Tom Reddle", "Raj Avrom")


def test_the_digest_depends_on_the_project_secret() -> None:
    assert surface_digest("a", "Moshe") == surface_digest("a", " moshe ")
    assert surface_digest("a", "Moshe") != surface_digest("b", "Moshe")


def test_a_digest_kept_in_memory_follows_the_keys_secret(settings: Any) -> None:
    """Digests are kept per process, under the secret they were made with: another secret
    gives another digest at once, and the first comes back with the first secret."""
    before = surface_digest("a", "Moshe")
    first = settings.CLOAK_KEYS_SECRET
    settings.CLOAK_KEYS_SECRET = first + "-rotated"
    rotated = surface_digest("a", "Moshe")
    assert rotated != before
    settings.CLOAK_KEYS_SECRET = first
    assert surface_digest("a", "Moshe") == before


def test_the_router_sends_keys_to_their_own_database_when_one_is_configured(
    monkeypatch: Any,
) -> None:
    from django.conf import settings

    router = KeysRouter()
    assert router.db_for_read(Alias) == "default"
    monkeypatch.setitem(settings.DATABASES, "keys", settings.DATABASES["default"])
    assert router.db_for_read(Alias) == "keys"
    assert router.db_for_write(Entity) == "keys"
    assert router.db_for_read(Span) is None
    assert router.allow_migrate("keys", "keys") is True
    assert router.allow_migrate("default", "keys") is False
    assert router.allow_migrate("keys", "annotator") is False
