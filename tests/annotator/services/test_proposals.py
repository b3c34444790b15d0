"""Machine proposals are written one way (`bulk_propose`), whoever proposes them."""

from __future__ import annotations

import pytest

from annotator.models import Span, SpanSource, SpanStatus
from annotator.services import imports
from annotator.services.proposals import Proposal, bulk_propose, proposal_fields
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db


def test_a_proposal_is_undecided_and_keeps_what_the_machine_proposed(team: Team) -> None:
    document = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    proposal = Proposal(
        document_id=document.pk, start=0, end=11, label="PER", source=SpanSource.NER, score=0.5
    )
    (written,) = bulk_propose([proposal])
    span = Span.objects.get()
    assert span.pk == written.pk and span.document_id == document.pk
    assert (span.start, span.end, span.label, span.source, span.score) == (0, 11, "PER", "ner", 0.5)
    assert (span.status, span.version, span.decision, span.keep_reason) == (
        SpanStatus.PROPOSED, 1, "pseudonymize", ""
    )  # fmt: skip
    assert (span.proposed_start, span.proposed_end, span.proposed_label) == (0, 11, "PER")
    assert span.entity_id is None and span.run_id is None
    assert span.created_by is None and span.decided_by is None and span.decided_at is None


def test_an_imports_row_writer_writes_every_column_a_proposal_sets() -> None:
    fields = proposal_fields(Proposal(document_id=1, start=0, end=1, label="PER", source="import"))
    assert set(fields) <= set(imports._RowWriter.SPAN_COLUMNS)
