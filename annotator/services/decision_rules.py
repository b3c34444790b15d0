"""What makes a decision valid, for a span and for an entity of the correspondence table, in
the Domain's errors. The rule itself is the engine's (`pseudonymizer.vocabulary`), which the
keys apply too."""

from __future__ import annotations

from annotator.errors import DomainError
from pseudonymizer import vocabulary
from pseudonymizer.vocabulary import MAX_KEEP_REASON, Decision, DecisionRefused, kept_reason

__all__ = ["MAX_KEEP_REASON", "check_decision", "check_known_decision", "kept_reason"]


def check_known_decision(decision: str) -> Decision:
    """`decision` as a Decision; DomainError when it is none of them."""
    try:
        return vocabulary.check_known_decision(decision)
    except DecisionRefused as error:
        raise DomainError(str(error)) from None


def check_decision(decision: str, keep_reason: str | None, *, subject: str = "span") -> str:
    """The reason `decision` carries, or DomainError for an unknown decision, a reason to
    keep too long, or a `keep` without one (`pseudonymizer.vocabulary.check_decision`)."""
    try:
        return vocabulary.check_decision(decision, keep_reason, subject=subject)
    except DecisionRefused as error:
        raise DomainError(str(error)) from None
