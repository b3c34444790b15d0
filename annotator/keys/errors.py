"""The table's own refusals, in the Domain's family (`annotator.errors`): the keys raise
them, or the Domain's `NotFoundError`, `StaleVersion` (with the entity's id) and
`DomainError`, and they reach pages and the API as they are, through the door
(`annotator.services.table`). No message names an original.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.errors import ConflictError, DomainError

if TYPE_CHECKING:
    from annotator.keys.surfaces import Choice
    from annotator.keys.transfer import ImportConflict, ImportCounts


class SurfaceConflict(ConflictError):
    """The surface already has another choice; `winner` is it."""

    def __init__(self, message: str, winner: Choice) -> None:
        super().__init__(message)
        self.winner = winner


class ReplacementRefused(DomainError):
    """A replacement the table cannot take (used by another surface, or an original)."""


class KeyFileRefused(DomainError):
    """A key file that cannot be read (wrong passphrase, damaged, another kind of file) or
    that breaks the table's rules on its own; nothing was changed."""


class ImportConflicts(ConflictError):
    """The file's aliases the project's table refuses; nothing was imported."""

    def __init__(self, counts: ImportCounts, conflicts: list[ImportConflict]) -> None:
        super().__init__(
            f"{len(conflicts)} alias{'es' if len(conflicts) != 1 else ''} of the file conflict "
            "with the project's table: nothing was imported"
        )
        self.counts = counts
        self.conflicts = conflicts
