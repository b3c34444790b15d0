"""Review items' pseudonyms live with the keys: written there, read back audited, moved there
from items raised before (keys migration 0005), deleted with their project."""

from __future__ import annotations

import hashlib
import importlib
from types import SimpleNamespace
from typing import Any

from django.apps import apps
from django.db import connections
from django.db.models import Q

from annotator.keys import crypto
from annotator.keys.models import Alias, ReviewNote
from annotator.models import AuditAction, AuditEvent, ReviewItem, ReviewKind
from annotator.routers import keys_alias
from annotator.services.projects import project_delete
from annotator.services.review.scan import review_scan
from annotator.services.table import review_notes, review_notes_read, surface_decide
from pseudonymizer.folding import fold_key
from tests.conftest import Team
from tests.factories import DocumentFactory

migration = importlib.import_module("annotator.keys.migrations.0005_review_notes")
TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."


def _old_fingerprint(kind: str, *parts: object) -> str:
    """As review items were fingerprinted before: pseudonyms hashed without a key."""
    return hashlib.sha256("\x1f".join([kind, *map(str, parts)]).encode()).hexdigest()


def _migrate() -> None:
    editor = SimpleNamespace(connection=connections[keys_alias()])
    migration.forwards(apps, editor)


def _old_items(team: Team) -> tuple[ReviewItem, ReviewItem, ReviewItem]:
    """A pseudonym found as an original, an entity conflict and a refused choice, resolved,
    as they were stored before: pseudonyms in the item."""
    project = team.project
    clash = surface_decide(
        project=project, surface="Acme Corp", language="en", label="ORG",
        decision="pseudonymize", replacement="Alphonse METAYER",
    )  # fmt: skip
    # Imported after the choice: a pseudonym found in the corpus is refused when given.
    document = DocumentFactory(project=project, text=TEXT)
    found = ReviewItem.objects.create(
        project=project, kind=ReviewKind.ORIGINAL_REPLACEMENT, document=document,
        entity_id=clash.entity_id,
        fingerprint=_old_fingerprint(ReviewKind.ORIGINAL_REPLACEMENT, clash.alias_id,
                                     fold_key("Alphonse METAYER")),
        detail={"entity_id": clash.entity_id, "label": "ORG", "language": "en",
                "alias_id": clash.alias_id, "replacement": "Alphonse METAYER",
                "documents": [document.pk], "occurrences": 1},
    )  # fmt: skip
    moshe = surface_decide(
        project=project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", replacement="Raj Avrom",
    )  # fmt: skip
    other = Alias(entity_id=moshe.entity_id, project_id=project.pk, language="en")
    other.set_original("Moshe Cohen", project.secret)
    other.set_replacement("Dov Levi")
    other.save(using=keys_alias())
    # "Moshe" is "Raj" in "Moshe Chaya" and in the word cut from it, "Dov" in "Moshe Cohen".
    word = crypto.surface_digest(project.secret, "Moshe")
    involved = list(
        Alias.objects.using(keys_alias())
        .filter(Q(pk__in=[moshe.alias_id, other.pk]) | Q(original_digest=word))
        .order_by("pk")
    )
    assert len(involved) == 3
    conflict = ReviewItem.objects.create(
        project=project, kind=ReviewKind.ENTITY_CONFLICT, entity_id=moshe.entity_id,
        fingerprint=_old_fingerprint(
            ReviewKind.ENTITY_CONFLICT, moshe.entity_id, "en",
            sorted((alias.pk, alias.replacement_key) for alias in involved),
        ),
        detail={"entity_id": moshe.entity_id, "label": "PER", "language": "en",
                "alias_id": other.pk, "alias_ids": [alias.pk for alias in involved],
                "replacements": sorted({alias.replacement for alias in involved})},
    )  # fmt: skip
    refused = ReviewItem.objects.create(
        project=project, kind=ReviewKind.SURFACE_CONFLICT, document=document,
        entity_id=moshe.entity_id, status="resolved", resolved_at=document.created_at,
        fingerprint=_old_fingerprint("attempt", document.pk, "12:23", "pseudonymize",
                                     fold_key("Quill Wanted"), moshe.entity_id),
        detail={"entity_id": moshe.entity_id, "label": "PER", "language": "en", "start": 12,
                "end": 23, "wanted": {"decision": "pseudonymize", "replacement": "Quill Wanted"},
                "recorded": {"decision": "pseudonymize", "replacement": "Raj Avrom"}},
        resolution={"action": "resolve", "decision": "pseudonymize",
                    "entity_id": moshe.entity_id, "replacement": "Ezra Vantongeren"},
    )  # fmt: skip
    return found, conflict, refused


PSEUDONYMS = ("Alphonse METAYER", "Dov Levi", "Raj Avrom", "Quill Wanted", "Ezra Vantongeren")


def test_the_migration_moves_every_pseudonym_out_of_the_items(team: Team) -> None:
    found, conflict, refused = _old_items(team)
    fingerprints = {item.pk: item.fingerprint for item in (found, conflict, refused)}

    _migrate()
    _migrate()  # a second run finds nothing left to move and changes nothing

    for item in (found, conflict, refused):
        item.refresh_from_db()
        stored = str([item.detail, item.resolution])
        assert not [p for p in PSEUDONYMS if p in stored], stored
        assert item.fingerprint != fingerprints[item.pk]
    notes = review_notes(team.project, [found.pk, conflict.pk, refused.pk])
    assert notes[found.pk].detail == {"replacement": "Alphonse METAYER"}
    assert notes[conflict.pk].detail == {"replacements": ["Dov Levi", "Raj", "Raj Avrom"]}
    assert notes[refused.pk].detail == {
        "wanted": {"replacement": "Quill Wanted"},
        "recorded": {"replacement": "Raj Avrom"},
    }
    assert notes[refused.pk].resolution == {"replacement": "Ezra Vantongeren"}
    assert refused.detail["wanted"] == {"decision": "pseudonymize"}
    assert refused.resolution == {"action": "resolve", "decision": "pseudonymize",
                                  "entity_id": refused.entity_id}  # fmt: skip


def test_a_scan_after_the_migration_knows_the_conflicts_it_raised(team: Team) -> None:
    _old_items(team)
    _migrate()

    summary = review_scan(project=team.project)

    # Both open conflicts are still there, and the scan takes them for the ones raised.
    assert summary.raised.get(ReviewKind.ORIGINAL_REPLACEMENT, 0) == 0
    assert summary.raised.get(ReviewKind.ENTITY_CONFLICT, 0) == 0


def test_reading_the_pseudonyms_is_an_audited_read_of_the_keys(team: Team) -> None:
    found, conflict, _ = _old_items(team)
    _migrate()
    unnoted = ReviewItem.objects.create(project=team.project, kind=ReviewKind.FLAG)

    nothing = review_notes_read(project=team.project, item_ids=[unnoted.pk], actor=team.lead)
    shown = review_notes_read(
        project=team.project, item_ids=[found.pk, conflict.pk, unnoted.pk], actor=team.lead,
        ip_address="192.0.2.1",
    )  # fmt: skip

    assert nothing == {}
    assert set(shown) == {found.pk, conflict.pk}
    (event,) = AuditEvent.objects.filter(action=AuditAction.KEY_READ)
    assert event.actor == team.lead and event.ip_address == "192.0.2.1"
    assert event.detail == {"view": "review", "shown": 2, "items": sorted([found.pk, conflict.pk])}
    assert not [p for p in PSEUDONYMS if p in str(event.detail) + event.target]


def test_the_notes_go_with_their_project(team: Team, settings: Any) -> None:
    _old_items(team)
    _migrate()
    assert ReviewNote.objects.using(keys_alias()).filter(project_id=team.project.pk).exists()

    project_id = team.project.pk
    project_delete(team.project)

    assert not ReviewNote.objects.using(keys_alias()).filter(project_id=project_id).exists()
