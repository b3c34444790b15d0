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
  zero-width space, the soft hyphen: `pseudonymizer.folding.vanishing_separators`) still
  end a word of the original: a text holding one is also read with those characters as
  spaces, and offers the words of both readings.

Numbers are words too, but their groups ("12", "34") occur in every corpus: a text also
offers its runs of numbers ("+33 6 12 34" offers "33 6", "6 12", "33 6 12", …), and a
surface holding one needs it, so that a phone number is looked up whole.

What is left: a word of the original that such characters split twice over, as in
"x\u200bMo\u200bshe" (each reading joins one of the two pieces to a neighbour), and a
character that is neither a letter nor a digit but folds to one ("℃" → "°c") right before a
word. A vocabulary misses those surfaces; a document's leak check at release reads every text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

from pseudonymizer.folding import ARABIC_ARTICLE, fold, fold_key, is_arabic_letter
from pseudonymizer.recognizers.known import PROCLITICS

# A word: a run of letters and digits (what `str.isalnum` says), underscores apart: the
# matcher tells words apart with `str.isalnum` alone.
_WORD = re.compile(r"[^\W_]+")
_LONGEST_PROCLITIC = max(len(proclitic) for proclitic in PROCLITICS)
# The shortest word a proclitic leaves that is worth offering: the matcher ignores surfaces
# shorter than two characters.
_SHORTEST_LEFT = 2


# The characters that fold to nothing yet end a word, `vanishing_separators` (zero-width
# spaces and joiners, bidirectional controls, the soft hyphen, spacing accents), written out
# as ranges of code points: working them out takes a quarter of a second, here paid once per
# import, and a test keeps the two the same.
_SEPARATOR_RANGES = (
    (0xA8, 0xA8), (0xAD, 0xAD), (0xAF, 0xAF), (0xB8, 0xB8), (0x2D8, 0x2DD), (0x384, 0x385),
    (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DE), (0x6E9, 0x6E9), (0x70F, 0x70F),
    (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x1FBD, 0x1FBD), (0x1FBF, 0x1FC1),
    (0x1FCD, 0x1FCF), (0x1FDD, 0x1FDF), (0x1FED, 0x1FEE), (0x1FFD, 0x1FFE), (0x200B, 0x200F),
    (0x2017, 0x2017), (0x202A, 0x202E), (0x203E, 0x203E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0x309B, 0x309C), (0xFE49, 0xFE4C), (0xFEFF, 0xFEFF), (0xFFE3, 0xFFE3), (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip


def _class(ranges: Iterable[tuple[int, int]]) -> str:
    """The inside of a regular expression's class for `ranges` of code points. A class of
    single characters that reaches beyond the first plane makes `re` slow (a second per
    20,000 texts); one of ranges does not."""
    return "".join(
        re.escape(chr(low)) + (f"-{re.escape(chr(high))}" if high > low else "")
        for low, high in ranges
    )


@lru_cache(maxsize=1)
def _separators() -> tuple[re.Pattern[str], re.Pattern[str], dict[int, str]]:
    """The separators as a quick pattern (those of the first plane, or any character beyond
    it), the exact one, and a table turning each into a space."""
    first_plane = [(low, high) for low, high in _SEPARATOR_RANGES if high < 0x10000]
    quick = re.compile(f"[{_class(first_plane)}\U00010000-\U0010ffff]")
    exact = re.compile(f"[{_class(_SEPARATOR_RANGES)}]")
    table = {code: " " for low, high in _SEPARATOR_RANGES for code in range(low, high + 1)}
    return quick, exact, table


def separators() -> frozenset[str]:
    """The characters `text_tokens` reads as spaces too."""
    return frozenset(chr(code) for code in _separators()[2])


def _has_separator(text: str) -> bool:
    if text.isascii():
        return False
    quick, exact, _ = _separators()
    found = quick.search(text)
    if found is None:
        return False
    return found.group() < "\U00010000" or exact.search(text, found.start()) is not None


def text_tokens(text: str, folded: str | None = None) -> list[str]:
    """The white-space separated pieces of `text`'s folded form (`folded` when the caller
    has it), and of its form with vanishing separators as spaces when it holds one, and its
    runs of numbers (`number_runs`): cheap to take from every document of an import;
    `word_forms` makes them words."""
    if folded is None:
        folded = fold(text)
    pieces = folded.split()
    if _has_separator(text):
        again = fold(text.translate(_separators()[2]))
        pieces += again.split()
        pieces += number_runs(again)
    pieces += number_runs(folded)
    return pieces


# Numbers of several groups ("+33 6 12 34 56 78", "12/03/2024"): each group is a word that
# most corpora hold, so a number's groups are also taken together, up to this many at once.
_RUN_GROUPS = 8
# Two groups of digits or more, one to three characters of neither letter, digit nor line
# break between groups. It starts with its class, which `re` scans for quickly; whether a
# letter touches its ends is looked at after (`_runs`).
_NUMBER_RUN = re.compile(r"[0-9]+(?:[^\w\n]{1,3}[0-9]+)+")
_GROUP = re.compile(r"[0-9]+")
_DIGITS = "0123456789"


def _runs(folded: str) -> Iterator[list[str]]:
    """The groups of each run of numbers of a folded text whose groups are whole words: a
    group against a letter is no group of the run."""
    for found in _NUMBER_RUN.finditer(folded):
        groups = _GROUP.findall(found.group())
        start, end = found.span()
        if start > 0 and folded[start - 1].isalnum():
            groups = groups[1:]  # "a12 34": "a12" is a word of its own
        if end < len(folded) and folded[end].isalnum():
            groups = groups[:-1]  # "12 34b"
        if len(groups) >= 2:
            yield groups


def number_runs(folded: str) -> list[str]:
    """The runs of numbers of a folded text (`_runs`) as tokens of their groups joined by
    spaces (no piece of a text holds one): every run of 2 to `_RUN_GROUPS` consecutive
    groups of each."""
    if not any(digit in folded for digit in _DIGITS):  # ten quick searches, most texts
        return []
    tokens: list[str] = []
    for groups in _runs(folded):
        for start in range(len(groups) - 1):
            for stop in range(start + 2, min(start + _RUN_GROUPS, len(groups)) + 1):
                tokens.append(" ".join(groups[start:stop]))
    return tokens


def word_forms(tokens: Iterable[str]) -> set[str]:
    """The words that `tokens` (of `text_tokens`) offer the matcher: their runs of letters
    and digits, and each Arabic one also without each proclitic it starts with. Done once
    over the distinct tokens of many documents."""
    words: set[str] = set()
    for token in tokens:
        if " " in token:  # a run of numbers (`number_runs`)
            words.add(token)
            continue
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
    for groups in _runs(key):
        # A run of the surface's numbers lies inside a run of the text's: its first groups,
        # as many as a text's run is taken by at once.
        needed.append(frozenset({" ".join(groups[:_RUN_GROUPS])}))
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
