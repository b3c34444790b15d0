"""The words Cloak's data is made of: decisions, span sources, detection profiles.

Defined once, here; the command line, the file formats, the key table, the strategies and the
Django models (their `choices` and check constraints) all derive from these enums. Labels
live in `pseudonymizer.labels`, strategies in `pseudonymizer.strategies`.
"""

from __future__ import annotations

from enum import StrEnum


class Decision(StrEnum):
    """What happens to an identifier on release (DESIGN.md, "Annotate")."""

    PSEUDONYMIZE = "pseudonymize"  # replaced by the entity's pseudonym (the default)
    KEEP = "keep"  # left as it is: public figures, mainstream media; with a reason
    INVALIDATE = "invalidate"  # characters changed so the identifier no longer resolves
    DELETE = "delete"  # removed

    @property
    def label(self) -> str:
        return self.value.capitalize()


DECISIONS: tuple[str, ...] = tuple(decision.value for decision in Decision)
# Decisions whose replacement appears in a release, and so must be unique and never an original.
REPLACED_DECISIONS: frozenset[str] = frozenset({Decision.PSEUDONYMIZE, Decision.INVALIDATE})


class Source(StrEnum):
    """Who proposed a span: a recognizer, an imported file, or a person."""

    REGEX = "regex"  # regular expressions and the other pattern recognizers
    NER = "ner"  # a named-entity model (transformers or spaCy)
    KNOWN = "known"  # a surface the project has already decided, found again
    LEARNED = "learned"  # a model trained on the project's own decisions
    IMPORT = "import"  # a span that came with an imported file
    HUMAN = "human"  # added by a person

    @property
    def label(self) -> str:
        return _SOURCE_LABELS[self]


_SOURCE_LABELS = {
    Source.REGEX: "Regular expression",
    Source.NER: "NER model",
    Source.KNOWN: "Known entity",
    Source.LEARNED: "Learned from decisions",
    Source.IMPORT: "Imported",
    Source.HUMAN: "Person",
}
MACHINE_SOURCES: frozenset[str] = frozenset(
    {Source.REGEX, Source.NER, Source.KNOWN, Source.LEARNED}
)

# Detection profiles (`pseudonymizer.recognizers.profiles` says what each one runs).
PROFILES: tuple[str, ...] = ("recall", "precise")
DEFAULT_PROFILE = "recall"
