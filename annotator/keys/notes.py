"""The pseudonyms of the lead's review queue, kept with the keys (`ReviewNote`).

A review item (`annotator.ReviewItem`, in the web role's tables) names a document, a span
and an entity: with the document's text, a pseudonym beside it would pair an original with
its replacement for whoever reads those tables (19 pairs were read that way). So the review
service writes an item's pseudonyms here, where only the keys' role reads them, and the
lead's pages and API read them back laid over the item (`Note.over`), each answer that
shows one audited as a read of the table (by `annotator.services.table`).

The review's other need, telling whether a conflict is one already raised, takes no
pseudonym either: its fingerprint is made of keyed digests (`pseudonym_digest`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotator.keys import crypto
from annotator.keys.models import ReviewNote
from annotator.keys.scope import Scope
from annotator.routers import keys_alias


def pseudonym_digest(scope: Scope, pseudonym: str) -> str:
    """A pseudonym as a review fingerprint holds it: keyed (the keys' secret and the
    project's), compared as the table compares replacements; "" for none."""
    return crypto.surface_digest(scope.secret, pseudonym) if pseudonym else ""


def laid_over(stored: Mapping[str, Any], kept: Mapping[str, Any]) -> dict[str, Any]:
    """`stored` with `kept` laid over it, objects in both merged key by key: the item's
    `{"wanted": {"decision": "keep"}}` and the note's `{"wanted": {"replacement": "Raj"}}`
    read as one."""
    merged: dict[str, Any] = dict(stored)
    for key, value in kept.items():
        below = merged.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = laid_over(below, value)
        else:
            merged[key] = value
    return merged


@dataclass(frozen=True)
class Note:
    """What the keys hold of one review item: its pseudonyms, in the shape of its `detail`
    and `resolution`."""

    item_id: int
    detail: dict[str, Any]
    resolution: dict[str, Any]

    def over(
        self, detail: Mapping[str, Any], resolution: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The item's `detail` and `resolution` with this note laid over them."""
        return laid_over(detail, self.detail), laid_over(resolution, self.resolution)


def review_note_write(
    scope: Scope,
    *,
    item_id: int,
    detail: Mapping[str, Any] | None = None,
    resolution: Mapping[str, Any] | None = None,
) -> None:
    """Keep the pseudonyms of review item `item_id`: `detail` and `resolution` are laid over
    what the note holds already."""
    if not detail and not resolution:
        return
    database = keys_alias()
    with transaction.atomic(using=database):
        note, _ = (
            ReviewNote.objects.using(database)
            .select_for_update()
            .get_or_create(item_id=item_id, defaults={"project_id": scope.pk})
        )
        note.detail = laid_over(note.detail or {}, detail or {})
        note.resolution = laid_over(note.resolution or {}, resolution or {})
        note.save(using=database, update_fields=["detail", "resolution"])


def review_notes(scope: Scope, item_ids: Iterable[int]) -> dict[int, Note]:
    """The notes of the items `item_ids` of the project that have one, by item id (one
    query). Unaudited: the Domain audits a person's read of them."""
    ids = list(item_ids)
    if not ids:
        return {}
    rows = ReviewNote.objects.using(keys_alias()).filter(project_id=scope.pk, item_id__in=ids)
    return {
        note.item_id: Note(note.item_id, dict(note.detail or {}), dict(note.resolution or {}))
        for note in rows
    }
