"""The correspondence table's rules for what a new alias may be, written once for both of its
stores: the command line's `KeyTable` (`pseudonymizer.keytable`, a file) and the app's keys
repository (`annotator.keys.surfaces`, a database).

Each store answers two questions about what it holds (`TableView`), in its own way (an index
in memory; keyed digests and folded replacements in PostgreSQL), and asks the rules here,
which answer a reason to refuse or None. As Django's `SessionBase` holds every rule of a
session once for its several stores, a rule changed here changes for both; the property test
`tests/annotator/keys/test_two_stores.py` runs the same decisions through both and compares
the tables.

Surfaces and pseudonyms are compared folded (`pseudonymizer.folding.fold_key`: case, accents,
look-alike letters, spaces). No reason names an original.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pseudonymizer.folding import fold_key

# Why a pseudonym is refused, in the words both stores answer with.
EMPTY = "a pseudonym cannot be empty"
THE_ORIGINAL = "a pseudonym cannot be the original itself"
AN_ORIGINAL = "this pseudonym is an original in the project's table"
IN_USE = "another surface already has this pseudonym"
IN_CORPUS = "this pseudonym occurs in a document of the project"
# Why a surface is refused a choice of its own.
A_PSEUDONYM = "this surface is another surface's pseudonym"


class TableView(Protocol):
    """What a store answers for the rules, about what it holds now."""

    def is_original(self, text: str) -> bool:
        """Whether `text` is a surface of the table, or a word of a person's name that the
        table holds as a name of its own ("Moshe" of "Moshe Chaya")."""
        ...

    def in_use(self, text: str) -> bool:
        """Whether `text` is the pseudonym of a surface of the table (the surface whose
        pseudonym is being changed aside), or a word of one that stands for a word of a
        person's name ("Raj" of "Raj Avrom")."""
        ...


def replacement_refusal(
    view: TableView,
    surface: str,
    replacement: str,
    in_corpus: Callable[[str], bool] | None = None,
) -> str | None:
    """Why the table refuses `replacement` as the pseudonym of `surface`, or None: it must not
    be empty, nor the surface itself, nor an original of the table (it would name someone
    else), nor another surface's pseudonym (it would merge two people on release), nor found
    in a document (`in_corpus`, where the store can tell)."""
    key = fold_key(replacement)
    if not key:
        return EMPTY
    if key == fold_key(surface):
        return THE_ORIGINAL
    if view.is_original(replacement):
        return AN_ORIGINAL
    if view.in_use(replacement):
        return IN_USE
    if in_corpus is not None and in_corpus(replacement):
        return IN_CORPUS
    return None


def surface_refusal(view: TableView, surface: str) -> str | None:
    """Why the table refuses `surface` a choice of its own, or None: a surface that is already
    another surface's pseudonym would stand, in a release, for two people."""
    return A_PSEUDONYM if view.in_use(surface) else None
