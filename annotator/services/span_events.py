"""What a person's write to a span says it did, for what follows it
(`annotator.services.after_decision`, which lists what follows, in order):

- `Decided`: a write to a span or a document's status, told inside the writer's transaction.
  What follows defers what it sends to the commit (`task_send_on_commit`,
  `transaction.on_commit`), so a write that rolls back (one span of `spans_decide_all` in its
  savepoint) sets off nothing.
- `Refused`: a decision the correspondence table refused (`SurfaceConflict`), told once the
  refused write has rolled back, for the lead's review.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotator.models import Document, Project
from annotator.services.table import SurfaceConflict


@dataclass(frozen=True)
class NewChoice:
    """A choice the decision of span `span_id` made new to the correspondence table."""

    alias_id: int
    span_id: int


@dataclass(frozen=True)
class Decided:
    """What one write of the span service did, as its subscribers need it."""

    project: Project
    document_id: int
    language: str
    # A replica of blind double annotation: its decisions are measured, never the project's.
    replica: bool
    actor_id: int | None
    # The spans a person changed (added, decided, moved, removed); none for a status alone.
    span_ids: tuple[int, ...] = ()
    # Choices new to the table, to be proposed wherever else their surface occurs.
    new_choices: tuple[NewChoice, ...] = ()
    # The document was marked done by this write: new gold, or a pair to agree on.
    done: bool = False


@dataclass(frozen=True)
class Refused:
    """A decision the correspondence table refused (`conflict`), the write rolled back. Either
    `span_id` (a change to that span) or `start` and `end` (a span to add) say where."""

    document: Document
    actor: Any
    conflict: SurfaceConflict
    decision: str | None
    replacement: str | None = None
    keep_reason: str = ""
    span_id: int | None = None
    start: int | None = None
    end: int | None = None
