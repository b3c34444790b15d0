"""The vocabulary's contract with the known-entity matcher: whatever the matcher finds, the
words of the text offer (`pseudonymizer.recognizers.known_words`)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pseudonymizer.folding import vanishing_separators
from pseudonymizer.recognizers.known import KnownEntityRecognizer
from pseudonymizer.recognizers.known_words import separators, surface_words, text_words


def offered(surface: str, text: str) -> bool:
    """Whether `text`'s words meet every set `surface` needs."""
    needed = surface_words(surface)
    assert needed is not None
    words = text_words(text)
    return all(forms & words for forms in needed)


def found(surface: str, text: str) -> bool:
    return bool(KnownEntityRecognizer([(surface, "PER")]).recognize_one(text))


@pytest.mark.parametrize(
    ("surface", "text"),
    [
        ("Moshe Chaya", "Yesterday MOSHE CHAYA called."),
        ("José", "Jose\u0301 est venu."),  # a combining accent
        ("Moshe", "Mo\u200bshe wrote"),  # a zero-width space inside the word
        ("Moshe", "a\u200bMoshe wrote"),  # one between two words
        ("Moshe", "Moshe\u00adx"),  # a soft hyphen ends the word
        ("Ｍｏｓｈｅ", "moshe"),  # fullwidth letters
        ("O'Brien", "met o'brien, twice"),
        ("@night_owl", "follow x@night_owl now"),
        ("night", "follow @night_owl now"),  # the underscore is no letter
        ("لندن", "سافر ولندن"),  # a proclitic
        ("لندن", "وبلندن"),
        ("القاهرة", "ذهبت للقاهرة"),  # the article's alef elided after ل
        ("القاهرة", "والقاهرة جميلة"),
        ("قاهرة", "في القاهرة"),  # the article as a proclitic
        ("فاطمة", "رأيت فاطمه"),  # ta marbuta folded
        ("+33 6 12 34 56 78", "call +33 6 12 34 56 78 90 now"),
        ("12 34", "call 1 12 34 5b now"),
        ("1 2 3 4 5 6 7 8 9 10", "0 1 2 3 4 5 6 7 8 9 10 11"),  # longer than a run's window
        ("Straße", "die STRASSE"),
        ("😀 Moshe", "hi 😀 Moshe"),
    ],
)
def test_what_the_matcher_finds_the_words_offer(surface: str, text: str) -> None:
    assert found(surface, text)
    assert offered(surface, text)


@pytest.mark.parametrize(
    ("surface", "text"),
    [
        ("Moshe Chaya", "Moshe met Chayat"),
        ("Raj Avrom", "Rajesh and Avromi"),
        ("لندن", "باريس"),
        # Each group occurs, never together: a number is looked up as a run.
        ("+33 6 12 34 56 78", "+33 6 78 56 34 12"),
        ("12 34", "a12 34"),  # "a12" is a word: no run
    ],
)
def test_a_surface_whose_word_is_missing_is_not_offered(surface: str, text: str) -> None:
    assert not found(surface, text)
    assert not offered(surface, text)


def test_a_surface_too_short_needs_nothing_and_punctuation_needs_no_word() -> None:
    assert surface_words("x") is None
    assert surface_words("--") == []


def test_the_vanishing_separators_are_no_word_characters() -> None:
    vanishing = vanishing_separators()
    assert {"\u200b", "\u00ad", "\u2060", "\ufeff"} <= vanishing
    assert not any(char.isalnum() for char in vanishing)
    assert "\u0301" not in vanishing  # a mark belongs to its word
    assert "\u0640" not in vanishing  # and so does the tatweel
    # Written out in known_words, so that an import does not work them out: the same.
    assert separators() == vanishing


_PIECES = st.sampled_from(
    [
        "Moshe", "Chaya", "moshé", "MOSHE", "Raj", "o'brien", "night_owl", "x", "42",
        "لندن", "ولندن", "القاهرة", "للقاهرة", "فاطمة", "بفاطمه", "محمّد", "ـمحمد", "علي", "على",
        "\u200b", "\u00ad", "\u0301", " ", "  ", ", ", ".", "-", "'", "@", "\r\n", "😀", "ß", "ss",
        "12", "34", "5", "+33", "a12", "5b", " / ", "٣",
    ]
)  # fmt: skip


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    text=st.lists(_PIECES, min_size=1, max_size=12).map("".join),
    start=st.integers(min_value=0, max_value=40),
    length=st.integers(min_value=2, max_value=20),
)
def test_any_surface_the_matcher_finds_in_a_text_its_words_offer(
    text: str, start: int, length: int
) -> None:
    """Take any piece of the text as the surface: wherever the matcher finds it, the text's
    words offer it. (The two residues the module names are left out of the pieces' mixes:
    they need a separator on each side of one word's pieces.)"""
    surface = text[start : start + length]
    if surface_words(surface) is None or not found(surface, text):
        return
    if text.count("\u200b") + text.count("\u00ad") >= 2:
        return  # the documented residue: a word split twice over
    assert offered(surface, text), (surface, text)


def test_words_apart_are_offered_and_the_documents_then_read() -> None:
    """The vocabulary holds words, not their order: "Moshe met Chaya" offers "Moshe Chaya",
    which the matcher does not find there; the caller reads such documents to know."""
    assert offered("Moshe Chaya", "Moshe met Chaya")
    assert not found("Moshe Chaya", "Moshe met Chaya")
