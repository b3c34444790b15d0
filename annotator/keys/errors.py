"""The keys' own errors: what the table refuses, in its own words.

The repository knows nothing of the Domain's errors; the one Domain service that reaches the
keys (`annotator.services.table`) translates each of these into the Domain's (`DomainError`,
`NotFoundError`, `StaleVersion`, `SurfaceConflict`...). No message names an original.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annotator.keys.surfaces import Choice
    from annotator.keys.transfer import ImportConflict, ImportCounts


class KeysError(Exception):
    """A request the table refuses, with a message fit to show the person who made it."""


class Missing(KeysError):
    """No such entity or alias in the project."""


class Refused(KeysError):
    """A change the table's rules refuse; nothing was changed."""


class ReplacementRefused(Refused):
    """A replacement the table cannot take (used by another surface, or an original)."""


class KeyFileRefused(Refused):
    """A key file that cannot be read (wrong passphrase, damaged, another kind of file) or
    that breaks the table's rules on its own; nothing was changed."""


class Stale(KeysError):
    """An edit named a version the entity has left; `entity_id` is that entity."""

    def __init__(self, message: str, entity_id: int) -> None:
        super().__init__(message)
        self.entity_id = entity_id


class Taken(KeysError):
    """The surface already has another choice; `winner` is it."""

    def __init__(self, message: str, winner: Choice) -> None:
        super().__init__(message)
        self.winner = winner


class FileConflicts(KeysError):
    """The file's aliases the project's table refuses; nothing was imported."""

    def __init__(self, counts: ImportCounts, conflicts: list[ImportConflict]) -> None:
        super().__init__(
            f"{len(conflicts)} alias{'es' if len(conflicts) != 1 else ''} of the file conflict "
            "with the project's table: nothing was imported"
        )
        self.counts = counts
        self.conflicts = conflicts
