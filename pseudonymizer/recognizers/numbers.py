"""Numbers named by the word before them, and phone numbers the strict PHONE pattern refuses:
"pager 4-1234", "ext. 204", "call 555-1234", "bed 12", "Room 4B", "123-456-7890".

The PHONE pattern (`pseudonymizer.recognizers.regex`) accepts only what a real number looks
like, so that a date or a count is never taken for one. But a number invented or mistyped
identifies as well as a real one, and the numbers of a hospital's pagers, extensions, beds and
rooms are short, bare and shaped like counts. Recall first (issue 30): what is surely a number
is proposed, what only may be one is proposed at a lower score for a person to confirm.

- PHONE (0.8) after a pager or extension cue: "pager", "beeper", "bleep", "pgr", "page",
  "ext", "extension": three digits at least, four after "page" ("see page 12"), groups
  joined by hyphens, dots or spaces ("pager 4-1234", "ext. 204"); and "x1234" after a number
  ("555-123-4567 x1234") or a cue.
- PHONE (0.7) after a phone cue: "call", "phone", "telephone", "tel", "ph", "cell", "mobile",
  "fax", "contact", "#": five digits at least, so that a local number ("call 555-1234",
  "Call 8-6236") is found and "call 911" or "call 10 people" are not.
- PHONE (0.4) by shape: three digits (or three in parentheses), three, four, separated by
  hyphens, dots or a space, when the area code or the exchange starts with 0 or 1, which no
  North American number does: "123-456-7890", "(555) 123-4567". The valid ones are the
  PHONE pattern's.
- ID (0.6) after a bed or room cue: "bed", "room", "rm", "ward", "unit", "box": one to five
  digits, a letter before or after, and a second group after a hyphen ("bed 12", "Room 4B",
  "Rm B-204", "PO Box 1234"), not before a unit of time or quantity ("room 2 hours later",
  "unit 10 mg").

Only the number is the span, not its cue.
"""

from __future__ import annotations

import re

from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.recognizers.references import alternation_by_first_letter
from pseudonymizer.spans import Span, select_non_overlapping

SOURCE = "regex"
PAGER_SCORE = 0.8
CUED_PHONE_SCORE = 0.7
PHONE_SHAPE_SCORE = 0.4
ROOM_SCORE = 0.6

_PAGER_CUES = ("pagers?", "beepers?", "bleeps?", "pgr", "page", "extn?", "extension")
_PHONE_CUES = (
    "call", "phone", "telephone", "tel", "ph", "cell", "cellphone", "mobile", "mob", "fax",
    "contact",
)  # fmt: skip
_ROOM_CUES = ("beds?", "rooms?", "rm", "ward", "units?", "box")
_KINDS = (
    ("pager", re.compile("|".join(_PAGER_CUES), re.IGNORECASE)),
    ("phone", re.compile("|".join(_PHONE_CUES), re.IGNORECASE)),
    ("room", re.compile("|".join(_ROOM_CUES), re.IGNORECASE)),
)
_NUMBER = r"\(?\d[\d().\- ]*\d\)?|\d"
_CUED = re.compile(
    rf"(?P<cue>{alternation_by_first_letter((*_PAGER_CUES, *_PHONE_CUES, *_ROOM_CUES))})"
    r"(?:\s*(?:number|no\.?|num))?\s*[:.]?\s*(?:#\s?)?"
    rf"(?P<number>(?-i:[A-Z])-?\d{{1,5}}|{_NUMBER})(?P<letter>(?-i:[A-Z])\b)?(?![\w]|[.,]\d)",
    re.IGNORECASE,
)
# A "#" alone before a phone number: "# 555-1234".
_HASH = re.compile(rf"#(?<![\w&#]#)\s?(?P<number>{_NUMBER})(?![\w]|[.,]\d)")
_EXTENSION = re.compile(r"x(?<![\w]x)\d{3,5}(?![\w])")
_AFTER_A_NUMBER = re.compile(r"\d\)?[\s,;(]*$")
_PHONE_SHAPE = re.compile(
    r"[(0-9](?<![\w+/.\-][(0-9])(?:(?<=\()\d{3}\)\s?|(?<=\d)\d\d[ .\-]?)\d{3}[ .\-]\d{4}"
    r"(?![\w]|[.\-/]\d)"
)
_NEXT_WORD = re.compile(r"\s*([a-z]+)", re.IGNORECASE)
# After a room or a bed number, the words that make it a count.
_QUANTITIES = frozenset(
    "hour hours hr hrs h min mins minute minutes day days week weeks month months year years "
    "times mg mcg g ml l units unit doses dose tabs tablets people patients beds rooms".split()
)  # fmt: skip


def _digits(number: str) -> int:
    return sum(char.isdigit() for char in number)


def _cued(text: str) -> list[Span]:
    found = []
    for match in _CUED.finditer(text):
        start, end = match.span("number")
        number = match.group("number").rstrip(" (.-")
        if number.count("(") != number.count(")"):
            number = number.strip("()")
            start = match.start("number") + match.group("number").index(number)
        end = start + len(number)
        if match.group("letter"):
            end = match.end("letter")
        cue = match.group("cue").lower()
        kind = next(kind for kind, cues in _KINDS if cues.fullmatch(cue))
        digits = _digits(number)
        if kind == "pager" and digits >= (4 if cue == "page" else 3):
            found.append(Span(start, end, "PHONE", score=PAGER_SCORE, source=SOURCE))
        elif kind == "phone" and digits >= 5:
            found.append(Span(start, end, "PHONE", score=CUED_PHONE_SCORE, source=SOURCE))
        elif kind == "room" and digits <= 6 and " " not in number:
            following = _NEXT_WORD.match(text, end)
            if following is None or following.group(1).lower() not in _QUANTITIES:
                found.append(Span(start, end, "ID", score=ROOM_SCORE, source=SOURCE))
    return found


def _extensions(text: str) -> list[Span]:
    found = []
    for match in _EXTENSION.finditer(text):
        if _AFTER_A_NUMBER.search(text, max(0, match.start() - 4), match.start()):
            found.append(Span(*match.span(), "PHONE", score=PAGER_SCORE, source=SOURCE))
    return found


def _hashed(text: str) -> list[Span]:
    found = []
    for match in _HASH.finditer(text):
        number = match.group("number")
        # "# 555-1234": a local number's shape, digit groups, seven digits at least.
        if _digits(number) >= 7 and re.search(r"\d[\s.\-]\d", number):
            start = match.start("number")
            found.append(Span(start, start + len(number), "PHONE", CUED_PHONE_SCORE, SOURCE))
    return found


def _phone_shapes(text: str) -> list[Span]:
    found = []
    for match in _PHONE_SHAPE.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if digits[0] in "01" or digits[3] in "01":  # the valid ones are the PHONE pattern's
            found.append(Span(*match.span(), "PHONE", score=PHONE_SHAPE_SCORE, source=SOURCE))
    return found


class NumberRecognizer(PatternRecognizer):
    """Proposes PHONE for pager, extension and phone numbers after their cue and for phone
    shapes that are no valid number, ID for bed and room numbers (source "regex"; scores by
    how sure: `PAGER_SCORE`, `CUED_PHONE_SCORE`, `ROOM_SCORE`, `PHONE_SHAPE_SCORE`)."""

    name = "numbers"

    def recognize_one(self, text: str) -> list[Span]:
        found = _cued(text) + _phone_shapes(text)
        if "x" in text:
            found += _extensions(text)
        if "#" in text:
            found += _hashed(text)
        # Smallest key first: the longer, then the more confident.
        return select_non_overlapping(found, key=lambda s: (s.start - s.end, -(s.score or 0)))
