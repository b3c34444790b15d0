"""Recognizers: regular expressions, patterns, known entities and NER, behind one batch
protocol. `profiles.pattern_recognizers` says which run together."""

from pseudonymizer.recognizers.amounts import AmountRecognizer
from pseudonymizer.recognizers.base import (
    PatternRecognizer,
    Recognition,
    Recognizer,
    RecognizerError,
    recognize_all,
)
from pseudonymizer.recognizers.dates import DateRecognizer
from pseudonymizer.recognizers.facilities import FacilityRecognizer
from pseudonymizer.recognizers.initials import InitialRecognizer
from pseudonymizer.recognizers.known import KnownEntityRecognizer
from pseudonymizer.recognizers.numbers import NumberRecognizer
from pseudonymizer.recognizers.occupations import OccupationRecognizer
from pseudonymizer.recognizers.propernouns import ProperNounRecognizer
from pseudonymizer.recognizers.references import ReferenceRecognizer
from pseudonymizer.recognizers.regex import RegexRecognizer
from pseudonymizer.recognizers.titles import TitleRecognizer

__all__ = [
    "AmountRecognizer",
    "DateRecognizer",
    "FacilityRecognizer",
    "InitialRecognizer",
    "KnownEntityRecognizer",
    "NumberRecognizer",
    "OccupationRecognizer",
    "PatternRecognizer",
    "ProperNounRecognizer",
    "Recognition",
    "Recognizer",
    "RecognizerError",
    "ReferenceRecognizer",
    "RegexRecognizer",
    "TitleRecognizer",
    "recognize_all",
]
