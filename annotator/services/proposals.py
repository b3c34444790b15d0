"""Machine proposals, written in bulk: the one way a span no person has decided becomes rows.

A pre-annotation run's recognizers (`annotator.services.runs`), propagation of a known choice
(`annotator.services.propagation`), an import with spans (`annotator.services.imports`) and
the copy of a document for a second annotator (`annotator.services.double_annotation`) each
describe what they propose (`Proposal`); `propose` writes them when nobody needs the rows back
(on PostgreSQL with COPY: a propagation pass over a corpus its names recur in writes tens of
thousands), `bulk_propose` when the caller needs the spans. A proposal is status `proposed`,
version 1, with no person's name or time on it, and keeps what the machine proposed
(`proposed_start`, `proposed_end`, `proposed_label`) beside what a person may later make of
it: pre-annotation is measured against the final decisions from these.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.utils import timezone

from annotator.models import Span, SpanStatus
from annotator.services.pg_copy import (
    copy_field,
    copy_lines,
    copy_statement,
    copy_template,
    copy_text,
)
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
    # Every source that proposed it, `source` first, when several did (`Span.sources`).
    sources: tuple[str, ...] = ()


def proposal_sources(source: str, also: Sequence[str]) -> tuple[str, ...]:
    """A proposal's `sources` from the engine's kept source and the others that proposed the
    same span (`pseudonymizer.spans.Span.also`): () when there was no other."""
    others = tuple(dict.fromkeys(other for other in also if other != source))
    return (source, *others) if others else ()


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
        "sources": list(proposal.sources) or None,
        "proposed_start": proposal.start,
        "proposed_end": proposal.end,
        "proposed_label": proposal.label,
    }


# The columns a proposal's row is written with by a writer that bypasses the ORM (`propose`,
# an import's row writers), in their order: the proposal's own and what the ORM would set.
SPAN_COLUMNS = (
    "document_id", "start", "end", "label", "source", "score", "status", "decision",
    "keep_reason", "entity_id", "run_id", "version", "created_by_id", "created_at",
    "decided_by_id", "decided_at", "updated_by_id", "updated_at", "proposed_start",
    "proposed_end", "proposed_label", "sources",
)  # fmt: skip


def proposal_row(proposal: Proposal, now: datetime | str) -> dict[str, Any]:
    """Every column of SPAN_COLUMNS for `proposal`, written at `now` (a time, or the form a
    row writer hands its database); `sources` as JSON text, as a row writer hands it."""
    return proposal_fields(proposal) | {
        "version": 1, "created_by_id": None, "created_at": now, "decided_by_id": None,
        "decided_at": None, "updated_by_id": None, "updated_at": now,
        "sources": _sources_json(proposal.sources),
    }  # fmt: skip


def _sources_json(sources: Sequence[str]) -> str | None:
    return json.dumps(list(sources)) if sources else None


def proposal_span(proposal: Proposal) -> Span:
    """The proposal's span, not saved yet."""
    return Span(**proposal_fields(proposal))


def bulk_propose(proposals: Iterable[Proposal], *, batch_size: int = 5000) -> list[Span]:
    """Write `proposals` as spans, in batches of `batch_size` rows; the spans written."""
    spans = [proposal_span(proposal) for proposal in proposals]
    Span.objects.bulk_create(spans, batch_size=batch_size)
    return spans


# The columns that vary from one proposal to the next, and the template field each takes.
_VARYING = {
    "document_id": "document_id", "start": "start", "end": "end", "label": "label",
    "source": "source", "score": "score", "decision": "decision",
    "keep_reason": "keep_reason", "entity_id": "entity_id", "run_id": "run_id",
    "proposed_start": "start", "proposed_end": "end", "proposed_label": "label",
    "sources": "sources",
}  # fmt: skip


def propose(proposals: Iterable[Proposal]) -> int:
    """Write `proposals` as spans, the rows not read back; how many were written. On
    PostgreSQL through COPY, elsewhere through the ORM: the same rows either way."""
    if connection.vendor != "postgresql":
        return len(bulk_propose(proposals))
    sample = Proposal(document_id=0, start=0, end=1, label="x", source="x")
    template = copy_template(SPAN_COLUMNS, _VARYING, proposal_row(sample, timezone.now())).format
    written = 0

    def lines() -> Iterator[str]:
        nonlocal written
        for proposal in proposals:
            written += 1
            yield template(
                document_id=proposal.document_id,
                start=proposal.start,
                end=proposal.end,
                label=copy_text(proposal.label),
                source=copy_text(proposal.source),
                score="\\N" if proposal.score is None else repr(float(proposal.score)),
                decision=copy_text(proposal.decision),
                keep_reason=copy_text(proposal.keep_reason),
                entity_id="\\N" if proposal.entity_id is None else proposal.entity_id,
                run_id="\\N" if proposal.run_id is None else proposal.run_id,
                sources=copy_field(_sources_json(proposal.sources)),
            )

    # psycopg's own errors (a foreign key's violation) as Django's.
    with connection.cursor() as wrapper, connection.wrap_database_errors:
        copy_lines(wrapper.cursor, copy_statement(Span, SPAN_COLUMNS), lines())
    return written
