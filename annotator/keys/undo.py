"""The pseudonyms of the page's undo steps, kept with the keys (`UndoNote`).

An undo step (`annotator.UndoStep`) names a document's spans by id, offsets and version, in
the web role's tables; the pseudonyms their surfaces had before the step, which an undo puts
back, are kept here, where only the keys' role reads them, and read by the undo itself (the
person who took the step, on their own document, where the page shows them those pseudonyms
anyway).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from annotator.keys.models import UndoNote
from annotator.keys.scope import Scope
from annotator.routers import keys_alias


def undo_note_write(scope: Scope, *, step_id: int, pseudonyms: Mapping[int, str]) -> None:
    """Keep the pseudonyms (by span id) undo step `step_id` puts back; none, no note."""
    if not pseudonyms:
        return
    UndoNote.objects.using(keys_alias()).create(
        project_id=scope.pk,
        step_id=step_id,
        pseudonyms={str(span_id): pseudonym for span_id, pseudonym in pseudonyms.items()},
    )


def undo_note_read(scope: Scope, step_id: int) -> dict[int, str]:
    """The pseudonyms undo step `step_id` of the project puts back, by span id."""
    note = UndoNote.objects.using(keys_alias()).filter(project_id=scope.pk, step_id=step_id).first()
    if note is None:
        return {}
    return {int(span_id): pseudonym for span_id, pseudonym in note.pseudonyms.items()}


def undo_notes_delete(step_ids: Iterable[int] = (), *, before: datetime | None = None) -> int:
    """Delete the notes of the steps `step_ids`, and those written before `before`: the
    steps go with a sign-out, a deeper stack or their age, and their notes with them. The
    notes deleted."""
    rows = UndoNote.objects.using(keys_alias())
    deleted = 0
    ids = list(step_ids)
    if ids:
        deleted += rows.filter(step_id__in=ids).delete()[0]
    if before is not None:
        deleted += rows.filter(created_at__lt=before).delete()[0]
    return deleted
