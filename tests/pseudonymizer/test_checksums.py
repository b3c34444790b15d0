"""The check digits that the recognizers test and the pseudonym generators keep valid."""

from __future__ import annotations

import random

from pseudonymizer.checksums import iban_check_digits, iban_valid, luhn_valid
from pseudonymizer.pseudonyms import suggest
from pseudonymizer.recognizers.regex import RegexRecognizer


def test_luhn_accepts_known_card_numbers_and_refuses_a_changed_digit() -> None:
    for number in ("4111111111111111", "378282246310005", "5555555555554444", "79927398713"):
        assert luhn_valid(number)
        changed = number[:-1] + str((int(number[-1]) + 1) % 10)
        assert not luhn_valid(changed)


def test_luhn_reads_arabic_indic_digits_and_refuses_a_single_digit() -> None:
    assert luhn_valid("٤١١١١١١١١١١١١١١١")
    assert not luhn_valid("0")


def test_iban_check_digits_rebuild_known_ibans() -> None:
    for iban in ("GB82WEST12345698765432", "FR7630006000011234567890189", "DE89370400440532013000"):
        assert iban_valid(iban)
        assert iban_check_digits(iban[:2], iban[4:]) == iban[2:4]


def test_an_iban_with_a_changed_character_is_refused() -> None:
    assert not iban_valid("GB82WEST12345698765433")
    assert not iban_valid("GB28WEST12345698765432")


def test_drawn_bban_gets_check_digits_the_validator_accepts() -> None:
    rng = random.Random(7)
    for _ in range(200):
        bban = "".join(str(rng.randrange(10)) for _ in range(rng.randint(11, 30)))
        assert iban_valid("NL" + iban_check_digits("NL", bban) + bban)


def test_what_the_generators_draw_the_recognizer_finds_again() -> None:
    """Both sides derive from one rule: a drawn card or IBAN passes the recognizer's check."""
    originals = {"IBAN": "FR76 3000 6000 0112 3456 7890 189", "CARD": "4111 1111 1111 1111"}
    recognizer = RegexRecognizer()
    for label, original in originals.items():
        suggestions = suggest(original, label, "en", "checksums-secret", count=5)
        found = recognizer.recognize(suggestions, "en")
        for suggestion, spans in zip(suggestions, found, strict=True):
            assert [(s.start, s.end, s.label) for s in spans] == [(0, len(suggestion), label)]
