"""The refusals of the Domain, which pages and the API turn into answers: raised by the
services and, in the same family, by the keys (`annotator.keys.errors`), so that no error is
written twice or translated on its way up. Below every layer of the app: it imports nothing
of it."""


class DomainError(Exception):
    """A request the domain refuses, with a message fit to show the person who made it."""


class NotFoundError(DomainError):
    pass


class ConflictError(DomainError):
    """A concurrent edit: the row moved since the caller read it."""


class StaleVersion(ConflictError):
    """A write named a version the row has left; `current` is the row as it is now."""

    def __init__(self, message: str, current: object) -> None:
        super().__init__(message)
        self.current = current


class NeedsConfirmation(DomainError):
    """A decision a person must confirm (a surface of less than a word, a relabel that every
    span of an entity follows): sent again with `confirm`, it goes through; nothing was
    changed. `action` says what confirming does, for the page's button."""

    def __init__(self, message: str, action: str = "Decide it as it is") -> None:
        super().__init__(message)
        self.action = action


class ImportRefused(DomainError):
    """A file refused whole; nothing of it was written."""
