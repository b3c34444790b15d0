"""The migrations that bring stored keys and search texts to the folding of look-alikes.

Aliases are written as the previous Cloak stored them: the digest and replacement key of the
surface's fold before look-alike and non-decomposing letters were read ("Søren Kjærgaard" was
"søren kjærgaard", "Εvander" was "εvander"), then the migration's function runs on them, as
`migrate` would. What the migrations settle is keys migration 0006's, tested with it
(`test_refold_migration`); these tests check that the new folding reaches every stored form.
"""

from __future__ import annotations

import hashlib
import hmac
from importlib import import_module
from typing import Any

import pytest
from django.apps import apps
from django.db import connection

from annotator.keys import crypto
from annotator.keys.models import Alias, Entity
from annotator.models import Document, ReviewItem, ReviewKind
from annotator.services.table import surface_choice
from pseudonymizer.folding import fold
from tests.annotator.keys.test_refold_migration import entity, found, span_on, table_state
from tests.factories import DocumentFactory, ProjectFactory

keys_migration = import_module("annotator.keys.migrations.0009_refold_look_alikes")
documents_migration = import_module("annotator.migrations.0017_refold_look_alikes")

GREEK_E = "\u0395"  # Greek capital epsilon
CYRILLIC_A = "\u0430"


def run_keys_migration() -> None:
    with connection.schema_editor() as editor:
        keys_migration.refold(apps, editor)


def stale_digest(secret: str, key: str) -> str:
    """The keyed digest of `key`, the fold the table stored for a surface before."""
    digest_key = crypto.derive_key(b"digest:" + secret.encode())
    return hmac.new(digest_key, key.encode(), hashlib.sha256).hexdigest()


def stale_alias(
    project: Any,
    owner: Entity,
    surface: str,
    stale_key: str,
    replacement: str = "",
    stale_replacement_key: str | None = None,
) -> Alias:
    return Alias.objects.create(
        entity=owner,
        project_id=project.pk,
        language="en",
        original_encrypted=crypto.encrypt(surface),
        original_digest=stale_digest(project.secret, stale_key),
        replacement=replacement,
        replacement_key=replacement.lower() if stale_replacement_key is None
        else stale_replacement_key,
    )  # fmt: skip


@pytest.fixture
def project(db: Any) -> Any:
    return ProjectFactory()


def test_a_surface_recorded_before_is_found_by_its_look_alike_and_plain_spellings(
    project: Any,
) -> None:
    soren = stale_alias(project, entity(project), "Søren Kjærgaard", "søren kjærgaard", "Raj")
    evander = stale_alias(
        project, entity(project), f"{GREEK_E}vander Thistlewood", "\u03b5vander thistlewood", "Dov"
    )
    assert surface_choice(project, "Soren Kjaergaard") is None  # what the old digest missed

    run_keys_migration()

    assert surface_choice(project, "Soren Kjaergaard").alias_id == soren.pk  # type: ignore[union-attr]
    assert surface_choice(project, "SØREN KJÆRGAARD").alias_id == soren.pk  # type: ignore[union-attr]
    assert surface_choice(project, "Evander Thistlewood").alias_id == evander.pk  # type: ignore[union-attr]
    assert surface_choice(project, f"Ev{CYRILLIC_A}nder Thistlewood").alias_id == evander.pk  # type: ignore[union-attr]
    # The blind word index follows: a search for a word written another way finds it.
    assert found(project, "kjaergaard") == [soren.entity_id]
    assert found(project, "evander") == [evander.entity_id]


def test_two_entities_that_now_share_a_surface_become_one(project: Any) -> None:
    first, second = entity(project), entity(project)
    older = stale_alias(project, first, "Soren Kjaergaard", "soren kjaergaard", "Raj Avrom")
    later = stale_alias(project, second, "Søren Kjærgaard", "søren kjærgaard", "Dov Levi")
    document = DocumentFactory(project=project, text="Hej Søren Kjærgaard.")
    span = span_on(document, "Søren Kjærgaard", second.pk, "pseudonymize")

    run_keys_migration()

    assert not Alias.objects.filter(pk=later.pk).exists()
    assert not Entity.objects.filter(pk=second.pk).exists()
    assert surface_choice(project, "Søren Kjærgaard").alias_id == older.pk  # type: ignore[union-attr]
    span.refresh_from_db()
    assert span.entity_id == first.pk and span.decision == "pseudonymize"


def test_a_pseudonym_now_one_with_another_stays_but_goes_to_review(project: Any) -> None:
    older = stale_alias(project, entity(project), "Tom Reddle", "tom reddle", "Raj Avrom")
    later = stale_alias(
        project, entity(project), "Sam Bell", "sam bell", f"R{CYRILLIC_A}j Avrom",
        stale_replacement_key=f"r{CYRILLIC_A}j avrom",
    )  # fmt: skip

    run_keys_migration()

    older.refresh_from_db()
    later.refresh_from_db()
    assert older.replacement_key == "raj avrom"
    assert later.replacement == f"R{CYRILLIC_A}j Avrom"  # a release renders what it did
    assert later.replacement_key != older.replacement_key
    item = ReviewItem.objects.get(project=project, kind=ReviewKind.ENTITY_CONFLICT)
    assert item.detail["alias_id"] == later.pk


def test_running_it_again_changes_nothing(project: Any) -> None:
    person = entity(project)
    stale_alias(project, person, "Soren Kjaergaard", "soren kjaergaard", "Raj")
    stale_alias(project, person, "Søren Kjærgaard", "søren kjærgaard", "Dov")
    cyrillic = f"Søren Kjærg{CYRILLIC_A}{CYRILLIC_A}rd"
    stale_alias(project, entity(project, decision="keep"), cyrillic, cyrillic.lower())
    run_keys_migration()
    state = table_state()

    run_keys_migration()

    assert table_state() == state


def test_every_search_text_is_folded_again(project: Any) -> None:
    text = f"Letters from {GREEK_E}vander Thistlewood to Søren Kjærgaard"
    document = DocumentFactory(project=project, text=text)
    Document.objects.filter(pk=document.pk).update(search_text=text.lower())  # as stored before
    arabic = DocumentFactory(project=project, text="قالت فاطمة")
    before = Document.objects.get(pk=arabic.pk).search_text

    with connection.schema_editor() as editor:
        documents_migration.refold(apps, editor)

    search_text = Document.objects.get(pk=document.pk).search_text
    assert search_text == fold(text)
    assert "evander thistlewood" in search_text and "soren kjaergaard" in search_text
    assert Document.objects.get(pk=arabic.pk).search_text == before == "قالت فاطمه"
