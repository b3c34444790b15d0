from __future__ import annotations

import pytest

from pseudonymizer.recognizers import recognize_all
from pseudonymizer.recognizers.ner import NUMERIC_LABELS
from pseudonymizer.recognizers.profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    ner_drop_labels,
    pattern_recognizers,
)

TEXT = (
    "Mr K. (application no. 43185/98) was held in Edirne F-type Prison from 1 May 2001 and "
    "paid EUR 3,000; W, a nurse, saw him."
)


def labels(profile: str) -> list[tuple[str, str]]:
    [spans] = recognize_all([TEXT], "en", pattern_recognizers(profile)).spans
    return [(span.surface(TEXT), span.label) for span in spans]


PRECISE = [
    ("Mr K.", "PER"),
    ("43185/98", "ID"),
    ("Edirne F-type Prison", "ORG"),
    ("1 May 2001", "DATE"),
]


def test_the_precise_profile_finds_people_references_facilities_and_dates() -> None:
    assert labels("precise") == PRECISE


def test_the_recall_profile_adds_amounts_occupations_initials_and_numeric_entities() -> None:
    assert sorted(set(labels("recall")) - set(PRECISE)) == [
        ("EUR 3,000", "MONEY"),
        ("W", "PER"),
        ("nurse", "PROFESSION"),
    ]
    assert ner_drop_labels("precise") >= NUMERIC_LABELS
    # The recall profile keeps amounts, quantities and counts (sifted), not ranks and shares.
    assert NUMERIC_LABELS & ner_drop_labels("recall") == {"ORDINAL", "PERCENT"}
    assert "LAW" in ner_drop_labels("precise") & ner_drop_labels("recall")


def test_recall_comes_first_by_default() -> None:
    assert DEFAULT_PROFILE == "recall"
    assert labels(DEFAULT_PROFILE) == labels("recall")


@pytest.mark.parametrize("call", [pattern_recognizers, ner_drop_labels])
def test_an_unknown_profile_is_refused_naming_the_profiles(call: object) -> None:
    with pytest.raises(ValueError, match="recall, precise"):
        call("everything")  # type: ignore[operator]
    assert PROFILES == ("recall", "precise")
