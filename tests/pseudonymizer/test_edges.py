"""Moving a span's edges by a character or a word: never inside an emoji, a flag or a letter
with its accent, never onto white space."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pseudonymizer.edges import character_starts, move_edge

TEXT = "Hi 👋🏽 Moshe Chaya met Cafe\u0301 🇫🇷 in Lyon.\r\nمرحبا موشيه حايا"


def moved(surface: str, **how: object) -> str:
    start = TEXT.index(surface)
    new_start, new_end = move_edge(TEXT, start, start + len(surface), **how)  # type: ignore[arg-type]
    return TEXT[new_start:new_end]


@pytest.mark.parametrize(
    ("surface", "edge", "unit", "extend", "expected"),
    [
        ("Moshe", "end", "word", True, "Moshe Chaya"),
        ("Moshe", "start", "char", True, "👋🏽 Moshe"),  # the emoji with its skin tone
        ("Moshe Chaya", "end", "word", False, "Moshe"),
        ("Moshe Chaya", "start", "word", False, "Chaya"),
        ("Moshe Chaya", "end", "char", False, "Moshe Chay"),
        ("Moshe Chaya", "start", "char", False, "oshe Chaya"),
        ("met", "end", "char", True, "met Cafe\u0301"[:5]),
        ("Cafe\u0301", "end", "char", True, "Cafe\u0301 🇫🇷"),  # the whole flag
        ("Cafe\u0301", "end", "char", False, "Caf"),  # the e goes with its accent
        ("in Lyon", "end", "word", True, "in Lyon."),
        ("موشيه", "end", "word", True, "موشيه حايا"),
        ("Hi", "start", "char", True, "Hi"),  # no room: unchanged
        ("L", "end", "char", False, "L"),  # nothing would be left: unchanged
    ],
)
def test_edges_move_by_whole_characters_and_words(
    surface: str, edge: str, unit: str, extend: bool, expected: str
) -> None:
    assert moved(surface, edge=edge, unit=unit, extend=extend) == expected


@pytest.mark.parametrize(
    ("surface", "edge", "extend", "expected"),
    [
        ("Dr. Lina Haddad", "start", False, "Lina Haddad"),  # not ". Lina Haddad"
        ("Lina Haddad", "start", True, "Dr. Lina Haddad"),  # not ". Lina Haddad"
        ("Lina Haddad, Jr.", "end", False, "Lina Haddad"),  # not "Lina Haddad, Jr"
        ("Lina Haddad, Jr", "end", False, "Lina Haddad"),  # not "Lina Haddad,"
        ("Lina", "end", True, "Lina Haddad"),
        ("Lina Haddad,", "end", True, "Lina Haddad, Jr"),
        ("(سارة) منصور", "start", False, "منصور"),
        ("منصور", "start", True, "سارة) منصور"),
        ("👋🏽 Maya", "start", False, "Maya"),
        ("Maya", "start", True, "👋🏽 Maya"),
    ],
)
def test_a_word_move_skips_punctuation_and_spaces(
    surface: str, edge: str, extend: bool, expected: str
) -> None:
    text = "Hi 👋🏽 Maya! She met Dr. Lina Haddad, Jr. with (سارة) منصور."
    start = text.index(surface)
    new_start, new_end = move_edge(
        text,
        start,
        start + len(surface),
        edge=edge,
        unit="word",
        extend=extend,  # type: ignore[arg-type]
    )
    assert text[new_start:new_end] == expected


def test_crlf_is_one_character() -> None:
    assert TEXT.index("\r\n") + 2 in character_starts(TEXT)
    assert TEXT.index("\r\n") + 1 not in character_starts(TEXT)


@given(
    st.text(alphabet=list("ab \u0301👋🏽🇫\u200d\r\nع"), min_size=1, max_size=30),
    st.data(),
)
def test_an_edge_always_lands_between_characters(text: str, data: st.DataObject) -> None:
    starts = character_starts(text)
    start = data.draw(st.sampled_from(starts[:-1]))
    end = data.draw(st.sampled_from([s for s in starts if s > start]))
    how = {
        "edge": data.draw(st.sampled_from(["start", "end"])),
        "unit": data.draw(st.sampled_from(["char", "word"])),
        "extend": data.draw(st.booleans()),
    }
    new_start, new_end = move_edge(text, start, end, **how)  # type: ignore[arg-type]
    assert new_start in starts and new_end in starts and new_start < new_end
    if (new_start, new_end) != (start, end):  # the edge that moved is not on white space
        moved_char = text[new_start] if how["edge"] == "start" else text[new_end - 1]
        assert not moved_char.isspace()


def test_a_joiner_before_a_space_joins_nothing() -> None:
    # Found by the property above: "a" + ZWJ took the space after it into one character.
    text = "aa\u200d b"
    assert character_starts(text) == [0, 1, 3, 4, 5]
    assert move_edge(text, 0, 1, edge="end", unit="char", extend=True) == (0, 3)
    assert character_starts("👩\u200d💻x") == [0, 3, 4]  # a joined emoji stays one
