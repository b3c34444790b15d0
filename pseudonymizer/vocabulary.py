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

# What a reason to keep may hold (`Span.keep_reason` and the table's `Entity.keep_reason`).
MAX_KEEP_REASON = 255


class DecisionRefused(ValueError):
    """A decision outside the vocabulary, or a reason to keep that the rule refuses."""


def check_known_decision(decision: str) -> Decision:
    """`decision` as a Decision; DecisionRefused when it is none of them."""
    if decision not in DECISIONS:
        raise DecisionRefused(
            f"unknown decision {decision!r}; decisions are {', '.join(DECISIONS)}"
        )
    return Decision(decision)


def kept_reason(decision: str, keep_reason: str | None) -> str:
    """The reason `decision` carries: `keep_reason` without its outer spaces for `keep`, none
    for any other decision (a replaced or deleted identifier has nothing to justify)."""
    return (keep_reason or "").strip() if decision == Decision.KEEP else ""


def check_decision(decision: str, keep_reason: str | None, *, subject: str = "span") -> str:
    """The rule for a decision a person makes: refuse (DecisionRefused) an unknown decision,
    a reason to keep longer than MAX_KEEP_REASON (whatever the decision), and a `keep`
    without a reason. The reason the decision carries (`kept_reason`)."""
    check_known_decision(decision)
    if len(keep_reason or "") > MAX_KEEP_REASON:
        raise DecisionRefused(f"a reason to keep is at most {MAX_KEEP_REASON} characters")
    reason = kept_reason(decision, keep_reason)
    if decision == Decision.KEEP and not reason:
        raise DecisionRefused(
            f"say why the {subject} is kept (keep_reason): a public figure, a media…"
        )
    return reason
