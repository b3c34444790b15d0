from __future__ import annotations

import pytest

from pseudonymizer.recognizers.initials import InitialRecognizer


def found(text: str) -> list[str]:
    return [text[s.start : s.end] for s in InitialRecognizer().recognize_one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("were sued by “K”, a former patient", ["K"]),
        ("while K was being cross-examined", ["K"]),
        ("because of K’s non-attendance", ["K"]),
        ("Mr W. told the court", ["W."]),
        ("they said A.B. was born 👶", ["A.B."]),
        ("the applicant (W) said", ["W"]),
        ("the statement of witness D: she left", ["D"]),  # no value after the colon
    ],
)
def test_a_person_named_by_an_initial_is_found(text: str, expected: list[str]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I went and A dog barked",
        "\nA. The circumstances of the case",
        "\r\n(b) B. Relevant domestic law",
        "under Article X of the Code",
        "a Category A prisoner and Class A drugs",
        "Edirne F-type Prison",
        "vitamin B12 and B 12",
        "K. Smith said",  # a name with an initial: titles and NER take it whole
        "Part V of the Act",
        "HPI: 70 yo M with NIDDM",  # a sex after an age
        "a 58-year-old F presents",
        "71 y/o M with CAD",
        "Sex: F\nDOB",
        "VS: T: 98.1  HR: 59",  # a vital sign or a lab before its value
        "K- 4.2 and T 37.5",
    ],
)
def test_a_letter_that_is_not_a_person_is_left_alone(text: str) -> None:
    assert found(text) == []
