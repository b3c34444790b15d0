"""`invalidate`: the identifier no longer resolves, and still reads as what it was."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pseudonymizer.pseudonyms import invalidate

SECRET = "invalidation-secret"


def _same_form(before: str, after: str) -> bool:
    """Same length, and letters, digits and other characters at the same places."""
    if len(before) != len(after):
        return False
    for old, new in zip(before, after, strict=True):
        if old.isdigit() != new.isdigit() or old.isalpha() != new.isalpha():
            return False
        if not old.isalnum() and old != new:
            return False
        if old.isalpha() and old.isupper() != new.isupper():
            return False
    return True


def test_the_whatsapp_link_of_the_paper_keeps_scheme_host_and_country_code() -> None:
    original = "https://wa.me/+93722758"
    result = invalidate(original, SECRET)
    assert re.fullmatch(r"https://wa\.me/\+93\d{6}", result)
    assert result != original and _same_form(original, result)
    assert invalidate(original, SECRET) == result
    assert len({invalidate(original, f"secret-{n}") for n in range(5)}) > 1


def test_a_link_changes_in_its_last_meaningful_path_segment_only() -> None:
    original = "https://t.me/ironwolves_ma"
    result = invalidate(original, SECRET)
    assert result.startswith("https://t.me/") and result != original
    assert _same_form(original, result)
    original = "https://leetchi.example/c/soutien-kyle/photos"
    result = invalidate(original, SECRET)
    assert re.fullmatch(r"https://leetchi\.example/c/[a-z]+-[a-z]+/photos", result)
    assert result != original


def test_a_link_without_a_path_changes_its_query_value_or_its_host() -> None:
    original = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    result = invalidate(original, SECRET)
    assert result.startswith("https://www.youtube.com/watch?v=") and result != original
    assert _same_form(original, result)
    result = invalidate("https://janedoe.example", SECRET)
    assert result.startswith("https://") and result.endswith(".example")
    assert result != "https://janedoe.example"


def test_an_international_number_in_a_link_keeps_its_country_code() -> None:
    result = invalidate("https://wa.me/447700900384", SECRET)
    assert re.fullmatch(r"https://wa\.me/44\d{10}", result)


def test_addresses_phones_and_handles_keep_their_fixed_parts() -> None:
    result = invalidate("tom.reddle@protonmail.example", SECRET)
    assert result.endswith("@protonmail.example") and result != "tom.reddle@protonmail.example"
    result = invalidate("+44 7700 900461", SECRET)
    assert result.startswith("+44 ") and _same_form("+44 7700 900461", result)
    result = invalidate("@MaryJohanson1987", SECRET)
    assert result.startswith("@") and _same_form("@MaryJohanson1987", result)


def test_it_refuses_an_empty_surface() -> None:
    with pytest.raises(ValueError):
        invalidate("  ", SECRET)


@settings(max_examples=150, deadline=None)
@given(text=st.text(min_size=1, max_size=40).filter(lambda text: text.strip()))
def test_invalidation_never_returns_its_input_and_is_deterministic(text: str) -> None:
    result = invalidate(text, SECRET)
    assert result != text
    assert invalidate(text, SECRET) == result
