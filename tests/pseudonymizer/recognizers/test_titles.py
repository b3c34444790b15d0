from __future__ import annotations

import pytest

from pseudonymizer.recognizers.titles import TitleRecognizer


def found(text: str) -> list[str]:
    return [text[s.start : s.end] for s in TitleRecognizer().recognize_one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("by Mr Galip Yalman, Mr Bahattin Sarısoy and Mr Yusuf Çamca",
         ["Mr Galip Yalman", "Mr Bahattin Sarısoy", "Mr Yusuf Çamca"]),
        ("represented by Mr S. Esmer, a lawyer", ["Mr S. Esmer"]),
        ("The applicant, Mr K., was born in 1960.", ["Mr K."]),
        ("their Agent, Mr C.A. Whomersley of the", ["Mr C.A. Whomersley"]),
        ("M. J.-P. Costa a dit", ["M. J.-P. Costa"]),
        ("for the applicant Mr B. Emmerson Professor A. Bradley, Counsel",
         ["Mr B. Emmerson", "Professor A. Bradley"]),
        ("Dr Price’s wife and Mr Jones' car", ["Dr Price", "Mr Jones"]),
        ("seen by Dr Price. She said", ["Dr Price"]),
        ("Lord Justice Hale", ["Lord Justice Hale"]),
        ("chez Mme Jeanne de La Fontaine hier", ["Mme Jeanne de La Fontaine"]),
        ("M. Dupont est venu", ["M. Dupont"]),
        ("👋 Dr. José Garci\u0301a arrived", ["Dr. José Garci\u0301a"]),
        ("Mr\r\nSmith", ["Mr\r\nSmith"]),
    ],
)  # fmt: skip
def test_a_title_and_the_name_after_it_are_one_person(text: str, expected: list[str]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Mr and Mrs went home",  # no name follows
        "Summer holidays",  # "Mr" inside a word
        "the Mrs. was late",
        "see section M 12",
        "Dr 5 mg daily",
        "Amir de",
    ],
)
def test_a_title_without_a_name_proposes_nothing(text: str) -> None:
    assert found(text) == []


def test_a_particle_needs_a_name_after_it() -> None:
    assert found("Mr Van de said") == ["Mr Van"]
