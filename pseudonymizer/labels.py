"""Canonical labels, and how they map onto a project's label schema.

Recognizers speak one vocabulary (`CANONICAL_LABELS`); a project may use another (the
`multigrascco` preset says CONTACT_EMAIL where the recognizers say EMAIL). `map_to_schema`
translates, table-driven: each canonical label has an ordered list of schema labels to try,
ending with catch-alls, because a span under a vague label is better than a span dropped,
when what is at stake is an identifier slipping through.

Decisions:
- identity first: a schema that has the label gets it unchanged;
- identifiers (IBAN, IP, CARD) fall back to ID, then MISC/OTHER; ID itself (case, file and
  record numbers) to MISC/OTHER; PROFESSION (occupations) to OCCUPATION, then MISC/OTHER;
- HASHTAG has no counterpart in `multigrascco` and `basic`: it falls back to MISC, then OTHER
  (the indirect-identifier catch-all of `multigrascco`);
- in the `cloaked` preset (no ID, MISC or OTHER) IBAN, IP, CARD, ID and PROFESSION map to
  None: the caller drops those spans. The leak check still finds them in a release, so an
  admin who needs them adds the label to the schema.
- a label that is not canonical (say NAME_PATIENT, from an import) maps to itself when the
  schema has it, else to MISC or OTHER, else None.
"""

from __future__ import annotations

from collections.abc import Collection

CANONICAL_LABELS: tuple[str, ...] = (
    "PER",
    "LOC",
    "ORG",
    "COMP",
    "DATE",
    "ADDRESS",
    "URL",
    "EMAIL",
    "USERNAME",
    "HASHTAG",
    "PHONE",
    "IBAN",
    "IP",
    "CARD",
    "ID",
    "PROFESSION",
    "MISC",
)

_CATCH_ALL = ("MISC", "OTHER")
_IDENTIFIER = ("ID", *_CATCH_ALL)

# Canonical label → schema labels to try, in order, after the label itself.
_FALLBACKS: dict[str, tuple[str, ...]] = {
    "PER": ("NAME_EXT", "NAME", "PERSON", *_CATCH_ALL),
    "LOC": ("LOCATION_OTHER", "LOCATION", *_CATCH_ALL),
    "ORG": ("LOCATION_ORGANIZATION", "ORGANIZATION", *_CATCH_ALL),
    "COMP": ("ORG", "LOCATION_ORGANIZATION", "ORGANIZATION", *_CATCH_ALL),
    "DATE": ("TIME", *_CATCH_ALL),
    # A street address is not a LOC in the NER sense: MISC before LOC.
    "ADDRESS": ("LOCATION_STREET", *_CATCH_ALL, "LOC", "LOCATION_OTHER", "LOCATION"),
    "URL": ("CONTACT_URL", *_CATCH_ALL),
    "EMAIL": ("CONTACT_EMAIL", *_CATCH_ALL),
    "USERNAME": ("NAME_USERNAME", *_CATCH_ALL),
    "HASHTAG": _CATCH_ALL,
    "PHONE": ("CONTACT_PHONE", *_IDENTIFIER),
    "IBAN": _IDENTIFIER,
    "IP": _IDENTIFIER,
    "CARD": _IDENTIFIER,
    "ID": _CATCH_ALL,
    "PROFESSION": ("OCCUPATION", *_CATCH_ALL),
    "MISC": ("OTHER",),
}

# Names other tools give the canonical labels (spaCy, CoNLL, OntoNotes, Presidio). LAW (a
# statute or article: "Article 6 § 1 of the Convention") is left out on purpose: it names public
# text, not a person, and NER recognizers drop it by default.
_SYNONYMS: dict[str, str] = {
    "PERSON": "PER",
    "PER": "PER",
    "PERS": "PER",
    "PEOPLE": "PER",
    "FACILITY": "LOC",
    # What NER models tag beyond people, places and organisations.
    "MISC": "MISC",
    "NORP": "MISC",
    "EVENT": "MISC",
    "PRODUCT": "MISC",
    "WORK_OF_ART": "MISC",
    "LANGUAGE": "MISC",
    "TIME": "DATE",
    "LOCATION": "LOC",
    "GPE": "LOC",
    "FAC": "LOC",
    "LOC": "LOC",
    "ORGANIZATION": "ORG",
    "ORGANISATION": "ORG",
    "ORG": "ORG",
    "COMPANY": "COMP",
    "COMP": "COMP",
    "DATE": "DATE",
    "DATE_TIME": "DATE",
    "STREET_ADDRESS": "ADDRESS",
    "ADDRESS": "ADDRESS",
    "URL": "URL",
    "EMAIL": "EMAIL",
    "EMAIL_ADDRESS": "EMAIL",
    "USERNAME": "USERNAME",
    "HASHTAG": "HASHTAG",
    "PHONE": "PHONE",
    "PHONE_NUMBER": "PHONE",
    "IBAN": "IBAN",
    "IBAN_CODE": "IBAN",
    "IP": "IP",
    "IP_ADDRESS": "IP",
    "CARD": "CARD",
    "CREDIT_CARD": "CARD",
    # Case, file and record numbers (TAB says CODE).
    "ID": "ID",
    "CODE": "ID",
    "PROFESSION": "PROFESSION",
    "OCCUPATION": "PROFESSION",
}


def canonical_label(label: str) -> str | None:
    """The canonical label another tool's label stands for (`PERSON` → PER, `GPE` → LOC,
    `B-ORG` → ORG), or None when there is none.
    """
    name = label.strip().upper()
    if len(name) > 2 and name[1] == "-" and name[0] in "BIELSU":
        name = name[2:]
    return _SYNONYMS.get(name)


def map_to_schema(label: str, schema_labels: Collection[str]) -> str | None:
    """The label of `schema_labels` that `label` (canonical or not) becomes, or None when the
    schema has nothing fit for it (the caller then drops the span). See the module docstring.
    """
    if label in schema_labels:
        return label
    for candidate in _FALLBACKS.get(label, _CATCH_ALL):
        if candidate in schema_labels:
            return candidate
    return None
