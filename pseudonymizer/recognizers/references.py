"""Case, file, application and record numbers: "application no. 43185/98", "E. 1993/54".

Court decisions, clinical letters and administrative files name their subject by reference
numbers as often as by name, and NER models see them as bare numbers (or not at all). Two
ways in, both labelled ID:

- a cue, then a reference: "no.", "n°", "nº", "number", "file", "case", "ref.", "reg.",
  "application", "dossier", "requête", "affaire", "رقم", followed by a token with a digit in
  it, two digits at least ("no. 40593/04", "case no. 2-123/2004", "file AZ-1234",
  "dossier n° 12/00345"). Only the reference is the span, not the cue. A cue after the name
  of a legal instrument ("Protocol No. 11", "Law no. 5237", "Article 6") is a reference to
  public text and is left alone;
- a shape alone: a number of three to six digits, a slash and two to four digits ("35574/97",
  "2005/123"), or a single capital letter and a dot before one ("E. 1993/54", "K.2006/45",
  the Turkish register numbers). A date's slashes come in pairs (12/03/2024) and are left out.
"""

from __future__ import annotations

import re

from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.spans import Span, select_non_overlapping

LABEL = "ID"
SOURCE = "regex"

_CUES = (
    r"n[o°º]s?\.?", r"nos?:", r"numbers?", r"num\.", r"files?", r"case", r"ref\.?", r"reference",
    r"reg\.?", r"registration", r"applications?", r"dossiers?", r"requêtes?", r"affaire",
    r"rôle", r"رقم",
)  # fmt: skip
# The words that make "no. 11" a reference to public text, not to a person's file.
_LEGAL_INSTRUMENTS = frozenset(
    {
        "protocol", "law", "act", "decree", "decree-law", "directive", "regulation", "rule",
        "rules", "article", "articles", "section", "sections", "paragraph", "code", "order",
        "resolution", "recommendation", "convention", "treaty", "amendment", "loi", "décret",
        "ordonnance", "arrêté", "règlement", "protocole", "circulaire", "قانون",
        "مرسوم",
    }
)  # fmt: skip
# Capital letters (case-sensitive, so that a cue word is not taken for them), then digits.
_REFERENCE = r"(?-i:[A-Z]{0,4})[\-.]?\s?\d\w*(?:[/\-.:]\w+)*"
_CUE = r"(?:" + "|".join(_CUES) + r")"
_CUED = re.compile(
    rf"(?<!\w)(?P<cue>{_CUE}(?:\s*[:.]?\s*{_CUE})*)\s*[:.]?\s*(?P<ref>{_REFERENCE})",
    re.IGNORECASE,
)
_SHAPE = re.compile(r"(?<![\w/.])(?:[A-Z]\.\s?\d{4}/\d{1,6}|\d{3,6}/\d{2,4})(?![\w]|/\d|\.\d)")
_PREVIOUS_WORD = re.compile(r"([\w\-]+)\W*$")
_MAX_REFERENCE = 40


def _after_legal_instrument(text: str, cue_start: int) -> bool:
    match = _PREVIOUS_WORD.search(text, max(0, cue_start - 40), cue_start)
    return match is not None and match.group(1).lower() in _LEGAL_INSTRUMENTS


def _trim(text: str, start: int, end: int) -> int:
    """`end` without trailing dots, colons and hyphens (the end of a sentence, not of a code)."""
    while end > start and text[end - 1] in ".:-/":
        end -= 1
    return end


class ReferenceRecognizer(PatternRecognizer):
    """Proposes ID for reference numbers (source "regex"; 0.9 after a cue, 0.8 by shape)."""

    name = "references"

    def recognize_one(self, text: str) -> list[Span]:
        found: list[Span] = []
        for match in _CUED.finditer(text):
            start, end = match.span("ref")
            end = _trim(text, start, end)
            if end - start > _MAX_REFERENCE or sum(c.isdigit() for c in text[start:end]) < 2:
                continue  # "No. 5" numbers an item of a list more often than a file
            if _after_legal_instrument(text, match.start("cue")):
                continue
            found.append(Span(start, end, LABEL, score=0.9, source=SOURCE))
        for match in _SHAPE.finditer(text):
            found.append(Span(match.start(), match.end(), LABEL, score=0.8, source=SOURCE))
        # Smallest key first: the longer, then the more confident.
        return select_non_overlapping(found, key=lambda s: (s.start - s.end, -(s.score or 0)))
