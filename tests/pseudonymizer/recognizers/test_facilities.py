from __future__ import annotations

import pytest

from pseudonymizer.recognizers.facilities import FacilityRecognizer
from pseudonymizer.spans import Span


def found(text: str) -> list[str]:
    return [text[s.start : s.end] for s in FacilityRecognizer().recognize_one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("He was held at HM Prison Full Sutton until", ["HM Prison Full Sutton"]),
        ("moved to Parkhurst prison in 1990", ["Parkhurst prison"]),
        ("the Opole Lubelskie Prison Penitentiary Commission decided",
         ["Opole Lubelskie Prison Penitentiary Commission"]),
        ("transferred to Edirne F-type Prison on", ["Edirne F-type Prison"]),
        ("He studied at the University of Ankara and", ["University of Ankara"]),
        ("In Edirne Prison he", ["Edirne Prison"]),
        ("détenu à la Maison d'arrêt de Fresnes depuis", ["Maison d'arrêt de Fresnes"]),
        ("au centre hospitalier universitaire de Rouen.",
         ["centre hospitalier universitaire de Rouen"]),
        ("à l’Hôpital Saint-Louis 👋 hier", ["Hôpital Saint-Louis"]),
        ("at Broadmoor\r\nHospital", []),  # a line break is not inside a name
    ],
)  # fmt: skip
def test_a_facility_head_with_a_proper_name_is_an_org(text: str, expected: list[str]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the prison was cold",
        "the Public Prosecutor's Office",
        "The Prison Service",  # generic words only
        "Hospital staff said",  # a sentence starts with the head word
        "State Hospital",
        "a police station",
        "for the Commission Mrs J. Liddy, Delegate",  # a person after the head word
    ],
)
def test_a_head_word_without_a_proper_name_is_left_alone(text: str) -> None:
    assert found(text) == []


def test_spans_are_orgs_from_the_regex_source() -> None:
    text = "at Parkhurst prison"
    assert FacilityRecognizer().recognize([text, ""], "en") == [
        [Span(3, 19, "ORG", 0.8, "regex")],
        [],
    ]
