from __future__ import annotations

import pytest

from pseudonymizer.recognizers.dates import PARTIAL_SCORE, DateRecognizer
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
        # Month first, with a day over 12 (the United States)
        ("born 04/22/1955, seen 09/21/2024", ["04/22/1955", "09/21/2024"]),
        ("on 04/23/23 at", ["04/23/23"]),
        # A month and a day without the year, in either order, and two-digit years
        ("seen on Oct 3 for", ["Oct 3"]),
        ("due March 22nd and", ["March 22nd"]),
        ("on October the 3rd he", ["October the 3rd"]),
        ("on the 3rd of October 2019", ["3rd of October 2019"]),
        ("seen Aug 10, '23 for", ["Aug 10, '23"]),
        ("since Sept. 11", ["Sept. 11"]),
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
        "Jan 45 was",  # no such day
        "you may 12 times",
    ],
)
def test_what_is_not_a_date_is_left_alone(text: str) -> None:
    assert found(text) == []


def test_spans_are_dates_from_the_regex_source() -> None:
    assert DateRecognizer().recognize(["on 5 May 2001", ""], "en") == [
        [Span(3, 13, "DATE", 0.9, "regex")],
        [],
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("seen at the clinic on 08/22, with", ["08/22"]),
        ("admitted 10/3 for chest pain", ["10/3"]),
        ("seen 10/3 in the ED", ["10/3"]),
        ("DOB: 3/4", ["3/4"]),
        ("d/c 12/1 home", ["12/1"]),
        ("on Mon 12/15 (instead of", ["12/15"]),
        ("from 10/3 to 10/5 he", ["10/3 to 10/5"]),
        ("call back 10/3 at 14:00", ["10/3"]),
        ("labs 10/3 2pm", ["10/3"]),
        ("le 3/10 à 14h", ["3/10"]),
        ("on the 11th at 3pm", ["11th"]),
        ("Monday the 11th, she", ["11th"]),
        ("resume Wednesday 20th.", ["20th"]),
        ("until the 11th-12th", ["11th-12th"]),
        ("Friday 13, then", ["13"]),
        ("rendez-vous lundi 11 à 9h", ["11"]),
        ("le 11 à 14h30", ["11"]),
        ("due on the 3rd of this month", ["3rd of this month"]),
        ("moved in '05 to", ["'05"]),
        ("since ’98", ["’98"]),
        ("in spring 2019 she", ["spring 2019"]),
        ("summer of '19", ["summer of '19"]),
        ("mid-2019", ["mid-2019"]),
        ("début 2020", ["début 2020"]),
        ("s/p CABG x 4 in 3/80. He", ["3/80"]),  # a month and a year, in any context
        ("Compared with 8/79-- the QRS", ["8/79"]),
        ("symptoms since 11/2019", ["11/2019"]),
    ],
)
def test_a_partial_date_in_a_dates_context_is_proposed_at_a_lower_score(
    text: str, expected: list[str]
) -> None:
    spans = DateRecognizer().recognize_one(text)
    assert [text[s.start : s.end] for s in spans] == expected
    assert {s.score for s in spans} == {PARTIAL_SCORE}


@pytest.mark.parametrize(
    "text",
    [
        "BP 120/80 and HR 72",  # a ratio
        "pain 5/10 today",  # a score
        "a pain of 5/10",
        "take 1/2 tab daily",  # a dose
        "on 1/2 tab daily",
        "for 3/4 hours",
        "results 10/3",  # no word that introduces a date
        "on 13/14 he",  # neither a day and a month
        "on the 3rd floor",  # an ordinal that is no day
        "after the 2nd dose",
        "the 3rd of 4 children",
        "Franklin on 13th and K",  # a street
        "End of the 3rd: Cowboys 28",  # a quarter
        "on 3rd and goal",
        "since the 19th-century",
        "the 45th day",
        "Monday 3 patients came",
        "un conseil à mon 28 .",  # "mon" is French for "my"
        "he sat 1/2 hour",
        "le 11 est un nombre",  # a bare number with no weekday nor time
        "Friday 45",
        "it's '05",  # a two-digit year with no word before it
        "the '90s",
        "in '123",
        "a fall 20 times",  # a season without a year
        "early 1234",
        "scored 13/80 points",  # no month
        "a score of 3/45",
        "take 3/40 tab",
        "BP 3/12 wks",  # a day could follow the slash: needs a cue
    ],
)
def test_what_only_looks_like_a_partial_date_is_left_alone(text: str) -> None:
    assert found(text) == []
