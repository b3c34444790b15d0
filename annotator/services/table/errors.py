"""The table's refusals in the Domain's words: each error of the keys (`annotator.keys.errors`)
becomes the Domain's (`annotator.services.errors`), which pages and the API answer."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from annotator.keys import errors as keys
from annotator.keys.surfaces import Choice
from annotator.keys.transfer import ImportConflict, ImportCounts
from annotator.services.errors import ConflictError, DomainError, NotFoundError, StaleVersion


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

    def __init__(self, message: str, counts: ImportCounts, conflicts: list[ImportConflict]):
        super().__init__(message)
        self.counts = counts
        self.conflicts = conflicts


def domain_error(error: keys.KeysError) -> DomainError:
    """The Domain's error for an error of the keys, with its message."""
    message = str(error)
    if isinstance(error, keys.Missing):
        return NotFoundError(message)
    if isinstance(error, keys.Stale):
        return StaleVersion(message, error.entity_id)
    if isinstance(error, keys.Taken):
        return SurfaceConflict(message, error.winner)
    if isinstance(error, keys.ReplacementRefused):
        return ReplacementRefused(message)
    if isinstance(error, keys.KeyFileRefused):
        return KeyFileRefused(message)
    if isinstance(error, keys.FileConflicts):
        return ImportConflicts(message, error.counts, error.conflicts)
    return DomainError(message)


@contextmanager
def translated() -> Iterator[None]:
    """Raise the Domain's error for any error of the keys raised inside."""
    try:
        yield
    except keys.KeysError as error:
        raise domain_error(error) from None
