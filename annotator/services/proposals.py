"""Machine proposals, written in bulk: the one way a span no person has decided becomes rows.

A pre-annotation run's recognizers (`annotator.services.runs`), propagation of a known choice
(`annotator.services.propagation`), an import with spans (`annotator.services.imports`) and
the copy of a document for a second annotator (`annotator.services.double`) each describe what
they propose (`Proposal`); `bulk_propose` writes them. A proposal is status `proposed`,
version 1, with no person's name or time on it, and keeps what the machine proposed
(`proposed_start`, `proposed_end`, `proposed_label`) beside what a person may later make of
it: pre-annotation is measured against the final decisions from these.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from annotator.models import Span, SpanStatus
from pseudonymizer.vocabulary import Decision


@dataclass(frozen=True)
class Proposal:
    """What a machine proposes on a document: where, which label, from which source."""

    document_id: int
    start: int
    end: int
    label: str
    source: str
    score: float | None = None
    decision: str = Decision.PSEUDONYMIZE.value
    keep_reason: str = ""
    # The table's entity the proposal carries (propagation of a known choice).
    entity_id: int | None = None
    # The pre-annotation run that found it.
    run_id: int | None = None


def proposal_fields(proposal: Proposal) -> dict[str, Any]:
    """The columns a proposal sets on its span's row; the others take their defaults (an
    import's row writer fills those it writes itself)."""
    return {
        "document_id": proposal.document_id,
        "start": proposal.start,
        "end": proposal.end,
        "label": proposal.label,
        "source": proposal.source,
        "score": proposal.score,
        "status": SpanStatus.PROPOSED.value,
        "decision": proposal.decision,
        "keep_reason": proposal.keep_reason,
        "entity_id": proposal.entity_id,
        "run_id": proposal.run_id,
        "proposed_start": proposal.start,
        "proposed_end": proposal.end,
        "proposed_label": proposal.label,
    }


def proposal_span(proposal: Proposal) -> Span:
    """The proposal's span, not saved yet."""
    return Span(**proposal_fields(proposal))


def bulk_propose(proposals: Iterable[Proposal], *, batch_size: int = 5000) -> list[Span]:
    """Write `proposals` as spans, in batches of `batch_size` rows; the spans written."""
    spans = [proposal_span(proposal) for proposal in proposals]
    Span.objects.bulk_create(spans, batch_size=batch_size)
    return spans
