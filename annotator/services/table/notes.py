"""The pseudonyms of the lead's review queue, kept with the keys (`annotator.keys.notes`):
written by the review service, read back for a lead's page or answer with an audited read;
and those an undo step puts back (`annotator.keys.undo`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from annotator.audit import audit_record
from annotator.keys import notes as keys
from annotator.keys import undo
from annotator.keys.notes import Note
from annotator.models import AuditAction, Project
from annotator.services.table.base import scope_of

__all__ = ["Note"]


def review_note_write(
    *,
    project: Project,
    item_id: int,
    detail: Mapping[str, Any] | None = None,
    resolution: Mapping[str, Any] | None = None,
) -> None:
    """Keep the pseudonyms of review item `item_id`, laid over what its note holds."""
    keys.review_note_write(scope_of(project), item_id=item_id, detail=detail, resolution=resolution)


def review_notes(project: Project, item_ids: Iterable[int]) -> dict[int, Note]:
    """The notes of the items `item_ids` that have one, by item id. Unaudited: for code,
    never for a page (`review_notes_read`)."""
    return keys.review_notes(scope_of(project), item_ids)


def review_notes_read(
    *,
    project: Project,
    item_ids: Iterable[int],
    actor: Any,
    ip_address: str | None = None,
) -> dict[int, Note]:
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


def undo_note_write(*, project: Project, step_id: int, pseudonyms: Mapping[int, str]) -> None:
    """Keep the pseudonyms (by span id) that undo step `step_id` puts back."""
    undo.undo_note_write(scope_of(project), step_id=step_id, pseudonyms=pseudonyms)


def undo_note_read(*, project: Project, step_id: int) -> dict[int, str]:
    """The pseudonyms undo step `step_id` puts back, by span id. Unaudited: the undo of a
    person's own step, on the document they annotate, where the page shows them these
    pseudonyms anyway."""
    return undo.undo_note_read(scope_of(project), step_id)


def undo_notes_delete(step_ids: Iterable[int] = (), *, before: datetime | None = None) -> int:
    """Delete the notes of the steps `step_ids`, and those written before `before`."""
    return undo.undo_notes_delete(step_ids, before=before)
