"""Label schema presets.

A schema is plain JSON: {"name", "labels": [{"name", "description", "group"}]}.
"""

from __future__ import annotations

import copy
from typing import Any

Schema = dict[str, Any]


def _labels(group: str, pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": name, "description": text, "group": group} for name, text in pairs]


_CLOAKED = _labels(
    "identifier",
    [
        ("PER", "Names, aliases and hashtags that refer to a single person or user"),
        ("USERNAME", "@handles and account names"),
        ("URL", "Links, including t.me and wa.me"),
        ("EMAIL", "E-mail addresses"),
        ("PHONE", "Phone numbers"),
        ("HASHTAG", "Hashtags that identify a group, place or person"),
        ("ADDRESS", "Street addresses"),
        ("LOC", "Neighbourhoods, cities, countries"),
        ("ORG", "Political, educational or association-like organisations"),
        ("COMP", "Commercial enterprises and companies"),
        ("DATE", "Dates and times that could identify an event"),
    ],
) + _labels(
    # The NER layer of the Cloaked Classifiers paper (Table 7).
    "ner",
    [
        ("PER:IMG", "Fictional characters"),
        ("PER:REL", "Individuals of a religious representation of the world"),
        ("LOC:IMG", "Fictional places"),
        ("LOC:REL", "Religious locations"),
        ("ORG:MEDIA", "Media organisations, shows, podcasts, newspapers"),
        ("OTH:BOOK", "Books, mostly religious texts"),
        ("OTH:GAME", "Games"),
        ("OTH:MOVIE", "Movies and series"),
        ("OTH:MUSIC", "Musical entities"),
        ("OTH:DIS", "Diseases"),
        ("OTH:SYMB", "Symbolic entities"),
        ("OTH:EVENT", "Recurring, historical and religious events"),
        ("OTH:CONSPI", "Concepts of conspiracy theories"),
    ],
)

_MULTIGRASCCO = _labels(
    "phi",
    [
        ("NAME_PATIENT", "The patient's name"),
        ("NAME_DOCTOR", "A clinician's name"),
        ("NAME_RELATIVE", "A relative's name"),
        ("NAME_EXT", "Any other person's name"),
        ("NAME_USERNAME", "User names and initials"),
        ("NAME_TITLE", "Titles attached to a name"),
        ("PROFESSION", "Occupation"),
        ("AGE", "Ages"),
        ("DATE", "Dates"),
        ("LOCATION_STREET", "Street addresses"),
        ("LOCATION_CITY", "Cities"),
        ("LOCATION_ZIP", "Postal codes"),
        ("LOCATION_COUNTRY", "Countries"),
        ("LOCATION_STATE", "States and regions"),
        ("LOCATION_HOSPITAL", "Hospitals and clinics"),
        ("LOCATION_ORGANIZATION", "Other organisations"),
        ("LOCATION_OTHER", "Other locations"),
        ("CONTACT_PHONE", "Phone numbers"),
        ("CONTACT_FAX", "Fax numbers"),
        ("CONTACT_EMAIL", "E-mail addresses"),
        ("CONTACT_URL", "Web addresses"),
        ("ID", "Record, account, licence, device and other identifying numbers"),
    ],
) + _labels(
    # The 13 indirect personal identifiers of MultiGraSCCo.
    "ipi",
    [
        ("TIME", "Time of treatment and other time expressions"),
        ("FCLT_PERSONNEL", "Healthcare facilities and personnel"),
        ("APPEARANCE", "Permanently visible characteristics"),
        ("CIRCUMSTANCES", "Circumstances of the patient's life"),
        ("FAMILY", "Family information"),
        ("HOBBIES_LIFESTYLE", "Hobbies and lifestyle"),
        ("SOCIOECONOMIC_CRIMINAL", "Socio-economic and criminal history"),
        ("DETAILS_DIRECT_IDENTIFIER", "Details about a direct identifier"),
        ("DETAILS_LOCATION", "Details about a location"),
        ("LANGUAGES", "Languages and speech"),
        ("SEXUAL_ORIENTATION", "Sexual orientation"),
        ("ETHNICITY", "Ethnicity"),
        ("OTHER", "Any other indirect identifier"),
    ],
)

_BASIC = _labels(
    "ner",
    [
        ("PER", "People"),
        ("LOC", "Places"),
        ("ORG", "Organisations"),
        ("MISC", "Other named entities"),
    ],
)

PRESETS: dict[str, Schema] = {
    "cloaked": {"name": "cloaked", "labels": _CLOAKED},
    "multigrascco": {"name": "multigrascco", "labels": _MULTIGRASCCO},
    "basic": {"name": "basic", "labels": _BASIC},
}


def preset(name: str) -> Schema:
    """A fresh copy of a preset schema; KeyError names the presets when `name` is unknown."""
    if name not in PRESETS:
        raise KeyError(f"unknown schema {name!r}; presets are {', '.join(sorted(PRESETS))}")
    return copy.deepcopy(PRESETS[name])


def validate_schema(schema: object) -> Schema:
    """Check a schema an admin wrote or imported; returns it or raises ValueError saying why."""
    if not isinstance(schema, dict):
        raise ValueError("a schema is a JSON object")
    labels = schema.get("labels")
    if not isinstance(labels, list) or not labels:
        raise ValueError('a schema needs a non-empty list "labels"')
    seen: set[str] = set()
    for index, label in enumerate(labels):
        if not isinstance(label, dict) or not isinstance(label.get("name"), str):
            raise ValueError(f'label {index} needs a string "name"')
        name = label["name"]
        if not name or len(name) > 64 or any(ch.isspace() for ch in name):
            raise ValueError(f"label name {name!r} must be 1-64 characters without spaces")
        if name in seen:
            raise ValueError(f"label {name!r} appears twice")
        seen.add(name)
    return schema


def label_names(schema: Schema) -> list[str]:
    return [label["name"] for label in schema.get("labels", [])]
