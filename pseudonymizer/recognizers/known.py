"""Known entities: every other occurrence of the surfaces a project has already decided.

Matching runs on the matching form of the text (`pseudonymizer.folding`: case, accents and
every mark, tatweel, Arabic letter variants, ta marbuta, zero-width and format characters,
compatibility forms such as fullwidth letters and Arabic presentation forms, runs of white
space), built with a map back to the original code points, so that spans come out in the
original's offsets: "JOSÉ", "José" and "Jose" with U+0301 all match the alias "Jose", and the
span covers the combining mark; "Ｍｏｓｈｅ" and "Mo\u200bshe" match "Moshe", "فاطمه" matches
"فاطمة". The leak check and the correspondence table fold the same way, so that a surface
the matcher finds is a surface the table knows and the leak check sees.

A match must not start or end inside a word of any script (neighbours are checked with
`str.isalnum` and the combining-mark categories), except that an Arabic name may carry the
proclitics و ف (and), ب ك ل (prepositions) and the article ال, alone or combined (وال، بال،
فبال، لل): "ولندن" matches "لندن", and the span leaves the proclitic out. With ل the article's
alef is elided ("للقاهرة" = ل + القاهرة); that occurrence is found too, and its span is the
written "لقاهرة".

A proclitic comes off only a match of three letters or more: "ين" (a decided two-letter
surface) is no part of "بين" (between). Folding makes some Arabic function words look like
names ("إمام" and "أمام" in front of, "فان" and "فإن", "علي" and "على"): an occurrence
written as one of them (`_FUNCTION_WORDS`, marks aside) is never a match.

Aliases shorter than two characters once normalised are ignored: a one-letter alias would
match everywhere. So are the surfaces of dates made only of date words ("March", "last
Monday", "hier": `is_calendar_word`): a moment nobody can place, and a word of every text.
When two aliases normalise alike, the first one's label wins. Where matches overlap, the
longest wins.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from pseudonymizer import folding
from pseudonymizer.folding import ARABIC_ARTICLE as _ARTICLE
from pseudonymizer.folding import fold_char, fold_key, fold_with_origin
from pseudonymizer.folding import is_arabic_letter as _is_arabic_letter
from pseudonymizer.pseudonyms.dispatch import Kind, kind_of
from pseudonymizer.recognizers.base import PatternRecognizer, RecognizerError
from pseudonymizer.recognizers.dates import only_date_words
from pseudonymizer.spans import Span, select_non_overlapping

_CONJUNCTIONS = ("", "\u0648", "\u0641")  # و ف
_PREPOSITIONS = ("", "\u0628", "\u0643", "\u0644")  # ب ك ل
_LAM = "\u0644"
PROCLITICS = frozenset(
    conjunction + preposition + article
    for conjunction in _CONJUNCTIONS
    for preposition in _PREPOSITIONS
    for article in ("", _ARTICLE)
) - {""}
# Arabic function words, as written (marks aside), that fold like a name: never a match.
_FUNCTION_WORDS = frozenset(
    "على إلى حتى متى لدى أمام فإن وإن إن أن لأن لو لكن أو ما من في عن مع كل قد لا هو هي هذا "
    "هذه ذلك تلك التي الذي".split()
)
_LONGEST_FUNCTION_WORD = max(len(word) for word in _FUNCTION_WORDS)
# A proclitic comes off only a match of at least this many letters.
_MIN_AFTER_PROCLITIC = 3
# Before an elided article (ل + القاهرة → للقاهرة) the proclitics end with that ل.
_LAM_PROCLITICS = frozenset(conjunction + _LAM for conjunction in _CONJUNCTIONS)


def _class(chars: Iterable[str]) -> str:
    members = sorted(chars)
    written = "".join(_class_member(char) for char in members if char < "\U00010000")
    if members and members[-1] >= "\U00010000":
        # Any character beyond the first plane, rather than the few that fold to this letter
        # (mathematical letters): a set of them makes `re` test each one in turn at every
        # position of every document, five times slower, and the pattern is a filter before
        # the exact matcher.
        written += "\U00010000-\U0010ffff"
    return f"[{written}]"


def _class_member(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


@lru_cache(maxsize=1)
def _longer_forms() -> list[tuple[str, frozenset[str]]]:
    return [(form, chars) for form, chars in folding.folded_forms().items() if len(form) > 1]


def search_pattern(surface: str) -> str | None:
    """A regular expression (Python's `re`) that every text in which `KnownEntityRecognizer`
    would find `surface` matches: each letter as any character of the same matching form
    (case, accents, fullwidth and mathematical letters, Arabic letter variants and
    presentation forms), anything that folds to nothing (marks, tatweel, zero-width and
    format characters) allowed between letters, any white space between words. A cheap
    filter before the exact matcher, looser than it; None for a surface too short to be
    matched at all.

    A character that folds to several ("ß" → "ss", the lam-alef ligature "ﻻ" → "لا") may
    stand for the letters it folds to: those letters are each optional, and the character
    is in each one's class.
    """
    key = fold_key(surface)
    if len(key) < 2:
        return None
    if key.startswith(_ARTICLE) and len(key) > 3 and _is_arabic_letter(key[2]):
        key = key[1:]  # "للقاهرة" holds "القاهرة" with its alef elided: search from the lam
    forms = folding.folded_forms()
    between = folding.ignorable_class() + "*"
    members: list[set[str]] = []
    optional = [False] * len(key)
    for char in key:
        members.append({char, *forms.get(char, ())} if char != " " else set())
    for form, chars in _longer_forms():
        at = key.find(form)
        while at != -1:
            for index in range(at, at + len(form)):
                members[index] |= chars
                optional[index] = True
            at = key.find(form, at + 1)
    parts: list[str] = []
    for index, char in enumerate(key):
        if char == " ":
            # White space, with what folds to nothing around it: one space in the key.
            extra = _class(members[index])[1:-1]
            part = f"(?:\\s|[{extra}])" if extra else "\\s"
            part += f"(?:\\s|{folding.ignorable_class()})*"
        else:
            part = _class(members[index])
        if optional[index]:
            part = f"(?:{part})?"
        if parts and key[index - 1] != " ":
            parts.append(between)
        parts.append(part)
    return "".join(parts)


def _written(text: str, start: int, end: int) -> str:
    """`text[start:end]` as written, without its marks (harakat, tatweel)."""
    return "".join(
        char for char in text[start:end] if unicodedata.category(char) != "Mn" and char != "\u0640"
    )


def _is_word_char(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char)[0] == "M"


def is_calendar_word(surface: str, label: str) -> bool:
    """Whether a decided `surface` of `label` is a date written only with date words
    ("March", "yesterday", "الشهر الماضي"): never looked for in other texts, by the matcher
    or by a release's check."""
    return kind_of(label) is Kind.DATE and only_date_words(surface)


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
            key = fold_key(surface)
            if len(key) < 2 or is_calendar_word(surface, label):
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
        normalized, origin = fold_with_origin(text)
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
        while end < len(text) and not fold_char(text[end]):
            end += 1  # the marks on the last letter belong to the match
        if _is_word_char(text[end - 1]) and end < len(text) and _is_word_char(text[end]):
            return None
        word_start = start
        if _is_word_char(text[start]):
            while word_start > 0 and _is_word_char(text[word_start - 1]):
                word_start -= 1
        if (
            high - low <= _LONGEST_FUNCTION_WORD
            and _is_arabic_letter(normalized[low])
            and _written(text, start, end) in _FUNCTION_WORDS
        ):
            return None
        if elided:
            allowed = _LAM_PROCLITICS
        elif word_start == start:
            return Span(start, end, label, score=1.0, source="known")
        elif _is_arabic_letter(normalized[low]) and high - low >= _MIN_AFTER_PROCLITIC:
            allowed = PROCLITICS
        else:
            return None
        prefix = "".join(fold_char(char) for char in text[word_start:start])
        if prefix not in allowed:
            return None
        return Span(start, end, label, score=1.0, source="known")
