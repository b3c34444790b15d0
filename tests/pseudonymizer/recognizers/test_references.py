from __future__ import annotations

import pytest

from pseudonymizer.recognizers.references import ReferenceRecognizer
from pseudonymizer.spans import Span


def found(text: str) -> list[str]:
    return [text[s.start : s.end] for s in ReferenceRecognizer().recognize_one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("an application (no. 43185/98) against", ["43185/98"]),
        ("applications nos. 35574/97 and 67385/01", ["35574/97", "67385/01"]),
        ("(E. 1993/54, K. 1993/67)", ["E. 1993/54", "K. 1993/67"]),
        ("in case no. 2-123/2004.", ["2-123/2004"]),
        ("Case No. C-12/04 was joined", ["C-12/04"]),
        ("dossier n° 12/00345 ouvert", ["12/00345"]),
        ("requête nº 5678/10", ["5678/10"]),
        ("see file AZ-1234: it", ["AZ-1234"]),
        ("File no: 20040012 .", ["20040012"]),
        ("ملف رقم 12345 في", ["12345"]),
        ("Ref. 👋 no. 77/2020\r\nnext", ["77/2020"]),
    ],
)  # fmt: skip
def test_a_reference_number_is_proposed_without_its_cue(text: str, expected: list[str]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Protocol No. 11 to the Convention",  # public text, not a file
        "Law no. 5237 and Decree no. 12",
        "Article 6 § 1 and Rule 39",
        "on 12/03/2024 he left",  # a date
        "the years 1993/94/95",
        "in No. 5 of the list",  # one digit: an item, not a file
        "a number of people",
        "half (1/2) of them",
    ],
)
def test_what_is_not_a_reference_number_is_left_alone(text: str) -> None:
    assert found(text) == []


def test_spans_are_ids_from_the_regex_source_with_a_score() -> None:
    text = "no. 43185/98 and 35574/97"
    assert ReferenceRecognizer().recognize([text, ""], "en") == [
        [Span(4, 12, "ID", 0.9, "regex"), Span(17, 25, "ID", 0.8, "regex")],
        [],
    ]
