"""Recognizers: regular expressions, known entities and NER, behind one batch protocol."""

from pseudonymizer.recognizers.base import (
    PatternRecognizer,
    Recognition,
    Recognizer,
    RecognizerError,
    recognize_all,
)
from pseudonymizer.recognizers.known import KnownEntityRecognizer
from pseudonymizer.recognizers.references import ReferenceRecognizer
from pseudonymizer.recognizers.regex import RegexRecognizer
from pseudonymizer.recognizers.titles import TitleRecognizer

__all__ = [
    "KnownEntityRecognizer",
    "PatternRecognizer",
    "Recognition",
    "Recognizer",
    "RecognizerError",
    "ReferenceRecognizer",
    "RegexRecognizer",
    "TitleRecognizer",
    "recognize_all",
]
