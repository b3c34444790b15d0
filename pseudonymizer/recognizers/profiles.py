"""Detection profiles: which recognizers run, and which NER labels they keep.

- `precise`: stable patterns (links, addresses, handles, phones, IBANs, cards, reference
  numbers, calendar dates, numbers after their cue: pagers, extensions, beds, rooms; phone
  shapes that are no valid number, at a lower score), people named after a title, named
  facilities, and NER without amounts, counts and statutes. Fewer proposals to reject, more
  left to the annotator to add.
- `recall` (the default): everything `precise` finds, plus amounts of money, occupations,
  people named by an initial alone, the words the vocabulary does not explain that NER
  left untagged, and every NER entity type but statutes, ordinals and percentages (amounts
  of money, quantities and counts, sifted by `recognizers.sifting`). Cloak exists so
  that nothing identifying slips through: recall comes first, and what it masks that is
  harmless costs an annotator a keystroke to reject. For Arabic, which has no NER model,
  `recall` also runs the shipped lexicons (`pseudonymizer.recognizers.lexicons`: people,
  places and organisations from lists); other languages ignore them.

The numbers behind the choice are in `bench/detection_bench.py`: on TAB court decisions,
`recall` masks 95.7% of identifier tokens at 67.5% precision, `precise` 89.6% at 71.1%.
"""

from __future__ import annotations

from pseudonymizer.recognizers.amounts import AmountRecognizer
from pseudonymizer.recognizers.base import Recognizer
from pseudonymizer.recognizers.dates import DateRecognizer
from pseudonymizer.recognizers.facilities import FacilityRecognizer
from pseudonymizer.recognizers.initials import InitialRecognizer
from pseudonymizer.recognizers.lexicons import ArabicLexiconRecognizer
from pseudonymizer.recognizers.ner import COUNTS, DROPPED_BY_DEFAULT, NOT_IDENTIFYING
from pseudonymizer.recognizers.numbers import NumberRecognizer
from pseudonymizer.recognizers.occupations import OccupationRecognizer
from pseudonymizer.recognizers.propernouns import ProperNounRecognizer
from pseudonymizer.recognizers.references import ReferenceRecognizer
from pseudonymizer.recognizers.regex import RegexRecognizer
from pseudonymizer.recognizers.titles import TitleRecognizer
from pseudonymizer.vocabulary import DEFAULT_PROFILE, PROFILES

__all__ = ["DEFAULT_PROFILE", "PROFILES", "ner_drop_labels", "pattern_recognizers"]


def _check(profile: str) -> None:
    if profile not in PROFILES:
        raise ValueError(
            f"unknown detection profile {profile!r}; profiles are {', '.join(PROFILES)}"
        )


def pattern_recognizers(profile: str = DEFAULT_PROFILE) -> list[Recognizer]:
    """The recognizers that need no model, for `profile` (fresh objects, cheap to build)."""
    _check(profile)
    found: list[Recognizer] = [
        RegexRecognizer(),
        ReferenceRecognizer(),
        DateRecognizer(),
        NumberRecognizer(),
        TitleRecognizer(),
        FacilityRecognizer(),
    ]
    if profile == "recall":
        found += [
            AmountRecognizer(),
            OccupationRecognizer(),
            InitialRecognizer(),
            ProperNounRecognizer(),
            ArabicLexiconRecognizer(),
        ]
    return found


def ner_drop_labels(profile: str = DEFAULT_PROFILE) -> frozenset[str]:
    """The NER labels `profile` drops: statutes, ordinals and percentages in `recall`,
    amounts and counts too in `precise`."""
    _check(profile)
    return NOT_IDENTIFYING | COUNTS if profile == "recall" else DROPPED_BY_DEFAULT
