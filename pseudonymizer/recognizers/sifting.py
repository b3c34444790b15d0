"""What a model's entity must be to be proposed: not shorthand, not a moment nobody can place.

A NER model trained on news reads the capitals of clinical notes and posts as names: "COPD",
"CXR" and "PO QD" come back as organisations, "RT" as a person, "today" and "Friday" as dates.
Each such proposal costs an annotator a key press, and a flood of them costs the team its
attention. `Sifted` wraps a model and drops, before any merge:

- a person, place, organisation or MISC entity made only of shorthand, units, drugs or chat
  abbreviations (`wordlists.SHORTHAND`: "COPD", "PO QD", "RT"). Public bodies stay ("the
  Court of Cassation", "the United Kingdom Government"): annotators of court decisions mask
  them as often as not;
- a date made only of date words and quantifiers ("today", "this week", "Friday night",
  "all day", "these days": `dates.is_date_word`), which no reader can place, or of a number
  and shorthand ("HR 80", "q4h"); a month's name keeps it ("since November": a date
  element of a clinical note);
- money with no currency in or just before it ("1 Tablet(s"); an amount or a count made
  only of units ("2 L", "40 mg"), or a bare number next to a vital sign, a unit or a dose
  (`wordlists.measures`: "HR 80", "80 bpm"): the measurements of clinical notes. Counts
  that identify ("nineteen other defendants", "four children") stay; ordinals and
  percentages are dropped by the profiles (`recognizers.ner.COUNTS`).

In a clinical note (`wordlists.is_clinical`), where the model reads the capitals of headings,
findings and lab tables, it also drops:

- a bare number of up to three digits ("3.9", "16", "95%") or a ratio that is no date
  ("135/60"): a lab value or a vital sign; the numbers that identify (record numbers,
  phones, dates, ages past 89, rooms and beds) are the patterns' or longer;
- a person, place, organisation or MISC entity made only of words the language's
  vocabulary or the shorthand list holds, none of them a name or a place ("Soft",
  "Alert", "Rhythm", "Attending Physician", "Groin", "pain"): "Rose" or "Holmes" stay,
  and so do words in capitals ("UCLA").

Anywhere, an entity whose letters spell a clinician's credentials ("M.D.", "R.N.") is
dropped.

What it keeps has a word the vocabulary does not explain: a name, a rare word, a digit.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from pseudonymizer.recognizers.amounts import CODES
from pseudonymizer.recognizers.amounts import WORDS as CURRENCY_WORDS
from pseudonymizer.recognizers.base import Recognizer
from pseudonymizer.recognizers.dates import MONTHS, is_date_word
from pseudonymizer.recognizers.wordlists import (
    COMMON,
    SHORTHAND,
    Kind,
    is_clinical,
    is_place,
    kind,
    measures,
    names,
)
from pseudonymizer.spans import Span

# Words that count moments without placing one ("all day", "every week", "these days").
_QUANTIFIERS = frozenset(
    "all every other these those some few couple good whole same each a an one".split()
)
_NAMES = frozenset({"PER", "ORG", "LOC", "MISC", "COMP"})
# Currencies a model names that the amounts' pattern does not look for.
_OTHER_CURRENCIES = (
    "kronor", "krona", "kroner", "krone", "yen", "yuan", "rupees?", "pesos?", "reais",
    "shekels?", "hryvnias?", "kunas?", "drachmas?", "escudos?", "pesetas?", "guilders?",
)  # fmt: skip
# A currency: its sign, its ISO code or its name (`recognizers.amounts`).
_CURRENCY = re.compile(
    "[" + "".join(chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) == "Sc") + "]"
    r"|\b(?:" + "|".join((*CODES, *CURRENCY_WORDS, *_OTHER_CURRENCIES)) + r")\b",
    re.IGNORECASE,
)
_AMOUNTS = frozenset({"QUANTITY", "MONEY", "CARDINAL"})
# A month's name, full or abbreviated, in any case: what makes a date placeable.
_MONTH = re.compile(
    r"(?<!\w)(?:" + "|".join(sorted(map(re.escape, MONTHS), key=len, reverse=True)) + r")(?!\w)",
    re.IGNORECASE,
)
# The words of an age after its number.
_AGES = frozenset("yo y/o yr yrs year years yoa ans".split())
# The word next to a number, on either side ("HR 80", "2 L", "80 bpm").
_BEFORE = re.compile(r"([^\W\d_][\w/]*)\W{0,2}$")
_AFTER = re.compile(r"^\W{0,2}([^\W\d_][\w/]*)")
_WORDS = re.compile(r"[^\W\d_][\w'’\-]*")
# The credentials after a clinician's name, which a model reads as a place or a body
# ("M.D.", "R.N."; not "U.S.", whose letters spell the shorthand of an ultrasound).
_CREDENTIALS = frozenset(
    "md do rn lpn np pa phd dds dmd pharmd dpm od cna crna aprn mph msn bsn facs frcp mbbs".split()
)
# A lab value or a vital sign in a clinical note ("3.9", "16", "98.7", "95%", "135/60").
_VALUE = re.compile(r"[<>~]?\d{1,3}(?:[.,]\d+)?\s?%?")
_RATIO = re.compile(r"(\d{1,3})/(\d{1,3})")
# Handles, hashtags and links a model's entity may hold ("RT @user"): the patterns propose
# them, and the merge trims them out of the entity, so they do not make it a name.
_PATTERNED = re.compile(r"[@#]\w[\w.\-]*|\w+://\S+|www\.\S+")


def _measured(text: str, span: Span, language: str) -> bool:
    """Whether a bare number is a measurement: shorthand next to it ("HR 80", "2 L"), not
    an age ("92 yo", "aged 94": an identifier past 89)."""
    before = _BEFORE.search(text, max(0, span.start - 24), span.start)
    after = _AFTER.search(text[span.end : span.end + 24])
    if after is not None and after.group(1).lower() in _AGES:
        return False
    return any(
        match is not None and match.group(1).lower() in measures() for match in (before, after)
    )


def _date_words_only(words: Sequence[str]) -> bool:
    return bool(words) and all(is_date_word(word) for word in words)


def plausible(span: Span, text: str, language: str, *, clinical: bool = False) -> bool:
    """Whether a model's `span` of `text` may identify someone (see the module); `clinical`:
    `text` is a clinical note (`clinical_text`)."""
    surface = text[span.start : span.end]
    if span.label == "DATE":
        words = _WORDS.findall(surface)
        if _MONTH.search(surface):
            return True  # "November", "since March": a date element a reader can place
        if any(char.isdigit() for char in surface):
            # "HR 80", "q4h": a measurement a model read as a time, unless a month or a
            # weekday says it is a date.
            return _date_words_only(words) or not any(
                kind(word, language) is SHORTHAND for word in words
            )
        rest = [word for word in words if word.lower() not in _QUANTIFIERS]
        return not (words and (not rest or _date_words_only(rest)))
    words = _WORDS.findall(_PATTERNED.sub(" ", surface))
    if span.label == "MONEY" and not _CURRENCY.search(text, max(0, span.start - 2), span.end):
        return False  # "1 Tablet(s", "2": no currency, no money
    if span.label in _AMOUNTS:
        if words:
            return any(kind(word, language) is not SHORTHAND for word in words)
        return not (clinical and _lab_value(surface)) and not _measured(text, span, language)
    if span.label not in _NAMES or not words or any(char.isdigit() for char in surface):
        return True
    if "".join(words).lower() in _CREDENTIALS:
        return False  # "M.D.", "R.N."
    kinds = [kind(word, language) for word in words]
    if all(found is SHORTHAND for found in kinds):
        return False
    return not (
        clinical and all(_everyday(word, found) for word, found in zip(words, kinds, strict=True))
    )


def _lab_value(surface: str) -> bool:
    """A value of a clinical note's table: a number of up to three digits, with decimals or
    a percentage ("3.9", "16", "98.7", "95%"), or a ratio that is no month and day or year
    ("135/60", "2/2" is left: a date)."""
    value = surface.strip()
    if _VALUE.fullmatch(value):
        return True
    ratio = _RATIO.fullmatch(value)
    return ratio is not None and not (
        1 <= int(ratio.group(1)) <= 12 and (int(ratio.group(2)) <= 31 or len(ratio.group(2)) == 2)
    )


def _everyday(word: str, found: Kind) -> bool:
    """A common word or shorthand that no name or place of the lists spells, not written in
    capitals ("UCLA", "LA General": an acronym is a name as often as a heading)."""
    if word.isupper() and len(word) > 1:
        return False
    if found is SHORTHAND:
        return True
    folded = word.lower()
    return found is COMMON and folded not in names() and not is_place(folded)


@lru_cache(maxsize=4)
def clinical_text(text: str, language: str = "en") -> bool:
    """Whether `text` reads as a clinical note (`wordlists.is_clinical`; remembered for the
    last texts: each recognizer of a run asks in turn)."""
    return is_clinical(_WORDS.findall(text), language)


def sift(spans: Sequence[Span], text: str, language: str) -> list[Span]:
    """The `spans` of a model over `text` that are `plausible`."""
    if not spans:
        return []
    clinical = clinical_text(text, language)
    return [span for span in spans if plausible(span, text, language, clinical=clinical)]


class Sifted:
    """A recognizer whose spans are kept only when `plausible`."""

    def __init__(self, recognizer: Recognizer) -> None:
        self.recognizer = recognizer
        self.name = recognizer.name

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        found = self.recognizer.recognize(texts, language)
        return [sift(spans, text, language) for text, spans in zip(texts, found, strict=True)]
