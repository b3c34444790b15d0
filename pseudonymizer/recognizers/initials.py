"""People named by an initial alone: "sued by “K”", "W. told the court", "A.B. was born".

Court decisions and clinical case reports hide a person behind a capital letter; the letter
still singles them out inside the release, and it is what TAB's annotators mask. A lone
capital (with or without a dot), or dotted capitals ("A.B."), standing as a word is
proposed as PER unless it is plainly something else:

- "I" and "A" (the pronoun and the article), "U" ("you" in a post), the mouth of an
  emoticon (":D", ": P", "xD") and a letter at the start of a line ("A. The circumstances
  of the case", a heading);
- a letter after a word that numbers things ("Article X", "Category A", "Class B",
  "Annex C", "Plan B", "Vitamin D", "Part V") or glued to a hyphen or a digit ("F-type",
  "B12", "B 12");
- a letter followed by a capitalised word (`TitleRecognizer` and NER take "K. Smith" whole);
- a sex after an age or its word ("70 yo M", "a 58-year-old F", "Sex: F") and a vital sign
  or a lab before its value ("T: 98.1", "K 4.2": a letter just before a number).

Part of the `recall` profile (the default), not of `precise`: in social-media text a lone
letter is as often a grade, a brand ("X") or a reaction, for the annotator to reject.
"""

from __future__ import annotations

import re

from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.spans import Span

LABEL = "PER"
SOURCE = "regex"

_INITIAL = re.compile(r"(?<![\w.\-’'])(?:[A-Z]\.){2,4}|(?<![\w.\-’'])[A-Z]\.?(?![\w\-])")
# Words after which a capital letter is a number or a name of a thing, not of a person.
_NUMBERING = frozenset(
    {
        "article", "articles", "category", "categories", "class", "annex", "appendix",
        "schedule", "part", "parts", "section", "chapter", "paragraph", "plan", "vitamin",
        "grade", "block", "wing", "room", "unit", "division", "zone", "hepatitis", "exhibit",
        "option", "group", "level", "stage", "form", "list", "point", "letter", "row",
        "series", "model", "version", "type", "tier", "team", "building", "floor", "gate",
        "platform", "sector", "ward", "flat", "apartment", "phase", "protocol",
        "rule", "rules", "table", "figure", "box", "line", "size", "channel", "item", "note",
        "notes", "brigade", "company", "battalion", "regiment", "squad", "cell", "cells",
    }
)  # fmt: skip
_PREVIOUS_WORD = re.compile(r"([^\W\d_]+)[\s“”\"'(]*$")
_NEXT_WORD = re.compile(r"\s+([^\W\d_])")
# The words before which a letter is a sex: an age's, and the field's ("Sex: F").
_SEXED = frozenset("yo o old yr yrs yoa sex gender".split())
_NOT_PEOPLE = _NUMBERING | _SEXED
_FIELD = re.compile(r"(?:sex|gender)\s*[:=]\s*$", re.IGNORECASE)
# A letter's value after it: "T: 98.1", "K- 4.2".
_VALUE = re.compile(r"\s*[:=\-]\s*\d")
# The eyes of an emoticon just before a letter: ":D", ";P", ": D", ":-O", "=D", "xD".
_EMOTICON = re.compile(r"(?<!\w)(?:[:;=8][\-^']?|x) ?$")


class InitialRecognizer(PatternRecognizer):
    """Proposes PER for a person written as an initial (source "regex", score 0.6)."""

    name = "initials"

    def recognize_one(self, text: str) -> list[Span]:
        spans: list[Span] = []
        for match in _INITIAL.finditer(text):
            letters = match.group()
            if letters in {"I", "A", "A.", "U"}:
                continue  # the pronoun, the article, "you" in a post
            start, end = match.span()
            if _EMOTICON.search(text, max(0, start - 3), start):
                continue  # ":D", ": P", "xD"
            if text[end : end + 2].strip()[:1].isdigit() or _VALUE.match(text, end):
                continue  # "B12", "B 12", "T: 98.1": a code, a size, a vital sign
            if self._at_line_start(text, start):
                continue
            previous = _PREVIOUS_WORD.search(text, max(0, start - 30), start)
            if previous and previous.group(1).lower() in _NOT_PEOPLE:
                continue  # "Article X", "70 yo M"
            if _FIELD.search(text, max(0, start - 12), start):
                continue  # "Sex: F"
            following = _NEXT_WORD.match(text, end)
            if following and following.group(1).isupper() and letters.endswith("."):
                continue
            spans.append(Span(start, end, LABEL, score=0.6, source=SOURCE))
        return spans

    @staticmethod
    def _at_line_start(text: str, position: int) -> bool:
        index = position - 1
        while index >= 0 and text[index] in " \t(":
            index -= 1
        return index < 0 or text[index] in "\r\n"
