"""Domain exceptions raised by services; pages and the API turn them into answers."""


class DomainError(Exception):
    """A request the domain refuses, with a message fit to show the person who made it."""


class NotFoundError(DomainError):
    pass


class ConflictError(DomainError):
    """A concurrent edit: the row moved since the caller read it."""


class ImportRefused(DomainError):
    """A file refused whole; nothing of it was written."""
