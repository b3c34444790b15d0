"""Moving a span's edges as a person asks: by one character or one word, either way.

A "character" is what a reader sees as one: a letter with its combining marks, an emoji
with its skin tone, variation selector and zero-width-joined parts, a flag's two regional
indicators, CR LF. So an edge never lands inside one, and a span never starts or ends on
white space. Offsets are code points, as everywhere in the engine.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

from pseudonymizer.evaluation import ARABIC_PROCLITIC
from pseudonymizer.folding import fold, fold_char

Edge = Literal["start", "end"]
Unit = Literal["char", "word"]

_ZWJ = "\u200d"


def _extends(char: str) -> bool:
    """Whether `char` belongs to the character before it."""
    code = ord(char)
    return (
        unicodedata.category(char) in ("Mn", "Mc", "Me")
        or 0xFE00 <= code <= 0xFE0F  # variation selectors
        or 0x1F3FB <= code <= 0x1F3FF  # skin tones
        or 0xE0020 <= code <= 0xE007F  # tag characters (subdivision flags)
    )


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def character_after(text: str, index: int) -> int:
    """Where the character that begins at `index` ends."""
    if index >= len(text):
        return len(text)
    if text.startswith("\r\n", index):
        return index + 2
    end = index + 1
    if _regional(text[index]) and end < len(text) and _regional(text[end]):
        return end + 1
    while end < len(text):
        if _extends(text[end]):
            end += 1
        elif text[end] == _ZWJ:
            # The joiner stays with what it follows; it joins on only a pictograph (👩‍💻).
            end += 1
            if end < len(text) and unicodedata.category(text[end]) == "So":
                end += 1
        else:
            break
    return end


def character_starts(text: str) -> list[int]:
    """The index where each character of `text` begins, and len(text)."""
    starts = [0]
    while starts[-1] < len(text):
        starts.append(character_after(text, starts[-1]))
    return starts


def _is_word(text: str, piece: tuple[int, int]) -> bool:
    return any(char.isalnum() for char in text[piece[0] : piece[1]])


def move_edge(
    text: str, start: int, end: int, *, edge: Edge, unit: Unit, extend: bool
) -> tuple[int, int]:
    """[start, end) with one edge moved by one character or one word: outwards (`extend`)
    or inwards. White space met on the way is crossed, never left at an edge. Returns the
    span unchanged where the text or the span has no room left.

    A word outwards is the next word, with the punctuation stuck to it on the way ("Dr."
    before "Lina", "." after "Lyon"); a word inwards drops the word at the edge with what is
    not a word around it (spaces, punctuation): "Dr. Lina Haddad" loses "Dr. ", not "Dr"."""
    starts = character_starts(text)
    pieces = list(zip(starts, starts[1:], strict=False))
    if not pieces:
        return start, end
    first = next((i for i, (a, _) in enumerate(pieces) if a >= start), len(pieces) - 1)
    last = next((i for i, (_, b) in enumerate(pieces) if b >= end), len(pieces) - 1)

    def space(index: int) -> bool:
        return text[pieces[index][0]].isspace()

    def past_word(index: int, step: int, inside: range) -> int:
        """The last piece of the word at `index`, going `step`, within `inside`."""
        if unit == "word" and _is_word(text, pieces[index]):
            while index + step in inside and _is_word(text, pieces[index + step]):
                index += step
        return index

    def past_token(index: int, step: int, inside: range) -> int:
        """Going `step` from `index` by a word: the word there, or the punctuation there with
        the word it is stuck to ("Dr." before a name), never past a space."""
        if unit != "word" or _is_word(text, pieces[index]):
            return past_word(index, step, inside)
        while (
            index + step in inside
            and not space(index + step)
            and not _is_word(text, pieces[index + step])
        ):
            index += step
        if index + step in inside and _is_word(text, pieces[index + step]):
            index = past_word(index + step, step, inside)
        return index

    def skipped(index: int) -> bool:
        """What an inward move does not stop on: white space, and for a word punctuation
        (an emoji counts as a word of its own)."""
        punctuation = unicodedata.category(text[pieces[index][0]]).startswith("P")
        return space(index) or (unit == "word" and punctuation)

    whole = range(len(pieces))
    span = range(first, last + 1)
    if edge == "start" and extend:
        index = first - 1
        while index in whole and space(index):
            index -= 1
        if index not in whole:
            return start, end
        return pieces[past_token(index, -1, whole)][0], end
    if edge == "end" and extend:
        index = last + 1
        while index in whole and space(index):
            index += 1
        if index not in whole:
            return start, end
        return start, pieces[past_token(index, 1, whole)][1]
    if edge == "start":
        index = first
        while unit == "word" and index in span and skipped(index):
            index += 1
        if index not in span:
            return start, end
        index = past_word(index, 1, span) + 1
        while index in span and skipped(index):
            index += 1
        return (pieces[index][0], end) if index in span else (start, end)
    index = last
    while unit == "word" and index in span and skipped(index):
        index -= 1
    if index not in span:
        return start, end
    index = past_word(index, -1, span) - 1
    while index in span and skipped(index):
        index -= 1
    return (start, pieces[index][1]) if index in span else (start, end)


# Fewer letters or digits than this is less than a word (`less_than_a_word`).
MIN_WORD_CHARS = 2


def _word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LMN"


def less_than_a_word(text: str, start: int, end: int) -> str:
    """Why deciding text[start:end] as a surface of its own asks a person to confirm: "" when
    it is whole words.

    A decided surface is looked for in every document (propagation, the release's checks): a
    single letter or digit ("L" of a name a soft hyphen split, "J" of "J'ai") would be found
    in every word it begins, and a piece of a word ("ennycuick" of "P\\u200bennycuick")
    leaves the rest of the word in clear. A letter glued across an invisible character (a
    zero-width space, a soft hyphen) is glued all the same; an Arabic proclitic before the
    span (و ف ب ك ل ال) is not part of the name.
    """
    letters = sum(_word_char(char) for char in text[start:end])
    if 0 < letters < MIN_WORD_CHARS:
        return "a single letter or digit"
    if not letters:
        return ""  # an emoji, a symbol: no word to be part of
    before = start
    while before > 0 and not fold_char(text[before - 1]):
        before -= 1
    if before > 0 and _word_char(text[before - 1]):
        word = before
        while word > 0 and _word_char(text[word - 1]):
            word -= 1
        if ARABIC_PROCLITIC.fullmatch(fold(text[word:before])) is None:
            return "part of a word"
    after = end
    while after < len(text) and not fold_char(text[after]):
        after += 1
    if after < len(text) and _word_char(text[after]):
        return "part of a word"
    return ""
