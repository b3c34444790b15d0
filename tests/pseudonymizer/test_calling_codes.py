"""Country calling codes, shared by the phone recognizer and the phone generators."""

from __future__ import annotations

from pseudonymizer.calling_codes import country_code_length
from pseudonymizer.pseudonyms import suggest
from pseudonymizer.recognizers.regex import RegexRecognizer


def test_codes_of_one_two_and_three_digits() -> None:
    assert country_code_length("15085550142") == 1  # North America
    assert country_code_length("79161234567") == 1  # Russia
    assert country_code_length("447700900384") == 2  # United Kingdom
    assert country_code_length("33612345678") == 2  # France
    assert country_code_length("212612345678") == 3  # Morocco
    assert country_code_length("93722758") == 2  # Afghanistan


def test_a_code_is_never_longer_than_the_digits() -> None:
    assert country_code_length("21") == 2
    assert country_code_length("2") == 1
    assert country_code_length("") == 0


def test_a_drawn_number_keeps_its_country_and_is_found_as_a_phone_again() -> None:
    recognizer = RegexRecognizer()
    for original in ("+212 6 12 34 56 78", "+44 7700 900384", "+1 508 555 0142"):
        suggestions = suggest(original, "PHONE", "en", "calling-codes-secret", count=5)
        found = recognizer.recognize(suggestions, "en")
        code = original.split()[0]
        for suggestion, spans in zip(suggestions, found, strict=True):
            assert suggestion.split()[0] == code
            assert [(s.start, s.end, s.label) for s in spans] == [(0, len(suggestion), "PHONE")]
