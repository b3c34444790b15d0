"""The shape helpers the generators share: word lookup keys and digit positions."""

from __future__ import annotations

from pseudonymizer.pseudonyms.shape import digit_positions, digits_at, lookup_key, lookup_keys


def test_lookup_key_drops_case_accents_and_arabic_marks() -> None:
    assert lookup_key("Hélène") == lookup_key("HELENE") == "helene"
    assert lookup_key("مُحَمَّد") == "محمد"


def test_lookup_keys_is_the_set_of_each_words_key() -> None:
    assert lookup_keys(["Rue", "AVENUE", "Allée"]) == frozenset({"rue", "avenue", "allee"})


def test_digits_at_reads_any_digit_script_as_ascii() -> None:
    text = "+٤٤ 7700-90"
    positions = digit_positions(text)
    assert [text[index] for index in positions] == list("٤٤770090")
    assert digits_at(text, positions) == "44770090"
