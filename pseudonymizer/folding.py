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
- typographic apostrophes (’ ‘ ʼ ʻ ´ ′) read as "'", and hyphens and dashes as "-";
- look-alike letters read as the Latin letters they pass for (below): Greek "Εvander" and
  Cyrillic "Evаnder" are "evander", "ɑ" is "a", "ı" is "i", "ø" is "o", "æ" is "ae";
- and the few Latin letters that neither decompose nor look like another: "þ" → "th", "ĸ" →
  "k", "ŀ" → "l" (NFKD would give "l·").

A look-alike is read from Unicode's confusables (UTS #39, `confusables.txt`, as the
`confusable_homoglyphs` package ships it), one character at a time, after decomposing and
case folding. The data groups characters that look alike into classes, each around one
prototype (TR39's skeleton of a single character: "Ε", "Е", "Ꭼ", "𝐄" → "E"). A character `c`
of the case folded text is read as Latin when:

1. `c` is a letter (Unicode category L*), is not ASCII and is not written right to left. ASCII
   never changes ("m" stays "m", not TR39's "rn"; "I" stays "i", not "l"); digits and signs
   are not letters ("0" stays "0", "١" stays "1", "×" stays "×"); Arabic and Hebrew letters
   are right to left (ا is not "l", ه not "o", ו not "l", ס not "o"): the Arabic folding, its
   lexicons and proclitics see exactly the letters they saw before.
2. Its reading is the ASCII letters in its class, combining marks dropped as everywhere in
   folding ("ø" is "o̸" for TR39, so "o"; "ł" is "l̸", so "l"), of the letter's own case:
   "Ι" (Greek capital iota) is in the class of "l" and "I", and reads "I". An uncased letter
   takes the shortest, then the lower case ("ⵏ" → "l", "𑜀" → "m" rather than "rn").
3. The capital is asked first, then `c` itself: folding has lowered "Ε" to "ε" already, whose
   own class ("ꞓ") holds no ASCII letter. So one letter reads the same in both cases, and
   folding stays blind to case; where the two cases pass for two Latin letters (Greek "Ν" and
   "ν": "N" and "v"; "Η"/"η", "Υ"/"υ"), the capital's reading wins, since capitals are the
   ones that cannot be told from Latin ones.
4. The reading is case folded: always ASCII lower case, so the fold of a fold is itself.

A cost of reading per character: letters of one script that pass for the same Latin letter
are one letter for Cloak (Greek "ο", "σ" and "θ" are all "o"; Armenian "ո" and "ռ" are "n"),
and a Greek or Cyrillic name folds partly to Latin letters ("Νίκος" → "nikoo"). Two names that
differ only so are taken for one: a false match a person can reject, where a missed one would
be published.

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
    "without_hamza",
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

# Read before decomposing: characters NFKD would turn into a space and an accent, or into a
# letter and a middle dot.
_BEFORE = {
    "\u00b4": "'",  # acute accent written for an apostrophe: O´Brien
    "\u013f": "l",  # Ŀ: NFKD gives "L·"
    "\u0140": "l",  # ŀ
}
# Latin letters that do not decompose and whose confusable class holds no ASCII letter (after
# case folding; every other such letter is read from the confusables, `_latin_reading`).
_NOT_DECOMPOSED = {
    "\u00fe": "th",  # þ thorn (Þ)
    "\u0138": "k",  # ĸ kra
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
            pieces.append(_AFTER.get(part) or _latin_reading(part) or part)
    # A spacing accent (¨, ˜, Arabic harakat in isolated form) decomposes into a space and a
    # mark: it reads as nothing, not as a space that would split a word.
    return "".join(pieces).strip(" ")


def _reads_as_latin(char: str) -> bool:
    """Whether a look-alike reading may replace `char`: a letter, neither ASCII nor written
    right to left (the module's docstring, rule 1)."""
    return (
        not char.isascii() and char.isalpha() and unicodedata.bidirectional(char) not in ("R", "AL")
    )


def _without_marks(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _confusable_latin() -> dict[str, frozenset[str]]:
    """Each character of the confusables data and the ASCII letter strings of its class
    (marks dropped), for the characters whose class holds any.

    `confusable_homoglyphs` ships TR39's `confusables.txt` as the homoglyphs of each character:
    a source lists its prototype and a prototype its sources. The classes are the connected
    parts of that graph (a prototype and its sources), whichever way each line was written, so
    no prototype needs telling apart from its sources. Built once, on the first letter that
    needs it (a few hundredths of a second)."""
    from confusable_homoglyphs.confusables import confusables_data

    def clean(text: str) -> str:
        # The data keeps the direction marks its source file wraps right-to-left text in.
        return text.replace("\u200e", "").replace("\u200f", "")

    neighbours: dict[str, set[str]] = {}
    for char, homoglyphs in confusables_data.items():
        for homoglyph in homoglyphs:
            one, other = clean(char), clean(homoglyph["c"])
            neighbours.setdefault(one, set()).add(other)
            neighbours.setdefault(other, set()).add(one)
    readings: dict[str, frozenset[str]] = {}
    seen: set[str] = set()
    for start in neighbours:
        if start in seen:
            continue
        members, stack = {start}, [start]
        while stack:
            for neighbour in neighbours[stack.pop()] - members:
                members.add(neighbour)
                stack.append(neighbour)
        seen |= members
        plain = {_without_marks(member) for member in members}
        latin = frozenset(text for text in plain if text.isascii() and text.isalpha())
        if latin:
            readings.update(dict.fromkeys(members, latin))
    return readings


def _latin_reading(char: str) -> str | None:
    """The ASCII letters (lower case) that `char`, a character of case folded text, passes
    for; None for most characters (the module's docstring, rules 1 to 4)."""
    if not _reads_as_latin(char):
        return None
    capital = char.upper()
    forms = [capital, char] if len(capital) == 1 and capital != char else [char]
    classes = _confusable_latin()
    for form in forms:
        if form.isascii():
            return form.casefold()  # "ı" is the lower case of "I"
        candidates = classes.get(form, frozenset())
        if form.isupper():
            candidates = frozenset(c for c in candidates if c.isupper())
        elif form.islower():
            candidates = frozenset(c for c in candidates if c.islower())
        if candidates:
            return min(candidates, key=lambda text: (len(text), text.swapcase())).casefold()
    return _NOT_DECOMPOSED.get(char)


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


# A hamza on the line after an alef at a word's end: "كربلاء", "علاء", "صنعاء".
_FINAL_HAMZA = re.compile("(?<=\u0627)\u0621(?![\u0620-\u064a])")


def without_hamza(text: str) -> str:
    """`text` with the hamza on the line that follows an alef at the end of a word dropped
    ("كربلاء" → "كربلا", "علاء الدين" → "علا الدين"): how much Arabic is written. Folding
    reads a hamza on a seat as its seat (أ → ا, ئ → ي) but keeps this one, which has no
    seat to read it as; `fold` stays as it is (it is the identity of a surface), and the
    Arabic lexicons look their entries up under both spellings."""
    return _FINAL_HAMZA.sub("", text)


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


@lru_cache(maxsize=1)
def vanishing_separators() -> frozenset[str]:
    """The characters that fold to nothing yet are no part of a word (neither letter, digit
    nor mark): format controls such as zero-width spaces, the soft hyphen, spacing accents.
    The folded text joins the words they stand between; the original keeps them apart."""
    fold_uncached = _fold_char.__wrapped__  # a few thousand characters, never seen again
    return frozenset(
        char
        for low, high in _SCANNED
        for char in map(chr, range(low, high + 1))
        if not char.isalnum()
        and unicodedata.category(char)[0] != "M"
        and not fold_uncached(char, False)
    )


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
