"""The words a text offers the known-entity matcher, and the words a surface needs from them:
what lets a corpus's vocabulary answer "could the matcher find this surface in any document"
without reading the documents.

The contract, tested on the matcher itself: when `KnownEntityRecognizer([(surface, label)])`
finds `surface` in `text`, every set of `surface_words(surface)` meets `text_words(text)`.
So a surface one of whose sets meets no word of a corpus's vocabulary occurs in none of its
documents, and only a surface whose every set is met needs its documents read.

Why it holds. The matcher compares folded forms (`pseudonymizer.folding.fold`) and refuses a
match that starts or ends inside a word of the original text. The words here are the runs of
letters and digits of the folded text, so a surface's words, each delimited in the surface by
what is not a letter or a digit, are whole words of the text where it matches, with three
exceptions, each covered:

- an Arabic name may carry proclitics (و ف ب ك ل and the article, `PROCLITICS`): a word is
  also offered without each proclitic it starts with ("ولندن" offers "لندن");
- with ل the article's alef is elided ("للقاهرة"): a surface that starts with the article
  needs either its first word or that word without the alef ("القاهرة" or "لقاهرة");
- a character that folds to nothing is dropped from the folded text, but some of them (a
  zero-width space, the soft hyphen: `vanishing_separators`) still end a word of the
  original: a text holding one is also read with those characters as spaces, and offers the
  words of both readings.

What is left: a word of the original that such characters split twice over, as in
"x\u200bMo\u200bshe" (each reading joins one of the two pieces to a neighbour), and a
character that is neither a letter nor a digit but folds to one ("℃" → "°c") right before a
word. A vocabulary misses those surfaces; a document's leak check at release reads every text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache

from pseudonymizer.folding import (
    ARABIC_ARTICLE,
    fold,
    fold_key,
    is_arabic_letter,
    vanishing_separators,
)
from pseudonymizer.recognizers.known import PROCLITICS

# A word: a run of letters and digits (what `str.isalnum` says), underscores apart: the
# matcher tells words apart with `str.isalnum` alone.
_WORD = re.compile(r"[^\W_]+")
_LONGEST_PROCLITIC = max(len(proclitic) for proclitic in PROCLITICS)
# The shortest word a proclitic leaves that is worth offering: the matcher ignores surfaces
# shorter than two characters.
_SHORTEST_LEFT = 2


@lru_cache(maxsize=1)
def _separators() -> tuple[re.Pattern[str], dict[int, str]]:
    """The characters that fold to nothing yet end a word (`vanishing_separators`: zero-width
    spaces, the soft hyphen, …) as a pattern, and a table turning each into a space."""
    chars = sorted(vanishing_separators())
    pattern = re.compile("[" + "".join(re.escape(char) for char in chars) + "]")
    return pattern, {ord(char): " " for char in chars}


def text_tokens(text: str, folded: str | None = None) -> Iterable[str]:
    """The white-space separated pieces of `text`'s folded form (`folded` when the caller
    has it), and of its form with vanishing separators as spaces when it holds one: cheap to
    take from every document of an import (`str.split`); `word_forms` makes them words."""
    if folded is None:
        folded = fold(text)
    pieces = folded.split()
    pattern, spaces = _separators()
    if pattern.search(text) is None:
        return pieces
    return [*pieces, *fold(text.translate(spaces)).split()]


def word_forms(tokens: Iterable[str]) -> set[str]:
    """The words that `tokens` (of `text_tokens`) offer the matcher: their runs of letters
    and digits, and each Arabic one also without each proclitic it starts with. Done once
    over the distinct tokens of many documents."""
    words: set[str] = set()
    for token in tokens:
        runs = [token] if token.isalnum() else _WORD.findall(token)
        for run in runs:
            words.add(run)
            if not is_arabic_letter(run[0]):
                continue
            for length in range(1, min(_LONGEST_PROCLITIC, len(run) - _SHORTEST_LEFT) + 1):
                if run[:length] in PROCLITICS:
                    words.add(run[length:])
    return words


def text_words(text: str) -> set[str]:
    """Every word `text` offers the matcher (see the module's docstring)."""
    return word_forms(text_tokens(text))


def surface_words(surface: str) -> list[frozenset[str]] | None:
    """What a text must offer for the matcher to find `surface` in it: for each word of the
    surface, the forms of which one must be among the text's words. None for a surface the
    matcher never looks for (shorter than two characters folded); [] when it has no word at
    all (punctuation only): any text may hold it."""
    key = fold_key(surface)
    if len(key) < 2:
        return None
    runs = _WORD.findall(key)
    needed = [frozenset({run}) for run in runs]
    if (
        needed
        and key.startswith(ARABIC_ARTICLE)
        and len(key) > 3
        and is_arabic_letter(key[2])
        and len(runs[0]) > len(ARABIC_ARTICLE)
    ):
        # After ل the article's alef is elided: "للقاهرة" holds "القاهرة" as "لقاهرة".
        needed[0] = frozenset({runs[0], runs[0][1:]})
    return needed


def word_digest(word: str) -> int:
    """A word's digest as a vocabulary stores it: 64 bits of BLAKE2b, as a signed integer (a
    PostgreSQL bigint). Two words sharing one only make a surface look possible, and its
    documents read: never a miss."""
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8, person=b"cloak-words")
    return int.from_bytes(digest.digest(), "big", signed=True)
