from __future__ import annotations

import pytest

from pseudonymizer.recognizers.dates import DateRecognizer
from pseudonymizer.spans import Span


def found(text: str) -> list[str]:
    return [text[s.start : s.end] for s in DateRecognizer().recognize_one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("transmitted to the Court on 1 November 1998, when", ["1 November 1998"]),
        ("on 13 and 14 January 1998 he", ["13 and 14 January 1998"]),
        ("between 3-5 June 2001", ["3-5 June 2001"]),
        ("On November 1, 1998, the", ["November 1, 1998"]),
        ("in May 2004 and on 9 Sept. 2001", ["May 2004", "9 Sept. 2001"]),
        ("le 1er novembre 1998 à", ["1er novembre 1998"]),
        ("le 5 mai il", ["5 mai"]),
        ("born on 12/03/1985 in", ["12/03/1985"]),
        ("on 2024-03-12.", ["2024-03-12"]),
        ("في 3 يناير 2020", ["3 يناير 2020"]),
        ("في ٣ يناير ٢٠٢٠", ["٣ يناير ٢٠٢٠"]),
        ("تشرين الأول 2019", ["تشرين الأول 2019"]),
        ("🎂 12.03.85\r\n", ["12.03.85"]),
    ],
)
def test_a_whole_date_is_found(text: str, expected: list[str]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "in March he",  # a month alone
        "the 3 may be",  # an English verb
        "you may 2 go",
        "Jan Kowalski said",
        "section 12.3.4 of",
        "on 31/31/2020",  # no such day or month
        "version 1.2.2024x",
        "in 1998 he",  # a year alone is left to NER
    ],
)
def test_what_is_not_a_date_is_left_alone(text: str) -> None:
    assert found(text) == []


def test_spans_are_dates_from_the_regex_source() -> None:
    assert DateRecognizer().recognize(["on 5 May 2001", ""], "en") == [
        [Span(3, 13, "DATE", 0.9, "regex")],
        [],
    ]
