"""Which table a call of the keys is about: a project's, by id, with its secret.

The repository takes this, never the Domain's `Project`: the keys know nothing above them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """A project's correspondence table: its id, and its secret (keyed digests)."""

    project_id: int
    secret: str
