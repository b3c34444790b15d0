from __future__ import annotations

import pytest

from pseudonymizer.recognizers.occupations import OccupationRecognizer


def found(text: str) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.label) for s in OccupationRecognizer().recognize_one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("seen by a consultant psychiatrist in", ["consultant psychiatrist"]),
        ("he worked as a food science technician", ["food science technician"]),
        ("She was a dairy worker.", ["dairy worker"]),
        ("Nurse on duty, she", ["Nurse"]),  # a capital at the start of a sentence
        ("elle est infirmière à Lyon 🏥", ["infirmière"]),
        ("an experienced administrator\r\nwho", ["experienced administrator"]),
    ],
)
def test_an_occupation_is_a_profession(text: str, expected: list[str]) -> None:
    assert found(text) == [(surface, "PROFESSION") for surface in expected]


@pytest.mark.parametrize(
    "text",
    [
        "the nurses and police officers",  # a group, not one person
        "represented by a lawyer practising in Ankara",  # a role in the proceedings
        "the judge and the prosecutor",
        "they met Chief Engineer Smith",  # part of a name
    ],
)
def test_groups_legal_roles_and_names_are_left_alone(text: str) -> None:
    assert found(text) == []
