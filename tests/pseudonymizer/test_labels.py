from __future__ import annotations

import pytest

from pseudonymizer.labels import CANONICAL_LABELS, canonical_label, map_to_schema
from pseudonymizer.schemas import label_names, preset

CLOAKED = label_names(preset("cloaked"))
MULTIGRASCCO = label_names(preset("multigrascco"))
BASIC = label_names(preset("basic"))

# canonical label → (cloaked, multigrascco, basic)
EXPECTED: dict[str, tuple[str | None, str | None, str | None]] = {
    "PER": ("PER", "NAME_EXT", "PER"),
    "LOC": ("LOC", "LOCATION_OTHER", "LOC"),
    "ORG": ("ORG", "LOCATION_ORGANIZATION", "ORG"),
    "COMP": ("COMP", "LOCATION_ORGANIZATION", "ORG"),
    "DATE": ("DATE", "DATE", "MISC"),
    "ADDRESS": ("ADDRESS", "LOCATION_STREET", "MISC"),
    "URL": ("URL", "CONTACT_URL", "MISC"),
    "EMAIL": ("EMAIL", "CONTACT_EMAIL", "MISC"),
    "USERNAME": ("USERNAME", "NAME_USERNAME", "MISC"),
    "HASHTAG": ("HASHTAG", "OTHER", "MISC"),
    "PHONE": ("PHONE", "CONTACT_PHONE", "MISC"),
    "IBAN": (None, "ID", "MISC"),
    "IP": (None, "ID", "MISC"),
    "CARD": (None, "ID", "MISC"),
    "ID": (None, "ID", "MISC"),
    "PROFESSION": (None, "PROFESSION", "MISC"),
    "MISC": (None, "OTHER", "MISC"),
}


def test_the_table_covers_every_canonical_label() -> None:
    assert set(EXPECTED) == set(CANONICAL_LABELS)


@pytest.mark.parametrize(("label", "expected"), EXPECTED.items())
def test_each_canonical_label_maps_onto_each_preset(
    label: str, expected: tuple[str | None, str | None, str | None]
) -> None:
    assert (
        map_to_schema(label, CLOAKED),
        map_to_schema(label, MULTIGRASCCO),
        map_to_schema(label, BASIC),
    ) == expected


def test_a_label_the_schema_has_maps_to_itself() -> None:
    assert map_to_schema("IBAN", {"IBAN", "ID"}) == "IBAN"
    assert map_to_schema("NAME_PATIENT", MULTIGRASCCO) == "NAME_PATIENT"


def test_a_schema_without_a_fit_drops_the_span_unless_it_has_a_catch_all() -> None:
    assert map_to_schema("PHONE", {"PER", "LOC"}) is None
    assert map_to_schema("PHONE", {"PER", "OTHER"}) == "OTHER"
    assert map_to_schema("IBAN", {"PER", "MISC", "ID"}) == "ID"
    assert map_to_schema("NAME_PATIENT", BASIC) == "MISC"
    assert map_to_schema("NAME_PATIENT", CLOAKED) is None
    # With no catch-all, a street address is still better kept as a place than dropped.
    assert map_to_schema("ADDRESS", {"PER", "LOC"}) == "LOC"


@pytest.mark.parametrize(
    ("label", "canonical"),
    [
        ("PERSON", "PER"),
        ("B-PER", "PER"),
        ("I-LOC", "LOC"),
        ("GPE", "LOC"),
        ("ORGANIZATION", "ORG"),
        ("EMAIL_ADDRESS", "EMAIL"),
        ("credit_card", "CARD"),
        ("S-ORG", "ORG"),
        ("WORK_OF_ART", "MISC"),
        ("NORP", "MISC"),
        ("TIME", "DATE"),
        ("CODE", "ID"),
        ("CARDINAL", None),
        ("LAW", None),  # a statute names public text, not a person
        ("O", None),
    ],
)
def test_other_tools_labels_have_a_canonical_name(label: str, canonical: str | None) -> None:
    assert canonical_label(label) == canonical
