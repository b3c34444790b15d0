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
        # Clinical and insurance records
        ("(MRN: 998877)?", ["998877"]),
        ("MRN# 789-45-123.", ["789-45-123"]),
        ("med rec #99887766, w/", ["99887766"]),
        ("(ins. #789-1234-567)?", ["789-1234-567"]),
        ("Her HMO ID is 5678-2345-4321.", ["5678-2345-4321"]),
        ("His MRN is 007-654321.", ["007-654321"]),
        ("with insurance ID: ABC123.", ["ABC123"]),
        ("patient ID 67890, see", ["67890"]),
        ("Medical Record Number: JHC-20220410SL", ["JHC-20220410SL"]),
        ("Her MRN is #SF-54321.", ["SF-54321"]),
        ("ref #SG-920311 and #123-45-6789", ["SG-920311", "123-45-6789"]),
        # Codes, and the shape of a social security number
        ("seen at UCSF (SJ-12345) and", ["SJ-12345"]),
        ("UCSF-20210930-567, S123456, RS121314", ["UCSF-20210930-567", "S123456", "RS121314"]),
        ("B123456789 and 12345-JS and 87342GH", ["B123456789", "12345-JS", "87342GH"]),
        ("SSN 123-45-6789.", ["123-45-6789"]),
        ("it was 987-65-4321 then", ["987-65-4321"]),
        ("OROZCO,KYLE   560-40-78-5   ", ["560-40-78-5"]),  # hyphenated groups, no cue
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
        "BP 120/80 and 145/95",  # blood pressures
        "plan 10 days of rest",  # a word cue before a small number
        "patient 45 years old",
        "the case was 12 years",
        "#1 and #2015 and #9764",  # ranks and hashtags
        "#CES2015 and #MH17",
        "COVID-19, H1N1, B12, CYP2D6, ICD-10, DSM-5",
        "in FY2020 and AD1066",  # a capital and a year
        "take 1000MG daily",  # a dose
        "SM-G9600 phone",
        "on 2083-07-20 and 1-2-3-4",  # a date; too few digits
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


def test_a_code_and_an_invalid_social_security_number_are_proposed_at_lower_scores() -> None:
    text = "SJ-12345, 123-45-6789, 000-12-3456 and 666-12-3456"
    scores = [(text[s.start : s.end], s.score) for s in ReferenceRecognizer().recognize_one(text)]
    assert scores == [
        ("SJ-12345", 0.7),
        ("123-45-6789", 0.8),
        ("000-12-3456", 0.5),
        ("666-12-3456", 0.5),
    ]
