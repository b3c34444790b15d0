"""Case, file, application, record and insurance numbers: "application no. 43185/98",
"E. 1993/54", "MRN: 789-45-123", "SJ-12345", "123-45-6789".

Court decisions, clinical letters and administrative files name their subject by reference
numbers as often as by name, and NER models see them as bare numbers (or not at all). Five
ways in, all labelled ID:

- a cue, then a reference (0.9): "no.", "n°", "nº", "number", "file", "case", "ref.", "reg.",
  "application", "dossier", "requête", "affaire", "رقم", and the cues of clinical and
  insurance records: "MRN", "medical record", "med rec", "chart", "account", "acct", "ID",
  "SSN", "insurance", "ins.", "policy", "member", "plan", "claim", "HMO", "NHS", ... followed by
  a token with a digit in it, two digits at least, or four (three with a capital) after a
  cue that is a word of the language too ("record", "plan", "ID": "plan 10 days") or after
  "is" ("MRN is 007-654321", "the case is 12 years old"): "no. 40593/04", "case no.
  2-123/2004", "file AZ-1234", "dossier n° 12/00345", "MRN# 789-45-123". A "#" alone is a
  cue too, before capitals, hyphens and six digits at least ("#SG-920311", "#123-45-6789";
  "#1" is a rank, "#2015" and "#MH17" are hashtags), at 0.7. Only the reference is the span,
  not the cue. A cue after the name of a legal instrument ("Protocol No. 11", "Law no.
  5237", "Article 6") is a reference to public text and is left alone;
- a shape alone: a number of three to six digits, a slash and two to four digits ("35574/97",
  "2005/123"), or a single capital letter and a dot before one ("E. 1993/54", "K.2006/45",
  the Turkish register numbers), 0.8. A date's slashes come in pairs (12/03/2024) and are
  left out, and so is a blood pressure (120/80: three digits over two or three, the first
  the larger, both in a pressure's range);
- a code (0.7): one to five capitals, a hyphen or not, four digits at least, then letters or
  digits after a hyphen or not ("SJ-12345", "UCSF-20210930-567", "S123456", "RS121314",
  "JHC-20220410SL"), or five digits at least then one to three capitals ("12345-JS",
  "87342GH"). Capitals and a year ("FY2020", "AD1066": 1000 to 2099) are not one, nor is a
  dose ("1000MG");
- the shape of a US social security number, 123-45-6789: 0.8 when it is a valid one (no
  area 000, 666 or 900-999, no group 00, no serial 0000), 0.5 when it is not, since a made-up
  or mistyped number identifies as well;
- digits in four groups or more joined by hyphens, seven digits at least ("560-40-78-5",
  an account or a record written without its cue), 0.5.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.spans import Span, select_non_overlapping

LABEL = "ID"
SOURCE = "regex"

_CUES = (
    r"n[o°º]s?\.?", r"nos?:", r"numbers?", r"num\.", r"files?", r"case", r"ref\.?", r"reference",
    r"reg\.?", r"registration", r"applications?", r"dossiers?", r"requêtes?", r"affaire",
    r"rôle", r"رقم",
    # Clinical and insurance records
    r"mrn", r"mr", r"medical", r"med", r"records?", r"rec\.?", r"charts?", r"accounts?",
    r"acct\.?", r"acc\.?", r"accession", r"id", r"ids", r"ssn", r"social security", r"insurance",
    r"ins\.?", r"policy", r"member", r"plan", r"claim", r"subscriber", r"beneficiary", r"group",
    r"hmo", r"hbn", r"hicn", r"mbi", r"nhs", r"npi", r"dea", r"encounter", r"enc\.?", r"patient",
    r"pt\.?",
)  # fmt: skip
# Digits closer to one another than a cue and a reference can be long: one window to read.
_CUE_BEFORE = 80
_MAX_REFERENCE = 40
_DIGITS = re.compile(rf"\d(?:\D{{0,{_CUE_BEFORE + _MAX_REFERENCE}}}\d)*")
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
_REFERENCE = r"(?-i:[A-Z]{0,5})[\-.]?\s?\d\w*(?:[/\-.:]\w+)*"
_CUE = r"(?:" + "|".join(_CUES) + r")"
# Between the cue and the reference: a colon or a dot, and a "#" ("MRN# 12345", "no. #12").
_BETWEEN = r"\s*[:.]?\s*(?:#\s?)?"


def alternation_by_first_letter(cues: tuple[str, ...]) -> str:
    """`cues` as one alternation that starts with a character class: `re` skips fast to where
    a match may start only then. The class consumes a cue's first letter, and a lookbehind
    checks it again before the rest of each cue (grouped by that letter)."""
    by_first: dict[str, list[str]] = {}
    for cue in cues:
        by_first.setdefault(cue[0], []).append(cue[1:])
    first = "".join(
        sorted({case for letter in by_first for case in (letter.lower(), letter.upper())})
    )
    rest = "|".join(f"(?<={letter})(?:{'|'.join(rests)})" for letter, rests in by_first.items())
    return rf"[{first}](?<!\w.)(?:{rest})"


_CUED = re.compile(
    rf"(?P<cue>{alternation_by_first_letter(_CUES)}(?:{_BETWEEN}{_CUE})*){_BETWEEN}"
    rf"(?:(?P<verb>is|was)\s+(?:#\s?)?)?(?P<ref>{_REFERENCE})",
    re.IGNORECASE,
)
# After a "#" alone, capitals, digits and hyphens only: "#CES2015Elections" is a hashtag.
_HASH = re.compile(r"#(?<![\w&#]#)(?P<ref>[A-Z]{0,5}-?\d[\d\-]*[A-Z]{0,3})(?![\w]|[/.]\w)")
_SHAPE = re.compile(r"(?<![\w/.])(?:[A-Z]\.\s?\d{4}/\d{1,6}|\d{3,6}/\d{2,4})(?![\w]|/\d|\.\d)")
_CODE = re.compile(
    r"[A-Z0-9](?<![\w\-/.#@][A-Z0-9])"
    r"(?:(?<=[A-Z])[A-Z]{0,4}-?\d{4,}(?:-?[A-Z0-9]+)*|(?<=\d)\d{4,}-?[A-Z]{1,3})"
    r"(?![\w\-]|[/.]\w)"
)
# Four groups of digits or more joined by hyphens, seven digits at least: "560-40-78-5",
# an account's or a record's number (a phone's shapes are the phone pattern's).
_GROUPS = re.compile(r"\d(?<![\w\-/.]\d)\d*(?:-\d+){3,}(?![\w]|[\-/.]\d)")
_YEAR_CODE = re.compile(r"[A-Z]{1,5}-?(?:1\d|20)\d\d")
_UNITS = frozenset("MG MCG ML KG MM CM KM IU HZ MHZ KB MB GB TB BC AD AM PM".split())
_SSN = re.compile(r"\d(?<![\w\-/.]\d)\d\d-(\d\d)-(\d{4})(?![\w]|[\-/.]\d)")
# Cues that are words of the language too: the reference after them has four digits at least.
_WORD_CUES = frozenset(
    "mr medical med record records rec chart charts account accounts acc id ids insurance ins "
    "policy member plan claim subscriber beneficiary group encounter enc patient pt".split()
)
_CODE_WITH_CAPITAL = re.compile(r"[A-Z]+-?\d+|\d+-?[A-Z]+")
_LAST_WORD = re.compile(r"(\w+)\W*$")
_PREVIOUS_WORD = re.compile(r"([\w\-]+)\W*$")


def _after_legal_instrument(text: str, cue_start: int) -> bool:
    match = _PREVIOUS_WORD.search(text, max(0, cue_start - 40), cue_start)
    return match is not None and match.group(1).lower() in _LEGAL_INSTRUMENTS


def _cued(text: str) -> Iterator[re.Match[str]]:
    """`_CUED`'s matches, looked for only near digits: a pattern that starts with fifty
    words, case aside, is slow to try at every character of a long text, and most prose
    has few digits."""
    for cluster in _DIGITS.finditer(text):
        start = max(0, cluster.start() - _CUE_BEFORE)
        end = cluster.end() + _MAX_REFERENCE + 1
        for match in _CUED.finditer(text, start, end):
            if match.end() < end:  # cut by the window: longer than a reference
                yield match


def _last_word(cue: str) -> str:
    match = _LAST_WORD.search(cue)
    return "" if match is None else match.group(1).lower()


def _trim(text: str, start: int, end: int) -> int:
    """`end` without trailing dots, colons and hyphens (the end of a sentence, not of a code)."""
    while end > start and text[end - 1] in ".:-/":
        end -= 1
    return end


def _blood_pressure(reference: str) -> bool:
    """ "120/80": three digits over two or three, the first the larger, both in range."""
    high, low = reference.split("/")
    return len(high) == 3 and 60 <= int(low) < int(high) <= 300


def _valid_ssn(match: re.Match[str]) -> bool:
    area = match.group()[:3]
    return (
        area != "000"
        and area != "666"
        and area[0] != "9"
        and match.group(1) != "00"
        and (match.group(2) != "0000")
    )


class ReferenceRecognizer(PatternRecognizer):
    """Proposes ID for reference numbers (source "regex"; 0.9 after a cue, 0.8 by shape, 0.7
    after a "#" and for a code, 0.5 for a social security number that is not valid and for
    hyphenated groups of digits)."""

    name = "references"

    def recognize_one(self, text: str) -> list[Span]:
        found: list[Span] = []
        for match in _cued(text):
            start, end = match.span("ref")
            end = _trim(text, start, end)
            digits = sum(c.isdigit() for c in text[start:end])
            if end - start > _MAX_REFERENCE or digits < 2:
                continue  # "No. 5" numbers an item of a list more often than a file
            weak = match.group("verb") or _last_word(match.group("cue")) in _WORD_CUES
            code = text[start:end]
            if weak and digits < 4 and not (digits >= 3 and _CODE_WITH_CAPITAL.fullmatch(code)):
                continue  # "plan 10 days", "patient 45", "the case was 12"
            if _after_legal_instrument(text, match.start("cue")):
                continue
            found.append(Span(start, end, LABEL, score=0.9, source=SOURCE))
        if "#" in text:
            for match in _HASH.finditer(text):
                start, end = match.span("ref")
                end = _trim(text, start, end)
                if end - start <= _MAX_REFERENCE and sum(c.isdigit() for c in text[start:end]) >= 6:
                    found.append(Span(start, end, LABEL, score=0.7, source=SOURCE))
        for match in _SHAPE.finditer(text):
            if not _blood_pressure(match.group()):
                found.append(Span(match.start(), match.end(), LABEL, score=0.8, source=SOURCE))
        for match in _CODE.finditer(text):
            code = match.group()
            if _YEAR_CODE.fullmatch(code) or code.lstrip("0123456789-") in _UNITS:
                continue
            found.append(Span(match.start(), match.end(), LABEL, score=0.7, source=SOURCE))
        for match in _SSN.finditer(text):
            score = 0.8 if _valid_ssn(match) else 0.5
            found.append(Span(match.start(), match.end(), LABEL, score=score, source=SOURCE))
        for match in _GROUPS.finditer(text):
            if sum(char.isdigit() for char in match.group()) >= 7:
                found.append(Span(match.start(), match.end(), LABEL, score=0.5, source=SOURCE))
        # Smallest key first: the longer, then the more confident.
        return select_non_overlapping(found, key=lambda s: (s.start - s.end, -(s.score or 0)))
