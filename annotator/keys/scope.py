"""Which table a call of the keys is about: a project's, read by its id and its secret.

The repository asks only these two of it, never the Domain's `Project` as such: the keys know
nothing above them. A `Project` answers both (`pk`, `secret`), so the Domain hands its
project over as it is, with nothing to build or translate on the way.
"""

from __future__ import annotations

from typing import Protocol


class Scope(Protocol):
    """A project's correspondence table: its id, and its secret (keyed digests)."""

    @property
    def pk(self) -> int: ...

    @property
    def secret(self) -> str: ...
