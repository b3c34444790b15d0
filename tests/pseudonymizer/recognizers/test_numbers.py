from __future__ import annotations

import pytest

from pseudonymizer.recognizers.numbers import (
    CUED_PHONE_SCORE,
    PAGER_SCORE,
    PHONE_SHAPE_SCORE,
    ROOM_SCORE,
    NumberRecognizer,
)
from pseudonymizer.recognizers.profiles import pattern_recognizers


def found(text: str) -> list[str]:
    return [s.surface(text) for s in NumberRecognizer().recognize_one(text)]


PAGER = ("PHONE", PAGER_SCORE)
PHONE = ("PHONE", CUED_PHONE_SCORE)
SHAPE = ("PHONE", PHONE_SHAPE_SCORE)
ROOM = ("ID", ROOM_SCORE)


@pytest.mark.parametrize(
    ("text", "expected", "kind"),
    [
        # Pagers and extensions
        ("pager 4-1234, beeper 12345", ["4-1234", "12345"], PAGER),
        ("bleep 2345 or pgr 1234", ["2345", "1234"], PAGER),
        ("page #4567 if", ["4567"], PAGER),
        ("ext. 204 or extension 4567", ["204", "4567"], PAGER),
        ("at 212-555-1234 x1234", ["x1234"], PAGER),
        # Numbers after a phone cue, the local ones included
        ("call 555-1234 or Call 8-6236", ["555-1234", "8-6236"], PHONE),
        ("Tel: 4567 8901.", ["4567 8901"], PHONE),
        ("reach her at # 555-1234", ["555-1234"], PHONE),
        # Phone shapes that no North American number has
        ("123-456-7890 and (555) 123-4567", ["123-456-7890", "(555) 123-4567"], SHAPE),
        ("is 555.123.4567.", ["555.123.4567"], SHAPE),
        # Beds and rooms
        ("bed 12, Room 4B, Rm B-204", ["12", "4B", "B-204"], ROOM),
        ("in room 302 ! and PO Box 1234", ["302", "1234"], ROOM),
    ],
)
def test_a_number_after_its_cue_or_in_a_phones_shape_is_proposed(
    text: str, expected: list[str], kind: tuple[str, float]
) -> None:
    spans = NumberRecognizer().recognize_one(text)
    assert [s.surface(text) for s in spans] == expected
    assert {(s.label, s.score) for s in spans} == {kind}


@pytest.mark.parametrize(
    "text",
    [
        "(508) 555-0142",  # a valid number: the PHONE pattern's, at 1.0
        "see page 12 of the report",  # a page
        "call 911 or call 10 people",  # too short for a phone number
        "pH 7.4",
        "room 2 hours later",  # a count
        "unit 10 mg",
        "the 1990-2000 decade and 12-345-6789",
        "ratio 123-456-78901",  # too long for a phone
        "phonetic 12345",
        "#2015 and #1234567",  # hashtags, and digits with no groups
    ],
)
def test_what_only_looks_like_those_numbers_is_left_alone(text: str) -> None:
    assert found(text) == []


def test_both_profiles_find_numbers_after_their_cue() -> None:
    for profile in ("precise", "recall"):
        assert any(isinstance(r, NumberRecognizer) for r in pattern_recognizers(profile))
