"""What makes a decision valid, for a span and for an entity of the correspondence table."""

from __future__ import annotations

from annotator.services.errors import DomainError
from pseudonymizer.vocabulary import Decision

# Span.keep_reason and Entity.keep_reason hold this much.
MAX_KEEP_REASON = 255


def check_known_decision(decision: str) -> None:
    if decision not in set(Decision):
        raise DomainError(
            f"unknown decision {decision!r}; decisions are {', '.join(d.value for d in Decision)}"
        )


def check_decision(decision: str, keep_reason: str, *, subject: str = "span") -> None:
    """Refuse an unknown decision, and a `keep` without a reason (or with one too long)."""
    check_known_decision(decision)
    if len(keep_reason) > MAX_KEEP_REASON:
        raise DomainError(f"a reason to keep is at most {MAX_KEEP_REASON} characters")
    if decision == Decision.KEEP and not keep_reason.strip():
        raise DomainError(f"say why the {subject} is kept (keep_reason): a public figure, a media…")
