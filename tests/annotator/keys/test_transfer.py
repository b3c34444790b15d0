"""Key export and import: a project's table to the engine's key file and back, all or nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotator.errors import DomainError
from annotator.keys import transfer
from annotator.keys.models import Alias, AliasWord, Entity
from annotator.keys.transfer import table_from_bytes, table_to_bytes
from annotator.models import AuditAction, AuditEvent, Project
from annotator.routers import keys_alias
from annotator.selectors.corpus import in_corpus as corpus_in
from annotator.services.table import (
    ImportConflicts,
    KeyFileRefused,
    keys_export,
    keys_import,
    surface_choice,
    surface_decide,
)
from pseudonymizer.keytable import Alias as KeyAlias
from pseudonymizer.keytable import KeyTable
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def export_table(project: Project) -> KeyTable:
    """The keys' own export of the table (unaudited: the door audits a person's export)."""
    return transfer.export_table(project)


def import_table(project: Project, table: KeyTable, actor: Any = None) -> transfer.ImportCounts:
    """The keys' own import (its refusals are the Domain's)."""
    return transfer.import_table(
        project,
        table,
        actor.pk if actor is not None else None,
        in_corpus=lambda text: corpus_in(project.pk, text),
    )


PASSPHRASE = "a long enough passphrase"
# (surface, language, label, decision, replacement or None for a drawn one)
DECIDED = [
    ("Moshe Chaya", "en", "PER", "pseudonymize", "Raj Avrom"),
    ("موشيه حايا", "ar", "PER", "pseudonymize", "راج أفروم"),
    ("Le Monde", "fr", "ORG", "keep", None),
    ("https://moshe.example/profile", "en", "URL", "invalidate", None),
    ("Rue Oberkampf", "fr", "LOC", "delete", None),
]
# With the words cut from the two names.
ORIGINALS = [surface for surface, *_ in DECIDED] + ["Moshe", "Chaya", "موشيه", "حايا"]


def decided_project() -> Project:
    project = ProjectFactory()
    for surface, language, label, decision, replacement in DECIDED:
        surface_decide(
            project=project,
            surface=surface,
            language=language,
            label=label,
            decision=decision,
            replacement=replacement,
        )
    return project


def aliases(project: Project) -> Any:
    return Alias.objects.using(keys_alias()).filter(project_id=project.pk)


def choices(project: Project) -> dict[str, tuple[str, str, str]]:
    found = {}
    for surface in ORIGINALS:
        choice = surface_choice(project, surface)
        if choice is not None:
            found[surface] = (choice.decision, choice.replacement, choice.label)
    return found


def test_a_project_goes_to_a_key_file_and_into_another_project_with_the_same_choices() -> None:
    source = decided_project()
    table = export_table(source)
    assert {alias.surface for alias in table.aliases} == set(ORIGINALS)
    assert table.lookup("Moshe").parent == "Moshe Chaya"  # type: ignore[union-attr]
    copy = table_from_bytes(table_to_bytes(table, PASSPHRASE), PASSPHRASE)
    assert copy.to_dict() == table.to_dict()

    target = ProjectFactory()
    admin = UserFactory()
    counts = import_table(target, copy, admin)

    assert choices(target) == choices(source)
    assert len(choices(target)) == len(ORIGINALS)
    assert (counts.aliases, counts.added, counts.present, counts.conflicts) == (9, 9, 0, 0)
    # The words cut from "Moshe Chaya" stay with it: one entity, pointing at their name.
    moshe = surface_choice(target, "Moshe")
    name = surface_choice(target, "Moshe Chaya")
    assert moshe is not None and name is not None
    assert moshe.entity_id == name.entity_id
    assert Alias.objects.using(keys_alias()).get(pk=moshe.alias_id).parent_id == name.alias_id
    assert counts.entities == Entity.objects.using(keys_alias()).filter(project=target).count()
    assert set(aliases(target).values_list("created_by_id", flat=True)) == {admin.pk}
    # Through the table's own service: every alias is in the word index a lead searches.
    indexed = AliasWord.objects.using(keys_alias()).filter(project_id=target.pk)
    assert set(indexed.values_list("alias_id", flat=True)) == set(
        aliases(target).values_list("pk", flat=True)
    )


def test_aliases_of_one_entity_in_the_file_make_one_entity_in_the_project() -> None:
    table = KeyTable(
        aliases=[
            KeyAlias("Moshe Chaya", "en", "Raj Avrom", 7, "pseudonymize", "PER"),
            KeyAlias("موشيه حايا", "ar", "راج أفروم", 7, "pseudonymize", "PER"),
            KeyAlias("Tom Reddle", "en", "Sam Other", 8, "pseudonymize", "PER"),
        ]
    )
    project = ProjectFactory()
    counts = import_table(project, table)
    english, arabic, other = (
        surface_choice(project, s) for s in ("Moshe Chaya", "موشيه حايا", "Tom Reddle")
    )
    assert english is not None and arabic is not None and other is not None
    assert english.entity_id == arabic.entity_id != other.entity_id
    assert counts.entities == 2
    assert Entity.objects.using(keys_alias()).filter(project=project).count() == 2


def test_a_new_alias_joins_the_entity_the_project_already_has_for_its_file_entity() -> None:
    project = ProjectFactory()
    known = surface_decide(
        project=project,
        surface="Moshe Chaya",
        language="en",
        label="PER",
        decision="pseudonymize",
        replacement="Raj Avrom",
    )
    table = KeyTable(
        aliases=[
            KeyAlias("Moshe Chaya", "en", "Raj Avrom", 1, "pseudonymize", "PER"),
            KeyAlias("موشيه حايا", "ar", "راج أفروم", 1, "pseudonymize", "PER"),
        ]
    )
    counts = import_table(project, table)
    arabic = surface_choice(project, "موشيه حايا")
    assert arabic is not None and arabic.entity_id == known.entity_id
    assert (counts.added, counts.present, counts.entities) == (1, 1, 0)


def test_importing_the_same_file_again_adds_nothing() -> None:
    source = decided_project()
    target = ProjectFactory()
    import_table(target, export_table(source))
    before = aliases(target).count()
    counts = import_table(target, export_table(source))
    assert (counts.added, counts.present, counts.conflicts) == (0, 9, 0)
    assert aliases(target).count() == before


def test_a_conflicting_file_is_refused_whole_and_says_where() -> None:
    project = ProjectFactory()
    surface_decide(
        project=project,
        surface="Moshe Chaya",
        language="en",
        label="PER",
        decision="pseudonymize",
        replacement="Tom Other",
    )
    surface_decide(project=project, surface="Le Monde", language="fr", label="ORG", decision="keep")
    before = sorted(aliases(project).values_list("pk", "replacement"))
    table = KeyTable(
        aliases=[
            KeyAlias("Jane Roe", "en", "Ann Smith", 1, "pseudonymize", "PER"),  # new, fine
            KeyAlias("MOSHE  chaya", "en", "Raj Avrom", 2, "pseudonymize", "PER"),
            KeyAlias("Le Monde", "fr", "Le Journal", 3, "pseudonymize", "ORG"),
        ]
    )
    with pytest.raises(ImportConflicts) as refused:
        import_table(project, table)
    error = refused.value
    assert (error.counts.conflicts, error.counts.present, error.counts.added) == (2, 0, 0)
    assert [(c.row, c.entity, c.language) for c in error.conflicts] == [(2, 2, "en"), (3, 3, "fr")]
    assert "keep" in error.conflicts[1].reason
    text = str(error) + json.dumps([c.reason for c in error.conflicts])
    assert not any(original in text.casefold() for original in ("moshe", "chaya", "monde"))
    assert sorted(aliases(project).values_list("pk", "replacement")) == before
    assert surface_choice(project, "Jane Roe") is None


def test_a_pseudonym_that_names_someone_in_the_project_is_a_conflict_and_nothing_changes() -> None:
    project = ProjectFactory()
    surface_decide(
        project=project,
        surface="Sam Other",
        language="en",
        label="PER",
        decision="pseudonymize",
        replacement="Ann Smith",
    )
    table = KeyTable(
        aliases=[
            KeyAlias("Jane Roe", "en", "Kim Lee", 1, "pseudonymize", "PER"),
            # "Sam Other" is an original of the project: never a pseudonym.
            KeyAlias("Tom Reddle", "en", "Sam Other", 2, "pseudonymize", "PER"),
            # "Ann Smith" is a pseudonym of the project: never a new surface.
            KeyAlias("Ann Smith", "en", "Joe Bloggs", 3, "pseudonymize", "PER"),
        ]
    )
    count = aliases(project).count()
    with pytest.raises(ImportConflicts) as refused:
        import_table(project, table)
    assert sorted(c.row for c in refused.value.conflicts) == [2, 3]
    assert aliases(project).count() == count
    assert surface_choice(project, "Jane Roe") is None


def test_a_file_that_breaks_the_rules_on_its_own_is_refused() -> None:
    table = KeyTable(
        aliases=[
            KeyAlias("Jane Roe", "en", "Kim Lee", 1, "pseudonymize", "PER"),
            KeyAlias("Tom Reddle", "en", "kim  LEE", 2, "pseudonymize", "PER"),
        ]
    )
    project = ProjectFactory()
    with pytest.raises(KeyFileRefused, match="alias 2 of the file"):
        import_table(project, table)
    assert not aliases(project).exists()


def test_a_wrong_passphrase_is_a_clear_error_that_changes_nothing_and_is_audited() -> None:
    data, _ = keys_export(project=decided_project(), passphrase=PASSPHRASE)
    target = ProjectFactory()
    with pytest.raises(KeyFileRefused, match="wrong passphrase or damaged key file"):
        keys_import(project=target, data=data, passphrase="not the passphrase")
    with pytest.raises(KeyFileRefused, match="not a Cloak key file"):
        keys_import(project=target, data=b"\x00garbage", passphrase=PASSPHRASE)
    assert not aliases(target).exists()
    events = AuditEvent.objects.filter(project=target, action=AuditAction.KEY_IMPORT)
    assert [e.detail["outcome"] for e in events] == ["refused: unreadable or invalid file"] * 2


def test_an_export_needs_a_long_passphrase() -> None:
    project = decided_project()
    with pytest.raises(DomainError, match="at least 12 characters"):
        keys_export(project=project, passphrase="short")
    assert not AuditEvent.objects.filter(project=project).exists()


def test_export_and_import_are_audited_with_counts_and_no_original() -> None:
    admin = UserFactory()
    source = decided_project()
    data, count = keys_export(
        project=source, passphrase=PASSPHRASE, actor=admin, ip_address="10.0.0.1"
    )
    assert count == 9
    target = ProjectFactory()
    keys_import(project=target, data=data, passphrase=PASSPHRASE, actor=admin)
    with pytest.raises(ImportConflicts):
        conflicting = KeyTable(
            aliases=[KeyAlias("Moshe Chaya", "en", "Zed Zulu", 1, "pseudonymize", "PER")]
        )
        keys_import(
            project=target, data=table_to_bytes(conflicting, PASSPHRASE), passphrase=PASSPHRASE
        )
    exported = AuditEvent.objects.get(project=source, action=AuditAction.KEY_EXPORT)
    assert exported.actor == admin and exported.ip_address == "10.0.0.1"
    assert exported.detail == {"aliases": 9, "entities": 5}
    imported = list(AuditEvent.objects.filter(project=target).order_by("pk"))
    assert [e.detail["outcome"] for e in imported] == ["imported", "refused: conflicts"]
    assert imported[0].detail["added"] == 9
    assert imported[1].detail["conflicts"] == 1
    stored = json.dumps([[e.target, e.detail] for e in (exported, *imported)], ensure_ascii=False)
    for secret in [*ORIGINALS, PASSPHRASE]:
        assert secret.casefold() not in stored.casefold()
