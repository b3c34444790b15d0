"""The blind word index of the correspondence table (`AliasWord`): keyed digests only.

Each alias gets one row per distinct word of its original (matching form: case, accents,
Arabic letter variants, zero-width characters and compatibility forms folded, as the matcher
and the table fold them, `pseudonymizer.folding`), so that a lead's search for "chaya" finds
"Moshe Châya" and "ＣＨＡＹＡ" by digest, without the database holding or comparing a
plaintext word. Two more kinds of rows, told apart by a prefix inside the digest column, serve
the candidate links (`annotator.keys.links`):

- `s:` the keyed digest of each consonant skeleton of the whole original
  (`pseudonymizer.transliterate`): "Moshe Chaya" and "موشيه حايا" share one;
- `r:` the keyed digest of each word of the replacement: two entities given pseudonyms that
  share a word ("Raj Avrom", "Raj") were probably thought of as one person.

A word digest is 64 hex characters; a tagged one is its prefix and the first 62 of its own.
Everything that creates an alias, or changes its replacement, writes its rows here.
"""

from __future__ import annotations

from collections.abc import Iterable

from annotator.keys import crypto
from annotator.keys.models import Alias, AliasWord
from annotator.routers import keys_alias
from pseudonymizer.pseudonyms.shape import word_keys
from pseudonymizer.transliterate import skeletons

SKELETON = "s:"
REPLACEMENT = "r:"
_TAGGED_LENGTH = 62


def words_of(text: str) -> list[str]:
    """The words of `text` as the index keeps them (folded), each once, in order."""
    return list(dict.fromkeys(word_keys(crypto.normalise_surface(text))))


def word_digest(secret: str, word: str) -> str:
    return crypto.surface_digest(secret, word)


def _tagged(secret: str, tag: str, value: str) -> str:
    return tag + crypto.surface_digest(secret, tag + value)[:_TAGGED_LENGTH]


def query_digests(secret: str, query: str) -> list[str]:
    """The word digests a search for `query` looks for (every one must match)."""
    return [word_digest(secret, word) for word in words_of(query)]


def replacement_digests(secret: str, replacement: str) -> list[str]:
    return [_tagged(secret, REPLACEMENT, word) for word in words_of(replacement)]


def skeleton_digests(secret: str, original: str) -> list[str]:
    found = sorted(s for s in skeletons(original) if len(s.replace(" ", "")) >= 2)
    return [_tagged(secret, SKELETON, skeleton) for skeleton in found]


def alias_digests(secret: str, original: str, replacement: str, *, token: bool = False) -> set[str]:
    """Every digest the index holds for an alias. A token-level alias ("Moshe" cut from
    "Moshe Chaya") has its words only: its skeleton and its pseudonym's words are its
    parent's already, and alone they would pair every Moshe with every other."""
    words = {word_digest(secret, word) for word in words_of(original)}
    if token:
        return words
    return words | {*skeleton_digests(secret, original), *replacement_digests(secret, replacement)}


def word_rows(secret: str, alias: Alias, original: str) -> list[AliasWord]:
    digests = alias_digests(secret, original, alias.replacement, token=alias.parent_id is not None)
    return [
        AliasWord(alias_id=alias.pk, project_id=alias.project_id, digest=digest)
        for digest in sorted(digests)
    ]


def words_write(secret: str, pairs: Iterable[tuple[Alias, str]]) -> None:
    """Index each saved (alias, original) of `pairs` (rows already there are kept)."""
    rows = [row for alias, original in pairs for row in word_rows(secret, alias, original)]
    AliasWord.objects.using(keys_alias()).bulk_create(rows, ignore_conflicts=True, batch_size=2000)


def replacement_words_rewrite(secret: str, alias: Alias) -> None:
    """After `alias`'s replacement changed: its `r:` rows again."""
    database = keys_alias()
    AliasWord.objects.using(database).filter(
        alias_id=alias.pk, digest__startswith=REPLACEMENT
    ).delete()
    if alias.parent_id is not None:
        return
    rows = [
        AliasWord(alias_id=alias.pk, project_id=alias.project_id, digest=digest)
        for digest in replacement_digests(secret, alias.replacement)
    ]
    AliasWord.objects.using(database).bulk_create(rows, ignore_conflicts=True)
