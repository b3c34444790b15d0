"""Detection profiles: which recognizers run, and which NER labels they keep.

- `default`: stable patterns (links, addresses, handles, phones, IBANs, cards, reference
  numbers, calendar dates), people named after a title, named facilities, and NER without
  amounts, counts and statutes. Right for social media, letters and essays.
- `recall`: everything `default` finds, plus amounts of money, occupations, people named by
  an initial alone, capitalised words NER left untagged, and every NER entity type but
  statutes (cardinals, quantities, ordinals,
  percentages): for court decisions, clinical letters and other documents where a job, a
  sum, a sentence length or a head count singles a person out. It masks more that is
  harmless, for annotators to reject.

The numbers behind the choice (TAB court cases) are in `bench/detection_bench.py`.
"""

from __future__ import annotations

from pseudonymizer.recognizers.amounts import AmountRecognizer
from pseudonymizer.recognizers.base import Recognizer
from pseudonymizer.recognizers.dates import DateRecognizer
from pseudonymizer.recognizers.facilities import FacilityRecognizer
from pseudonymizer.recognizers.initials import InitialRecognizer
from pseudonymizer.recognizers.ner import DROPPED_BY_DEFAULT, NOT_IDENTIFYING
from pseudonymizer.recognizers.occupations import OccupationRecognizer
from pseudonymizer.recognizers.propernouns import ProperNounRecognizer
from pseudonymizer.recognizers.references import ReferenceRecognizer
from pseudonymizer.recognizers.regex import RegexRecognizer
from pseudonymizer.recognizers.titles import TitleRecognizer

PROFILES: tuple[str, ...] = ("default", "recall")


def _check(profile: str) -> None:
    if profile not in PROFILES:
        raise ValueError(
            f"unknown detection profile {profile!r}; profiles are {', '.join(PROFILES)}"
        )


def pattern_recognizers(profile: str = "default") -> list[Recognizer]:
    """The recognizers that need no model, for `profile` (fresh objects, cheap to build)."""
    _check(profile)
    found: list[Recognizer] = [
        RegexRecognizer(),
        ReferenceRecognizer(),
        DateRecognizer(),
        TitleRecognizer(),
        FacilityRecognizer(),
    ]
    if profile == "recall":
        found += [
            AmountRecognizer(),
            OccupationRecognizer(),
            InitialRecognizer(),
            ProperNounRecognizer(),
        ]
    return found


def ner_drop_labels(profile: str = "default") -> frozenset[str]:
    """The NER labels `profile` drops (amounts and statutes by default, statutes only in
    `recall`)."""
    _check(profile)
    return NOT_IDENTIFYING if profile == "recall" else DROPPED_BY_DEFAULT
