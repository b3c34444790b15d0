"""The matching form of text: what Cloak means by "the same surface".

One folding serves every place that compares surfaces, so that they cannot disagree: the
known-entity matcher that proposes decisions again (`pseudonymizer.recognizers.known`), the
folded copy of each document the database searches (`Document.search_text`), the leak check
of a release (`pseudonymizer.evaluation`), and the identity of an alias in the correspondence
table (`fold_key`, whose keyed digest is the alias's key). Were the leak check to fold less
than the matcher, a name the matcher knows would pass the check written with a tatweel or a
zero-width space; were the table to fold less, one person would get two pseudonyms.

Each character is folded on its own (`fold_char`):

- white space of any kind reads as a space, and a run of spaces as one (in `fold`);
- compatibility forms read as what they stand for (NFKD): fullwidth `Ｍｏｓｈｅ`, mathematical
  bold `𝐌𝐨𝐬𝐡𝐞`, ligatures `ﬁ`, circled letters, Arabic presentation forms `ﻣﺤﻤﺪ` (the lam-alef
  ligature `ﻻ` is two letters);
- case folded (`str.casefold`: "ß" reads as "ss");
- combining marks dropped (accents, Hebrew points, Arabic harakat, shadda, sukun, the
  superscript alef, Quranic marks), and so are tatweel and every format or other invisible
  character (Unicode category Cf and the default-ignorable code points: zero-width space,
  joiners, direction marks, the byte-order mark, the soft hyphen, variation selectors);
- Arabic letter variants: alef with hamza or madda (أ إ آ), alef wasla and the wavy-hamza
  alefs read as ا; the hamza seats ؤ → و, ئ → ي; alef maqsura ى and Persian ی → ي; ta
  marbuta ة → ه; Persian keheh ک → ك;
- decimal digits of every script read as ASCII digits ("١٩٨٧" → "1987");
- typographic apostrophes (’ ‘ ʼ ʻ ´ ′) read as "'", and hyphens and dashes as "-".

The result is for comparing, never for showing: it says nothing about how a surface is
written (a pseudonym keeps its original's shape with `pseudonymizer.pseudonyms.shape`).
Folding is idempotent: the fold of a folded text is itself.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "ARABIC_ARTICLE",
    "fold",
    "fold_char",
    "fold_key",
    "fold_with_origin",
    "folded_forms",
    "ignorable_class",
    "is_arabic_letter",
]

# Dropped whatever their category says: tatweel (a letter for Unicode, a stretch of the line
# for a reader), the Quranic annotation signs (some are letters or symbols), the high hamza,
# and the fillers that render as nothing.
_DROPPED_RANGES = (
    (0x0640, 0x0640),  # tatweel
    (0x0674, 0x0674),  # high hamza
    (0x06D6, 0x06ED),  # Quranic annotation marks
    (0x115F, 0x1160),  # Hangul fillers
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
)
_DROPPED_CATEGORIES = frozenset({"Mn", "Me", "Cf"})

# Read before decomposing: characters NFKD would turn into a space and an accent.
_BEFORE = {
    "\u00b4": "'",  # acute accent written for an apostrophe: O´Brien
}
# Read after decomposing and case folding.
_AFTER = {
    "\u0671": "\u0627",  # alef wasla → alef
    "\u0672": "\u0627",  # alef with wavy hamza above
    "\u0673": "\u0627",  # alef with wavy hamza below
    "\u0649": "\u064a",  # alef maqsura → yeh
    "\u06cc": "\u064a",  # Persian yeh → yeh
    "\u0629": "\u0647",  # ta marbuta → heh
    "\u06c3": "\u0647",  # ta marbuta goal → heh
    "\u06a9": "\u0643",  # Persian keheh → kaf
    "\u2018": "'",
    "\u2019": "'",
    "\u201b": "'",
    "\u2032": "'",
    "\u02b9": "'",
    "\u02bb": "'",
    "\u02bc": "'",
    "\u02bd": "'",
    "\u02be": "'",  # transliterated hamza: Qurʾan
    "\u02bf": "'",  # transliterated ain: Saʿid
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2015": "-",
    "\u2212": "-",
}

ARABIC_ARTICLE = "\u0627\u0644"  # ال


def _dropped(char: str) -> bool:
    code = ord(char)
    if unicodedata.category(char) in _DROPPED_CATEGORIES:
        return True
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
        return True  # variation selectors (Mn already, kept here for older Unicode data)
    return any(low <= code <= high for low, high in _DROPPED_RANGES)


@lru_cache(maxsize=65536)
def _fold_char(char: str, keep_marks: bool) -> str:
    if char.isspace():
        return " "
    before = _BEFORE.get(char)
    if before is not None:
        return before
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", char).casefold())
    pieces: list[str] = []
    for part in decomposed:
        if _dropped(part) and not (keep_marks and unicodedata.category(part) in ("Mn", "Me")):
            continue
        if part.isspace():
            pieces.append(" ")
        elif part.isdecimal():
            pieces.append(str(unicodedata.decimal(part)))
        else:
            pieces.append(_AFTER.get(part, part))
    # A spacing accent (¨, ˜, Arabic harakat in isolated form) decomposes into a space and a
    # mark: it reads as nothing, not as a space that would split a word.
    return "".join(pieces).strip(" ")


def fold_char(char: str) -> str:
    """The matching form of one character: "" for what is dropped, " " for white space,
    most often one character, sometimes more ("ß" → "ss", "ﻻ" → "لا")."""
    return _fold_char(char, False)


class _FoldTable(dict[int, str]):
    """`str.translate`'s table: each character's matching form, computed the first time the
    character is seen."""

    def __init__(self, keep_marks: bool) -> None:
        super().__init__()
        self.keep_marks = keep_marks

    def __missing__(self, code: int) -> str:
        piece = _fold_char(chr(code), self.keep_marks)
        self[code] = piece
        return piece


_TABLES = {False: _FoldTable(False), True: _FoldTable(True)}
_SPACES = re.compile("  +")


def fold(text: str, *, keep_marks: bool = False) -> str:
    """The matching form of `text` (see the module's docstring), runs of spaces made one, at
    the speed of `str.translate`: what Cloak stores beside a document's text so that the
    database finds the documents a known surface occurs in (`Document.search_text`).

    `keep_marks` keeps combining marks (accents, harakat), decomposed, so that a precomposed
    "é" and "e" with a combining accent still agree: for a check that wants "Métayer" and
    "Metayer" told apart; every other fold still applies."""
    return _SPACES.sub(" ", text.translate(_TABLES[keep_marks]))


def fold_key(surface: str) -> str:
    """The identity of a surface: its fold without the spaces at its ends. Two surfaces are
    the same alias, the same known entity and the same leak when their keys are equal; the
    correspondence table's digests are taken of it. A text whose `fold` does not hold a
    surface's key cannot hold the surface."""
    return fold(surface).strip(" ")


@lru_cache(maxsize=2)
def _segments(keep_marks: bool) -> re.Pattern[str]:
    """Runs of characters whose matching form is their lower case (ASCII, most Arabic
    letters) and single spaces, runs of other white space, and any other character alone."""
    same = sorted(
        chr(code)
        for low, high in ((0x21, 0x7E), (0xA0, 0x24F), (0x370, 0x58F), (0x600, 0x6FF))
        for code in range(low, high + 1)
        if not chr(code).isspace()
        and len(chr(code).lower()) == 1
        and _fold_char(chr(code), keep_marks) == chr(code).lower()
    )
    members = "".join(re.escape(char) for char in same)
    # A lone space between words stays in the run; longer white space is a run of its own.
    return re.compile(f"(?P<same>(?:[{members}]| (?!\\s))+)|(?P<space>\\s+)|.", re.DOTALL)


def fold_with_origin(text: str, *, keep_marks: bool = False) -> tuple[str, list[int]]:
    """`fold(text)` and, for each of its characters, the index in `text` of the character it
    came from: what a matcher needs to give its spans in the original's offsets. Characters
    that fold to nothing have no entry; one that folds to several has an entry for each.

    Runs that only change case are lowered whole: most of a text never reaches the
    character-by-character path, which is what makes folding every document affordable.
    """
    pieces: list[str] = []
    origin: list[int] = []
    previous_space = False
    for match in _segments(keep_marks).finditer(text):
        start = match.start()
        if match.lastgroup == "same":
            run = match.group()
            if previous_space and run[0] == " ":
                run, start = run[1:], start + 1
                if not run:
                    continue  # a lone space after a space: still in the same run of spaces
            # str.lower gives a word-final capital sigma its final form (ς), which casefold,
            # and so `fold`, reads as σ: fold it the same way here.
            pieces.append(run.lower().replace("\u03c2", "\u03c3"))
            origin.extend(range(start, match.end()))
            previous_space = run.endswith(" ")
            continue
        if match.lastgroup == "space":
            if not previous_space:
                pieces.append(" ")
                origin.append(start)
                previous_space = True
            continue
        piece = _fold_char(match.group(), keep_marks)
        if not piece:
            continue
        if piece[0] == " " and previous_space:
            piece = piece.lstrip(" ")  # only " " itself: a folded character has no edge space
            if not piece:
                continue
        previous_space = piece.endswith(" ")
        pieces.append(piece)
        origin.extend([start] * len(piece))
    return "".join(pieces), origin


def is_arabic_letter(char: str) -> bool:
    """Whether `char` is a letter of the Arabic block (after folding)."""
    return "\u0620" <= char <= "\u064a" or "\u066e" <= char <= "\u06d3"


# The code points whose fold is looked at to build search patterns: the whole Basic
# Multilingual Plane, and the supplementary blocks that hold letters with a case or a
# compatibility form (mathematical letters, Arabic mathematical letters, enclosed letters)
# or invisible characters (tags, variation selectors, format controls).
_SCANNED = (
    (0x0000, 0xD7FF), (0xE000, 0xFFFF), (0x10400, 0x104FF), (0x10570, 0x105BF),
    (0x10780, 0x107BF), (0x10C80, 0x10CFF), (0x11000, 0x110FF), (0x118A0, 0x118FF),
    (0x13400, 0x1345F), (0x16E40, 0x16E9F), (0x1BCA0, 0x1BCAF), (0x1D100, 0x1D24F),
    (0x1D400, 0x1D7FF), (0x1E900, 0x1E95F), (0x1EE00, 0x1EEFF), (0x1F100, 0x1F2FF),
    (0x1FBF0, 0x1FBFF), (0x2F800, 0x2FA1F), (0xE0000, 0xE01EF),
)  # fmt: skip
_WORD = re.compile(r"\w")


@lru_cache(maxsize=1)
def _scan() -> tuple[dict[str, frozenset[str]], str]:
    forms: dict[str, set[str]] = {}
    invisible_words: list[str] = []
    for low, high in _SCANNED:
        for code in range(low, high + 1):
            char = chr(code)
            piece = fold_char(char)
            if not piece:
                if _WORD.match(char):
                    invisible_words.append(char)
                continue
            if char.isspace() or piece == char:
                continue
            forms.setdefault(piece, set()).add(char)
    return {key: frozenset(chars) for key, chars in forms.items()}, "".join(invisible_words)


def folded_forms() -> dict[str, frozenset[str]]:
    """Each matching form (one character or more) and the characters other than itself that
    fold to it, over the scripts of `_SCANNED`: "a" ← "A", "á", "ａ", "𝐚", …; "لا" ← "ﻻ", ….
    Built once (a few tenths of a second), for search patterns."""
    return _scan()[0]


def ignorable_class() -> str:
    """A regular-expression fragment (Python's `re`) matching any
    one character that folds to nothing, and some punctuation and symbols besides: every
    character that is neither a word character nor white space, and the word characters
    that fold to nothing (tatweel, Quranic signs, isolated harakat, fillers)."""
    extra = "".join(_class_member(char) for char in _scan()[1])
    return f"(?:[^\\w\\s]|[{extra}])"


def _class_member(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char
