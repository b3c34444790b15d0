"""A drawn pseudonym never holds its original: not equal, not inside it, whatever the surface."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pseudonymizer.pseudonyms import suggest
from pseudonymizer.pseudonyms.dispatch import contains_original, reshape
from pseudonymizer.pseudonyms.shape import lookup_key

SECRET = "project-secret"
LABELS = ["PER", "LOC", "ORG", "ADDRESS", "USERNAME", "HASHTAG", "EMAIL", "URL", "PHONE",
          "DATE", "IBAN", "IP", "MISC", "NAME_PATIENT"]  # fmt: skip
LANGUAGES = ["en", "fr", "ar", "xx"]
# Every kind of character a surface may hold: letters of three scripts, accented and
# fullwidth forms, digits of two families, signs, template syntax, emoji, spaces.
SURFACES = st.text(
    alphabet=st.one_of(
        st.sampled_from("abcxyzABCXYZéÉçßﬁ0123456789٠١٢٣٧محمدسليا{}*=+-@#._/()!?'\" ＭＯｓ🙂"),
        st.characters(codec="utf-8", exclude_categories=["Cs"]),
    ),
    min_size=1,
    max_size=16,
).filter(lambda text: text.strip())


@pytest.mark.parametrize(
    ("original", "label"),
    [
        ("{{7*7}}", "PER"),
        ("{{7*7}}", "URL"),
        ("{{7*7}}", "MISC"),
        ("***", "PER"),
        ("2024", "PER"),
        ("7", "PER"),
        ("@", "USERNAME"),
        ("+", "PHONE"),
        ("--", "ORG"),
        ("${jndi:ldap://x}", "MISC"),
    ],
)
def test_a_surface_without_letters_is_never_offered_back(original: str, label: str) -> None:
    suggestions = suggest(original, label, "en", SECRET, count=5)
    assert len(suggestions) == 5
    assert all(not contains_original(s, original) for s in suggestions)


def test_template_syntax_keeps_its_shape_with_other_digits() -> None:
    suggestions = suggest("{{7*7}}", "PER", "en", SECRET, count=3)
    assert all(s.startswith("{{") and s.endswith("}}") and "*" in s for s in suggestions)
    assert all("7*7" not in s for s in suggestions)


def test_containment_is_folded_and_found_anywhere() -> None:
    assert contains_original("{{7*7}}0", "{{7*7}}")
    assert contains_original("Dr MOSHÉ  Levi", "moshe levi")
    assert contains_original("Ｍｏｓｈｅ", "Moshe")
    assert not contains_original("Raj Avrom", "Moshe")
    assert not contains_original("anything", "\u0301")  # folds to nothing: holds nothing


@settings(max_examples=300, deadline=None)
@given(original=SURFACES, seed=st.integers(min_value=0, max_value=2**32))
def test_a_reshaped_surface_never_holds_the_original(original: str, seed: int) -> None:
    shaped = reshape(random.Random(seed), original)
    assert len(shaped) == len(original)
    assert [c.isspace() for c in shaped] == [c.isspace() for c in original]
    # Every letter, digit and sign that reads as one differs where the original had it.
    for new, old in zip(shaped, original, strict=True):
        if old.isalpha() or old.isdecimal():
            assert lookup_key(new) != lookup_key(old)


@settings(max_examples=250, deadline=None)
@given(
    original=SURFACES,
    label=st.sampled_from(LABELS),
    language=st.sampled_from(LANGUAGES),
)
def test_no_suggestion_holds_its_original(original: str, label: str, language: str) -> None:
    suggestions = suggest(original, label, language, SECRET, count=3)
    assert suggestions
    assert all(not contains_original(s, original) for s in suggestions)
    assert suggest(original, label, language, SECRET, count=3) == suggestions
