"""The migrations that bring stored keys and search texts to the one folding.

Aliases are written as the previous Cloak stored them (digest and replacement key of the
NFC-casefolded form), then the migration's function runs on them, as `migrate` would.
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
from annotator.keys.models import Alias, AliasWord, Entity
from annotator.keys.reads import KeyFilters, entity_page
from annotator.models import AuditEvent, Document, ReviewItem, ReviewKind, Span, SpanStatus
from annotator.services.review.resolve import review_resolve
from annotator.services.table import ReplacementRefused, surface_choice, surface_decide
from pseudonymizer.folding import fold
from pseudonymizer.pseudonyms.determinism import seed_form
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory, UserFactory

keys_migration = import_module("annotator.keys.migrations.0006_refold_surfaces")
documents_migration = import_module("annotator.migrations.0011_refold_search_text")


def run_keys_migration() -> None:
    with connection.schema_editor() as editor:
        keys_migration.refold(apps, editor)


def old_digest(secret: str, surface: str) -> str:
    """`surface_digest` as Cloak computed it before the one folding."""
    key = hmac.new(
        crypto.settings.CLOAK_KEYS_SECRET.encode(),
        b"cloak-keys:digest:" + secret.encode(),
        hashlib.sha256,
    ).digest()
    return hmac.new(key, seed_form(surface).encode(), hashlib.sha256).hexdigest()


def entity(project: Any, label: str = "PER", decision: str = "pseudonymize") -> Entity:
    return Entity.objects.create(project_id=project.pk, label=label, decision=decision)


def legacy_alias(
    project: Any,
    owner: Entity,
    surface: str,
    replacement: str = "",
    *,
    language: str = "en",
    parent: Alias | None = None,
) -> Alias:
    return Alias.objects.create(
        entity=owner,
        project_id=project.pk,
        language=language,
        original_encrypted=crypto.encrypt(surface),
        original_digest=old_digest(project.secret, surface),
        replacement=replacement,
        replacement_key=seed_form(replacement),
        parent=parent,
    )


def span_on(document: Any, surface: str, entity_id: int, decision: str) -> Span:
    start = document.text.index(surface)
    return SpanFactory(
        document=document,
        start=start,
        end=start + len(surface),
        status=SpanStatus.ACCEPTED,
        entity_id=entity_id,
        decision=decision,
    )


def found(project: Any, q: str) -> list[int]:
    scope = project
    return [row.id for row in entity_page(scope, KeyFilters(q=q), limit=100).records]


def table_state() -> tuple[Any, ...]:
    """Everything a refold writes: the aliases' keys, the word index, the review items."""
    return (
        sorted(Alias.objects.values_list("pk", "entity_id", "original_digest", "replacement_key")),
        sorted(AliasWord.objects.values_list("alias_id", "digest")),
        ReviewItem.objects.count(),
    )


@pytest.fixture
def project(db: Any) -> Any:
    return ProjectFactory()


def test_a_surface_recorded_before_is_found_by_any_spelling_the_matcher_reads_as_it(
    project: Any,
) -> None:
    fatima = legacy_alias(project, entity(project), "فاطمة الزهراء", "سلمى", language="ar")
    moshe = legacy_alias(project, entity(project), "Moshé Chaya", "Raj Avróm")
    assert surface_choice(project, "فاطمه الزهراء") is None  # what the old digest missed

    run_keys_migration()

    assert surface_choice(project, "فاطمه الزهراء").alias_id == fatima.pk  # type: ignore[union-attr]
    assert surface_choice(project, "Ｍｏｓｈｅ CHAYA").alias_id == moshe.pk  # type: ignore[union-attr]
    assert surface_choice(project, "Mo\u200bshe Chaya").alias_id == moshe.pk  # type: ignore[union-attr]
    assert Alias.objects.get(pk=moshe.pk).replacement_key == "raj avrom"
    # The blind word index follows: a search for a word written another way finds it.
    assert found(project, "ＣＨＡＹＡ") == [moshe.entity_id]
    assert found(project, "فاطمه") == [fatima.entity_id]


def test_two_spellings_of_one_entity_become_its_older_alias_and_keep_the_words_cut(
    project: Any,
) -> None:
    person = entity(project)
    older = legacy_alias(project, person, "Moshe Chaya", "Raj")
    later = legacy_alias(project, person, "Moshé Chaya", "Dov Levi")
    moshe = legacy_alias(project, person, "Moshé", "Dov", parent=later)
    chaya = legacy_alias(project, person, "Chaya", "Levi", parent=later)

    run_keys_migration()

    assert not Alias.objects.filter(pk=later.pk).exists()
    assert set(Alias.objects.filter(entity=person).values_list("pk", flat=True)) == {
        older.pk,
        moshe.pk,
        chaya.pk,
    }
    assert Alias.objects.get(pk=chaya.pk).parent_id == older.pk
    assert surface_choice(project, "MOSHÉ CHAYA").replacement == "Raj"  # type: ignore[union-attr]
    assert surface_choice(project, "moshe").replacement == "Dov"  # type: ignore[union-attr]
    events = AuditEvent.objects.filter(project=project)
    assert events.filter(target=f"entity:{person.pk}").exists()
    assert not any("Moshe" in str(e.detail) or "Chaya" in str(e.detail) for e in events)


def test_two_entities_that_agree_on_a_surface_become_one(project: Any) -> None:
    first, second = entity(project), entity(project)
    older = legacy_alias(project, first, "Moshe Chaya", "Raj Avrom")
    legacy_alias(project, second, "MOSHÉ CHAYA", "Dov Levi")
    arabic = legacy_alias(project, second, "موشيه حايا", "راج أفروم", language="ar")
    document = DocumentFactory(project=project, text="Hello MOSHÉ CHAYA.")
    span = span_on(document, "MOSHÉ CHAYA", second.pk, "pseudonymize")

    run_keys_migration()

    assert not Entity.objects.filter(pk=second.pk).exists()
    assert Alias.objects.get(pk=arabic.pk).entity_id == first.pk
    assert surface_choice(project, "Moshé Chaya").alias_id == older.pk  # type: ignore[union-attr]
    span.refresh_from_db()
    assert span.entity_id == first.pk and span.decision == "pseudonymize"
    assert Entity.objects.get(pk=first.pk).version == 2


def test_two_entities_that_disagree_keep_their_decisions_and_ask_the_lead(project: Any) -> None:
    kept, replaced = entity(project, decision="keep"), entity(project)
    legacy_alias(project, kept, "Moshe Chaya")
    later = legacy_alias(project, replaced, "Moshé Chaya", "Dov Levi")
    word = legacy_alias(project, replaced, "Chaya", "Levi", parent=later)
    document = DocumentFactory(project=project, text="Hello Moshé Chaya.")
    span = span_on(document, "Moshé Chaya", replaced.pk, "pseudonymize")

    run_keys_migration()

    assert Entity.objects.filter(pk=replaced.pk).exists()
    assert Alias.objects.get(pk=word.pk).parent_id is None  # a name of its own entity now
    assert Alias.objects.get(pk=word.pk).entity_id == replaced.pk
    span.refresh_from_db()
    assert span.entity_id == kept.pk and span.decision == "pseudonymize"  # a person's decision
    item = ReviewItem.objects.get(project=project, kind=ReviewKind.SURFACE_CONFLICT)
    assert item.entity_id == kept.pk and item.span_id == span.pk
    assert item.detail["decisions"] == ["keep", "pseudonymize"]
    assert "Moshe" not in str(item.detail) and "Chaya" not in str(item.detail)
    # The lead decides once, for every span of the surface.
    review_resolve(item=item, actor=UserFactory(), rationale="a public figure", decision="keep")
    span.refresh_from_db()
    assert span.decision == "keep"


def test_two_pseudonyms_that_fold_alike_stay_but_the_later_goes_to_review(project: Any) -> None:
    older = legacy_alias(project, entity(project), "Tom Reddle", "Raj Avróm")
    later = legacy_alias(project, entity(project), "Sam Bell", "RAJ AVROM")

    run_keys_migration()

    older.refresh_from_db()
    later.refresh_from_db()
    assert older.replacement_key == "raj avrom"
    assert later.replacement == "RAJ AVROM"  # a release renders what it rendered before
    assert later.replacement_key != older.replacement_key
    item = ReviewItem.objects.get(project=project, kind=ReviewKind.ENTITY_CONFLICT)
    assert item.detail["alias_id"] == later.pk and item.entity_id == later.entity_id
    # The pseudonym is still taken for every new choice.
    with pytest.raises(ReplacementRefused):
        surface_decide(
            project=project,
            surface="Ann Other",
            language="en",
            label="PER",
            decision="pseudonymize",
            replacement="Raj Avrom",
        )


def test_running_it_again_changes_nothing(project: Any) -> None:
    person = entity(project)
    legacy_alias(project, person, "Moshe Chaya", "Raj")
    legacy_alias(project, person, "Moshé Chaya", "Dov")
    legacy_alias(project, entity(project, decision="keep"), "MOSHÈ CHAYA")
    run_keys_migration()
    state = table_state()

    run_keys_migration()

    assert table_state() == state


def test_every_search_text_is_folded_again(project: Any) -> None:
    text = "قالت فاطمة لـ Ｍｏｓｈｅ Mo\u200bshe"
    document = DocumentFactory(project=project, text=text)
    Document.objects.filter(pk=document.pk).update(search_text="stale")
    plain = DocumentFactory(project=project, text="Moshe Chaya")

    with connection.schema_editor() as editor:
        documents_migration.refold(apps, editor)

    assert Document.objects.get(pk=document.pk).search_text == fold(text)
    assert "فاطمه" in fold(text) and "moshe moshe" in fold(text)
    assert Document.objects.get(pk=plain.pk).search_text == "moshe chaya"
