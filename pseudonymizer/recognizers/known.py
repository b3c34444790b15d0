"""Known entities: every other occurrence of the surfaces a project has already decided.

Matching runs on a normalised copy of the text, built character by character with a map
back to the original code points, so that spans come out in the original's offsets:

- case folded (`str.casefold`), compatibility-decomposed (NFKD), combining marks removed:
  "JOSÉ", "José" and "Jose" with U+0301 all match the alias "Jose", and the span covers the
  combining mark;
- Arabic: harakat (U+064B-U+065F, U+0670, Quranic marks) and tatweel removed; alef with
  hamza or madda (أ إ آ) and alef wasla (ٱ) read as ا, and so do the hamza seats ؤ → و,
  ئ → ي (NFKD plus mark removal); alef maqsura ى and Persian ی read as ي, Persian ک as ك;
  ta marbuta ة is kept;
- runs of white space read as one space, typographic apostrophes and hyphens as ASCII.

A match must not start or end inside a word of any script (neighbours are checked with
`str.isalnum` and the combining-mark categories), except that an Arabic name may carry the
proclitics و ف (and), ب ك ل (prepositions) and the article ال, alone or combined (وال، بال،
فبال، لل): "ولندن" matches "لندن", and the span leaves the proclitic out. With ل the article's
alef is elided ("للقاهرة" = ل + القاهرة); that occurrence is found too, and its span is the
written "لقاهرة".

Aliases shorter than two characters once normalised are ignored: a one-letter alias would
match everywhere. When two aliases normalise alike, the first one's label wins. Where
matches overlap, the longest wins.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from pseudonymizer.recognizers.base import PatternRecognizer, RecognizerError
from pseudonymizer.spans import Span, select_non_overlapping

_DROPPED_RANGES = (
    (0x0300, 0x036F),  # combining diacritical marks
    (0x0610, 0x061A),  # Arabic signs above and below
    (0x0640, 0x0640),  # tatweel
    (0x064B, 0x065F),  # harakat
    (0x0670, 0x0670),  # superscript alef
    (0x06D6, 0x06ED),  # Quranic annotation marks
    (0x1AB0, 0x1AFF),
    (0x1DC0, 0x1DFF),
    (0x20D0, 0x20FF),
    (0xFE20, 0xFE2F),
)
_REPLACED = {
    "\u0671": "\u0627",  # alef wasla → alef
    "\u0649": "\u064a",  # alef maqsura → yeh
    "\u06cc": "\u064a",  # Persian yeh → yeh
    "\u06a9": "\u0643",  # Persian keheh → kaf
    "\u2019": "'",
    "\u2018": "'",
    "\u02bc": "'",
    "\u2010": "-",
    "\u2011": "-",
    "\u2013": "-",
}

_CONJUNCTIONS = ("", "\u0648", "\u0641")  # و ف
_PREPOSITIONS = ("", "\u0628", "\u0643", "\u0644")  # ب ك ل
_ARTICLE = "\u0627\u0644"  # ال
_LAM = "\u0644"
_PROCLITICS = frozenset(
    conjunction + preposition + article
    for conjunction in _CONJUNCTIONS
    for preposition in _PREPOSITIONS
    for article in ("", _ARTICLE)
) - {""}
# Before an elided article (ل + القاهرة → للقاهرة) the proclitics end with that ل.
_LAM_PROCLITICS = frozenset(conjunction + _LAM for conjunction in _CONJUNCTIONS)


def _dropped(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _DROPPED_RANGES)


@lru_cache(maxsize=65536)
def _normalize_char(char: str) -> str:
    if char.isspace():
        return " "
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", char).casefold())
    return "".join(_REPLACED.get(part, part) for part in folded if not _dropped(part))


# Characters whose matching form is one character: the reverse of `_normalize_char`, for the
# scripts Cloak's users write in (Latin, Greek, Cyrillic, Arabic and its presentation forms).
_SEARCH_RANGES = ((0x0020, 0x058F), (0x0600, 0x06FF), (0x1E00, 0x1FFF), (0x2010, 0x2019),
                  (0xFB50, 0xFDFF), (0xFE70, 0xFEFF))  # fmt: skip
_MARKS_CLASS = "".join(
    f"\\u{low:04x}-\\u{high:04x}" if low != high else f"\\u{low:04x}"
    for low, high in _DROPPED_RANGES
)


@lru_cache(maxsize=1)
def _segments() -> re.Pattern[str]:
    """Runs of characters whose matching form is their lower case (ASCII, most Arabic
    letters) and single spaces, runs of other white space, and any other character alone."""
    same = sorted(
        chr(code)
        for low, high in ((0x21, 0x7E), *_SEARCH_RANGES)
        for code in range(low, high + 1)
        if not chr(code).isspace()
        and len(chr(code).lower()) == 1
        and _normalize_char(chr(code)) == chr(code).lower()
    )
    members = "".join(re.escape(char) for char in same)
    # A lone space between words stays in the run; longer white space is a run of its own.
    return re.compile(f"(?P<same>(?:[{members}]| (?!\\s))+)|(?P<space>\\s+)|.", re.DOTALL)


def normalize(text: str) -> tuple[str, list[int]]:
    """The matching form of `text` and, for each of its characters, the index in `text` of
    the character it came from. Characters that normalise to nothing (marks) have no entry.

    Runs that only change case are lowered whole: most of a text never reaches the
    character-by-character path, which is what makes matching every document affordable.
    """
    pieces: list[str] = []
    origin: list[int] = []
    previous_space = False
    for match in _segments().finditer(text):
        start = match.start()
        if match.lastgroup == "same":
            run = match.group()
            if previous_space and run[0] == " ":
                run, start = run[1:], start + 1
                if not run:
                    continue  # a lone space after a space: still in the same run of spaces
            pieces.append(run.lower())
            origin.extend(range(start, match.end()))
            previous_space = run.endswith(" ")
            continue
        if match.lastgroup == "space":
            if not previous_space:
                pieces.append(" ")
                origin.append(start)
                previous_space = True
            continue
        piece = _normalize_char(match.group())
        if not piece:
            continue
        if piece == " ":
            if previous_space:
                continue
            previous_space = True
        else:
            previous_space = False
        pieces.append(piece)
        origin.extend([start] * len(piece))
    return "".join(pieces), origin


class _FoldTable(dict[int, str]):
    """`str.translate`'s table for `fold`: each character's matching form, computed the
    first time the character is seen."""

    def __missing__(self, code: int) -> str:
        piece = _normalize_char(chr(code))
        self[code] = piece
        return piece


_FOLD_TABLE = _FoldTable()
_SPACES = re.compile("  +")


def fold(text: str) -> str:
    """`normalize(text)[0]`, the matching form without the map back, at the speed of
    `str.translate`: what Cloak stores beside a document's text so that the database finds
    the documents a known surface occurs in (`Document.search_text`)."""
    return _SPACES.sub(" ", text.translate(_FOLD_TABLE))


def normalize_alias(surface: str) -> str:
    """How an alias is matched: its matching form, trimmed. A text whose `fold` does not hold
    it cannot hold the alias."""
    return fold(surface).strip()


@lru_cache(maxsize=1)
def _variants() -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for low, high in _SEARCH_RANGES:
        for code in range(low, high + 1):
            char = chr(code)
            piece = _normalize_char(char)
            if len(piece) == 1 and not char.isspace():
                found.setdefault(piece, {piece}).add(char)
    return {key: frozenset(chars) for key, chars in found.items()}


def _class_member(char: str) -> str:
    return char if char.isalnum() else "\\" + char if char.isascii() else char


def search_pattern(surface: str) -> str | None:
    """A regular expression (for PostgreSQL's `~` and Python's `re` alike) that every text in
    which `KnownEntityRecognizer` would find `surface` matches: each letter as any character
    of the same matching form (case, accents, Arabic letter variants), marks and tatweel
    allowed between letters, any white space between words. A cheap filter before the exact
    matcher; None for a surface too short to be matched at all.

    Characters that fold to two ("ß" → "ss") are searched as their folded form only.
    """
    key = normalize_alias(surface)
    if len(key) < 2:
        return None
    if key.startswith(_ARTICLE) and len(key) > 3 and _is_arabic_letter(key[2]):
        key = key[1:]  # "للقاهرة" holds "القاهرة" with its alef elided: search from the lam
    variants = _variants()
    marks = f"[{_MARKS_CLASS}]*".replace("\\\\", "\\")
    parts = []
    for char in key:
        if char == " ":
            parts.append("\\s+")
            continue
        members = sorted(variants.get(char, frozenset({char})))
        parts.append("[" + "".join(_class_member(member) for member in members) + "]")
    return marks.join(parts)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char)[0] == "M"


def _is_arabic_letter(char: str) -> bool:
    return "\u0620" <= char <= "\u064a" or "\u066e" <= char <= "\u06d3"


class KnownEntityRecognizer(PatternRecognizer):
    """Finds every occurrence of the project's decided aliases, given as (surface, label).

    The automaton is built once, here; each text is then normalised and scanned once,
    whatever the number of aliases.
    """

    name = "known"

    def __init__(self, aliases: Iterable[tuple[str, str]]) -> None:
        try:
            import ahocorasick
        except ImportError as error:  # pragma: no cover - installed with the ml extra
            raise RecognizerError(
                "known-entity recognition needs pyahocorasick (pip install 'cloak[ml]')"
            ) from error
        # normalised key → (label when matched as written, label when matched after an
        # elided article)
        entries: dict[str, list[str | None]] = {}
        for surface, label in aliases:
            key = normalize_alias(surface)
            if len(key) < 2:
                continue
            entries.setdefault(key, [None, None])
            if entries[key][0] is None:
                entries[key][0] = label
            if key.startswith(_ARTICLE) and len(key) > 3 and _is_arabic_letter(key[2]):
                elided = key[1:]
                entries.setdefault(elided, [None, None])
                if entries[elided][1] is None:
                    entries[elided][1] = label
        self.size = len(entries)
        self._automaton: Any = ahocorasick.Automaton()
        for key, (as_written, after_article) in entries.items():
            self._automaton.add_word(key, (len(key), as_written, after_article))
        if entries:
            self._automaton.make_automaton()

    def recognize_one(self, text: str) -> list[Span]:
        """The spans of one text, sorted, without overlaps (score 1.0, source "known")."""
        if not self.size or not text:
            return []
        normalized, origin = normalize(text)
        found: list[Span] = []
        for last, (length, label, elided_label) in self._automaton.iter(normalized):
            span = self._accept(text, normalized, origin, last + 1 - length, last + 1, label)
            if span is None and elided_label is not None:
                span = self._accept(
                    text, normalized, origin, last + 1 - length, last + 1, elided_label, True
                )
            if span is not None:
                found.append(span)
        return select_non_overlapping(found, lambda span: (span.start - span.end, span.start))

    @staticmethod
    def _accept(
        text: str,
        normalized: str,
        origin: list[int],
        low: int,
        high: int,
        label: str | None,
        elided: bool = False,
    ) -> Span | None:
        if label is None:
            return None
        # A match must begin and end on whole original characters ("ß" → "ss").
        if low > 0 and origin[low] == origin[low - 1]:
            return None
        if high < len(origin) and origin[high] == origin[high - 1]:
            return None
        start = origin[low]
        end = origin[high - 1] + 1
        while end < len(text) and not _normalize_char(text[end]):
            end += 1  # the marks on the last letter belong to the match
        if _is_word_char(text[end - 1]) and end < len(text) and _is_word_char(text[end]):
            return None
        word_start = start
        if _is_word_char(text[start]):
            while word_start > 0 and _is_word_char(text[word_start - 1]):
                word_start -= 1
        if elided:
            allowed = _LAM_PROCLITICS
        elif word_start == start:
            return Span(start, end, label, score=1.0, source="known")
        elif _is_arabic_letter(normalized[low]):
            allowed = _PROCLITICS
        else:
            return None
        prefix = "".join(_normalize_char(char) for char in text[word_start:start])
        if prefix not in allowed:
            return None
        return Span(start, end, label, score=1.0, source="known")
