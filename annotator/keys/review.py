"""The pseudonyms of the lead's review queue, kept with the keys (`ReviewNote`).

A review item (`annotator.ReviewItem`, in the web role's tables) names a document, a span
and an entity: with the document's text, a pseudonym beside it would pair an original with
its replacement for whoever reads those tables (19 pairs were read that way). So the review
service (`annotator.services.review`) writes an item's pseudonyms here, where only the keys'
role reads them, and the lead's pages and API read them back laid over the item
(`review_notes_read`), each answer that shows one audited as a read of the table.

The review's other need, telling whether a conflict is one already raised, takes no
pseudonym either: its fingerprint is made of keyed digests (`pseudonym_digest`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction

from annotator.keys import crypto
from annotator.keys.models import ReviewNote
from annotator.models import AuditAction, Project
from annotator.routers import keys_alias
from annotator.services.audit import audit_record


def pseudonym_digest(project: Project, pseudonym: str) -> str:
    """A pseudonym as a review fingerprint holds it: keyed (the keys' secret and the
    project's), compared as the table compares replacements; "" for none."""
    return crypto.surface_digest(project.secret, pseudonym) if pseudonym else ""


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


def review_note_write(
    *,
    project: Project,
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
            .get_or_create(item_id=item_id, defaults={"project_id": project.pk})
        )
        note.detail = laid_over(note.detail or {}, detail or {})
        note.resolution = laid_over(note.resolution or {}, resolution or {})
        note.save(using=database, update_fields=["detail", "resolution"])


def review_notes(project: Project, item_ids: Iterable[int]) -> dict[int, ReviewNote]:
    """The notes of the items `item_ids` of `project` that have one, by item id (one query).
    Unaudited: for code, never for a page (`review_notes_read`)."""
    ids = list(item_ids)
    if not ids:
        return {}
    rows = ReviewNote.objects.using(keys_alias()).filter(project_id=project.pk, item_id__in=ids)
    return {note.item_id: note for note in rows}


def review_notes_read(
    *,
    project: Project,
    item_ids: Iterable[int],
    actor: Any,
    ip_address: str | None = None,
) -> dict[int, ReviewNote]:
    """The notes of the items a lead's page or API answer shows, by item id; audited as a
    read of the table (`key_read`, the items' ids, never a pseudonym) when it shows any."""
    notes = review_notes(project, item_ids)
    if notes:
        shown = sorted(notes)
        audit_record(
            action=AuditAction.KEY_READ,
            actor=actor,
            project=project,
            target=f"review:{shown[0]}" if len(shown) == 1 else "review",
            detail={"view": "review", "shown": len(shown), "items": shown[:50]},
            ip_address=ip_address,
        )
    return notes
