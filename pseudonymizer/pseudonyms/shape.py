"""The shape of a surface: scripts, capitalisation, digit families, affixes and tokens.

A pseudonym keeps the shape of what it replaces; these helpers read a shape off the original
and impose it on a drawn value.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterable
from enum import StrEnum
from functools import lru_cache

_SCRIPT_PREFIXES = (
    ("LATIN", "Latn"),
    ("ARABIC", "Arab"),
    ("CYRILLIC", "Cyrl"),
    ("HEBREW", "Hebr"),
    ("GREEK", "Grek"),
    ("CJK", "Hani"),
    ("HIRAGANA", "Jpan"),
    ("KATAKANA", "Jpan"),
    ("HANGUL", "Hang"),
    ("DEVANAGARI", "Deva"),
    ("THAI", "Thai"),
    ("ARMENIAN", "Armn"),
    ("GEORGIAN", "Geor"),
)

# Arabic harakat, tanwin, shadda, sukun, superscript alef and Quranic marks.
ARABIC_MARKS = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed]")
_TATWEEL = "\u0640"

_WHITESPACE_SPLIT = re.compile(r"(\s+)")
# Letters, with the combining marks that belong to them (Python's \w leaves marks out).
LETTERS = r"(?:[^\W\d_]|[\u0300-\u036f\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed])+"
_PIECES = re.compile(rf"(?P<digits>\d+)|(?P<letters>{LETTERS})|(?P<other>.)", re.DOTALL)
_WORD_KEY = re.compile(r"\w+")


@lru_cache(maxsize=4096)
def char_script(char: str) -> str | None:
    """The ISO 15924 code of a letter's script, or None for what is not a letter."""
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    for prefix, code in _SCRIPT_PREFIXES:
        if name.startswith(prefix):
            return code
    return "Zyyy"


def script_of(text: str) -> str | None:
    """The script most of the letters of `text` are written in (`Latn`, `Arab`, …), or None."""
    counts: dict[str, int] = {}
    for char in text:
        code = char_script(char)
        if code is not None:
            counts[code] = counts.get(code, 0) + 1
    if not counts:
        return None
    return max(counts.items(), key=lambda item: item[1])[0]


class Case(StrEnum):
    """The capitalisation pattern of one token."""

    UPPER = "upper"  # ALL CAPS (two cased letters or more)
    LOWER = "lower"
    TITLE = "title"  # first cased letter upper, not all upper
    MIXED = "mixed"  # first cased letter lower, some upper (iPhone)
    NONE = "none"  # no cased letter (Arabic, digits)


def case_of(token: str) -> Case:
    """The capitalisation pattern of `token`."""
    cased = [char for char in token if char.isupper() or char.islower()]
    if not cased:
        return Case.NONE
    if all(char.islower() for char in cased):
        return Case.LOWER
    if all(char.isupper() for char in cased):
        return Case.UPPER if len(cased) > 1 else Case.TITLE
    return Case.TITLE if cased[0].isupper() else Case.MIXED


def apply_case(case: Case, word: str) -> str:
    """`word` written with the capitalisation pattern `case` (TITLE keeps inner capitals)."""
    if case is Case.UPPER:
        return word.upper()
    if case is Case.LOWER:
        return word.lower()
    if case is Case.TITLE:
        if case_of(word) in (Case.UPPER, Case.LOWER):
            word = word.lower()
        for index, char in enumerate(word):
            if char.isalpha():
                return word[:index] + char.upper() + word[index + 1 :]
        return word
    if case is Case.MIXED:
        for index, char in enumerate(word):
            if char.isalpha():
                return word[:index] + char.lower() + word[index + 1 :]
    return word


def split_whitespace(text: str) -> tuple[list[str], list[str]]:
    """Tokens and the exact whitespace between them: `join_whitespace` gives `text` back."""
    pieces = _WHITESPACE_SPLIT.split(text)
    return pieces[0::2], pieces[1::2]


def join_whitespace(tokens: list[str], separators: list[str]) -> str:
    """The inverse of `split_whitespace`."""
    out = [tokens[0]]
    for separator, token in zip(separators, tokens[1:], strict=True):
        out.append(separator)
        out.append(token)
    return "".join(out)


def _is_edge(char: str) -> bool:
    return unicodedata.category(char)[0] in "PSZ" and char not in "'’-"


def split_affixes(token: str) -> tuple[str, str, str]:
    """(leading punctuation, core, trailing punctuation): `"(Dunkin')"` → `("(", "Dunkin'", ")")`.

    An apostrophe or hyphen inside a name stays in the core; a final apostrophe goes with
    the suffix.
    """
    start, end = 0, len(token)
    while start < end and (_is_edge(token[start]) or token[start] in "'’"):
        start += 1
    while end > start and (_is_edge(token[end - 1]) or token[end - 1] in "'’."):
        end -= 1
    return token[:start], token[start:end], token[end:]


def pieces(text: str) -> list[tuple[str, str]]:
    """`text` cut into ("digits" | "letters" | "other", run) pieces, in order."""
    out: list[tuple[str, str]] = []
    for match in _PIECES.finditer(text):
        kind = match.lastgroup or "other"
        if kind == "other" and out and out[-1][0] == "other":
            out[-1] = ("other", out[-1][1] + match.group())
        else:
            out.append((kind, match.group()))
    return out


def camel_parts(run: str) -> list[str]:
    """A letter run cut at its capitals: `ProudWolves` → Proud, Wolves; `NYCTeam` → NYC, Team."""
    parts: list[str] = []
    current = ""
    for index, char in enumerate(run):
        if current and char.isupper():
            previous = current[-1]
            following = run[index + 1] if index + 1 < len(run) else ""
            if previous.islower() or (previous.isupper() and following.islower()):
                parts.append(current)
                current = ""
        current += char
    if current:
        parts.append(current)
    return parts


def strip_marks(text: str) -> str:
    """`text` without Arabic harakat and tatweel (most originals are written without them)."""
    return ARABIC_MARKS.sub("", text).replace(_TATWEEL, "")


def has_marks(text: str) -> bool:
    """Whether `text` carries Arabic harakat."""
    return ARABIC_MARKS.search(text) is not None


def digit_positions(text: str) -> list[int]:
    """Where the digits of `text` are (any digit script)."""
    return [index for index, char in enumerate(text) if char.isdecimal()]


def digits_at(text: str, positions: list[int]) -> str:
    """The digits of `text` at `positions`, as ASCII digits."""
    return "".join(str(digit_value(text[index])) for index in positions)


def lookup_key(text: str) -> str:
    """The key a word is looked up under in the word and name lists: casefolded, without
    accents or Arabic marks. Looser than `pseudonymizer.folding.fold` in some ways (accents
    go, whatever the script) and stricter in others (Arabic letter variants stay apart): the
    name lists were keyed this way, and what a generator draws depends on it."""
    decomposed = unicodedata.normalize("NFKD", strip_marks(text).casefold())
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    return unicodedata.normalize("NFC", stripped)


def lookup_keys(words: Iterable[str]) -> frozenset[str]:
    """The lookup keys of `words`, a set to test a word's `lookup_key` against."""
    return frozenset(lookup_key(word) for word in words)


def to_ascii(text: str) -> str:
    """`text` with accents removed, and what has no ASCII form dropped (`Œ` → `OE`)."""
    text = text.replace("œ", "oe").replace("Œ", "OE").replace("æ", "ae").replace("Æ", "AE")
    text = text.replace("ß", "ss")
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if char.isascii())


def word_keys(text: str) -> list[str]:
    """The word tokens of a normalised surface, for containment checks."""
    return _WORD_KEY.findall(text)


def digit_zero(char: str) -> str:
    """The zero of the digit family `char` belongs to (`'٣'` → `'٠'`)."""
    return chr(ord(char) - unicodedata.decimal(char))


def digit_value(char: str) -> int:
    """The value of a decimal digit in any script."""
    return unicodedata.decimal(char)


def in_family(value: int, like: str) -> str:
    """The digit `value` written in the family of the digit `like`."""
    return chr(ord(digit_zero(like)) + value)


def is_year(run: str) -> bool:
    """Whether a digit run reads as a year of birth or of an event (1900-2039)."""
    if len(run) != 4:
        return False
    value = int("".join(str(digit_value(char)) for char in run))
    return 1900 <= value <= 2039


def replace_digits(rng: random.Random, run: str, *, year: bool = True) -> str:
    """Another run of as many digits, in the same digit family, never equal to `run`.

    A year-like run becomes another plausible year within fifteen years of it; otherwise a
    leading non-zero digit stays non-zero, so the number keeps its magnitude.
    """
    values = [digit_value(char) for char in run]
    if year and is_year(run):
        original = int("".join(map(str, values)))
        choices = [y for y in range(original - 15, original + 16) if y != original]
        new_values = [int(char) for char in str(rng.choice(choices))]
    else:
        new_values = values
        while new_values == values:
            new_values = [rng.randrange(10) for _ in values]
            if len(values) > 1 and values[0] != 0 and new_values[0] == 0:
                new_values[0] = rng.randrange(1, 10)
    return "".join(in_family(value, like) for value, like in zip(new_values, run, strict=True))


_LATIN_VOWELS = "aeiou"
_LATIN_CONSONANTS = "bcdfghjklmnprstvwz"
_ARABIC_LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي"


def random_letter(rng: random.Random, like: str, *, avoid: str = "") -> str:
    """A letter of the script and case of `like` (a vowel for a Latin vowel), not in `avoid`."""
    script = char_script(like)
    if script == "Arab":
        pool = _ARABIC_LETTERS
    elif like.lower() in _LATIN_VOWELS:
        pool = _LATIN_VOWELS
    else:
        pool = _LATIN_CONSONANTS
    candidates = [char for char in pool if char not in avoid.lower()] or list(pool)
    letter = rng.choice(candidates)
    return letter.upper() if like.isupper() else letter


def random_letters(rng: random.Random, like: str) -> str:
    """As many letters as `like` has, same script and case per letter, never equal to it."""
    out = "".join(random_letter(rng, char) if char.isalpha() else char for char in like)
    if out.casefold() == like.casefold() and any(char.isalpha() for char in like):
        index = next(i for i, char in enumerate(like) if char.isalpha())
        out = out[:index] + random_letter(rng, like[index], avoid=like[index]) + out[index + 1 :]
    return out
