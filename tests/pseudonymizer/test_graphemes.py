"""Grapheme clusters: where a span may begin and end."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
import regex

from pseudonymizer import graphemes
from pseudonymizer.formats.base import ImportedDocument, validate_document
from pseudonymizer.recognizers.base import recognize_all
from pseudonymizer.spans import Span

THUMBS_UP_MEDIUM = "\U0001f44d\U0001f3fd"  # 👍🏽: the hand, then its skin tone
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧: three people, two joiners
FRANCE = "\U0001f1eb\U0001f1f7"  # 🇫🇷: two regional indicators


def whole_text_boundaries(text: str) -> set[int]:
    return {0} | {match.end() for match in regex.finditer(r"\X", text)}


@pytest.mark.parametrize(
    ("text", "inside"),
    [
        (f"Merci {THUMBS_UP_MEDIUM} Moshe", [7]),
        (f"La famille {FAMILY} de Moshe", [12, 13, 14, 15]),
        (f"Vive la {FRANCE} !", [9]),
        ("Rene\u0301 Dubois", [4]),
        ("سلام\r\nموشيه", [5]),
        ("مُوشيه", [1]),  # a damma on the mim
    ],
)
def test_no_offset_inside_a_cluster_is_a_boundary(text: str, inside: list[int]) -> None:
    for index in range(len(text) + 1):
        assert graphemes.is_boundary(text, index) == (index not in inside)


def test_a_span_is_widened_to_the_whole_clusters_it_touches() -> None:
    text = f"Merci {THUMBS_UP_MEDIUM} Rene\u0301 et {FRANCE}"
    hand = text.index(THUMBS_UP_MEDIUM)
    rene = text.index("Rene")
    flag = text.index(FRANCE)
    assert graphemes.widen(text, hand, hand + 1) == (hand, hand + 2)
    assert graphemes.widen(text, hand + 1, hand + 2) == (hand, hand + 2)
    assert graphemes.widen(text, rene, rene + 4) == (rene, rene + 5)
    assert graphemes.widen(text, flag + 1, flag + 2) == (flag, flag + 2)
    assert graphemes.widen(text, rene, rene + 5) == (rene, rene + 5)


def test_cr_lf_is_one_cluster_and_a_lone_cr_or_lf_is_its_own() -> None:
    text = "a\r\nb\rc\nd"
    assert not graphemes.is_boundary(text, 2)
    assert graphemes.widen(text, 2, 4) == (1, 4)
    assert graphemes.is_boundary(text, 5) and graphemes.is_boundary(text, 7)


def test_a_cluster_longer_than_the_window_is_still_found_whole() -> None:
    # Forty combining marks on one letter, and eighty regional indicators in a row: no window
    # of a few characters sees where these clusters begin.
    marks = "x" + "\u0301" * 40
    flags = FRANCE * 40
    text = f"ab {marks} {flags} cd"
    first = text.index("x")
    assert graphemes.widen(text, first + 20, first + 21) == (first, first + 41)
    start = text.index(flags)
    assert graphemes.widen(text, start + 61, start + 62) == (start + 60, start + 62)
    assert not graphemes.is_boundary(text, start + 61)
    assert graphemes.is_boundary(text, start + 62)


def test_boundaries_agree_with_segmenting_the_whole_text() -> None:
    pieces = [
        "a", " ", "e", "\u0301", "\U0001f44d", "\U0001f3fd", "\u200d", "\U0001f469",
        "\U0001f1eb", "\U0001f1f7", "\r", "\n", "ب", "\u064e", "\u0600", "क", "\u094d",
        "ष", "\u1100", "\u1161", "\u11a8", "\ufe0f", "\x00",
    ]  # fmt: skip
    rng = random.Random(17)
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 90)))
        expected = whole_text_boundaries(text)
        assert {i for i in range(len(text) + 1) if graphemes.is_boundary(text, i)} == expected


def test_offsets_outside_the_text_are_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        graphemes.is_boundary("abc", 4)
    with pytest.raises(ValueError, match="not a span"):
        graphemes.widen("abc", 2, 1)


class _CutsClusters:
    """A recognizer whose offsets cut characters, as a model's subword tokens may."""

    name = "cutter"
    fallback = False

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [[Span(0, 4, "PER", 0.9, "ner"), Span(10, 11, "MISC", 0.9, "ner")] for _ in texts]


def test_machine_proposals_are_widened_to_whole_characters() -> None:
    text = f"Rene\u0301 dit {THUMBS_UP_MEDIUM}."
    [spans] = recognize_all([text], "fr", [_CutsClusters()]).spans
    assert [(span.start, span.end) for span in spans] == [(0, 5), (10, 12)]
    assert [text[span.start : span.end] for span in spans] == ["Rene\u0301", THUMBS_UP_MEDIUM]


def test_an_imported_span_that_cuts_a_character_is_widened_to_it() -> None:
    text = f"Bravo {THUMBS_UP_MEDIUM} Rene\u0301"
    document = ImportedDocument(
        text=text, spans=[Span(7, 8, "MISC", source="import"), Span(9, 13, "PER", source="import")]
    )
    validate_document(document, None)
    assert [(span.start, span.end) for span in document.spans] == [(6, 8), (9, 14)]
