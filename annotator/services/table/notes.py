"""A lead's read of the pseudonyms of the review queue, kept with the keys
(`annotator.keys.notes`), audited. The review service writes them, and code reads them, with
the keys' own functions (`review_note_write`, `review_notes`), which the door hands on."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from annotator.audit import audit_record
from annotator.keys import notes as keys
from annotator.keys.notes import Note
from annotator.models import AuditAction, Project

__all__ = ["Note"]


def review_notes_read(
    *,
    project: Project,
    item_ids: Iterable[int],
    actor: Any,
    ip_address: str | None = None,
) -> dict[int, Note]:
    """The notes of the items a lead's page or API answer shows, by item id; audited as a
    read of the table (`key_read`, the items' ids, never a pseudonym) when it shows any."""
    notes = keys.review_notes(project, item_ids)
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
