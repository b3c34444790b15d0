"""Machine proposals are written one way (`bulk_propose`, or `propose` when nobody reads the
rows back), whoever proposes them."""

from __future__ import annotations

import pytest

from annotator.keys.models import Entity
from annotator.models import Span, SpanSource, SpanStatus
from annotator.services import imports
from annotator.services.proposals import (
    SPAN_COLUMNS,
    Proposal,
    bulk_propose,
    proposal_fields,
    proposal_sources,
    propose,
)
from tests.conftest import Team
from tests.factories import DocumentFactory, PreannotationRunFactory

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


def test_a_proposal_names_its_sources_only_when_another_joined_its_own() -> None:
    assert proposal_sources("ner", ()) == ()
    assert proposal_sources("ner", ("ner",)) == ()
    assert proposal_sources("known", ("learned", "ner", "learned")) == ("known", "learned", "ner")


def test_an_imports_row_writer_writes_every_column_a_proposal_sets() -> None:
    fields = proposal_fields(Proposal(document_id=1, start=0, end=1, label="PER", source="import"))
    assert set(fields) <= set(imports._RowWriter.SPAN_COLUMNS)


def _row(span: Span) -> tuple[object, ...]:
    return tuple(
        getattr(span, column)
        for column in SPAN_COLUMNS
        if column not in {"created_at", "updated_at"}
    )


@pytest.mark.parametrize("writer", ["propose", "bulk_propose"])
def test_propose_writes_the_rows_bulk_propose_writes(team: Team, writer: str) -> None:
    """`propose` (COPY on PostgreSQL) and the ORM give every column the same value, whatever
    the text holds: a tab, a newline, a backslash, a brace, an absent score, entity, run or
    other source."""
    document = DocumentFactory(project=team.project, text="Moshe Chaya wrote to Ayşe.")
    run = PreannotationRunFactory(project=team.project)
    entity = Entity.objects.create(project=team.project, label="PER")
    proposals = [
        Proposal(document_id=document.pk, start=0, end=11, label="PER", source=SpanSource.NER,
                 score=0.25, run_id=run.pk, sources=("ner", "learned")),
        Proposal(document_id=document.pk, start=21, end=25, label="odd\tla\\bel{x}",
                 source=SpanSource.KNOWN, score=None, decision="keep",
                 keep_reason="public\nfigure {0}", entity_id=entity.pk),
    ]  # fmt: skip
    bulk_propose(proposals)
    expected = sorted(_row(span) for span in Span.objects.all())
    Span.objects.all().delete()
    written = propose(proposals) if writer == "propose" else len(bulk_propose(proposals))
    assert written == 2
    assert sorted(_row(span) for span in Span.objects.all()) == expected
    assert {span.label for span in Span.objects.all()} == {"PER", "odd\tla\\bel{x}"}
    assert Span.objects.get(start=21).keep_reason == "public\nfigure {0}"
    assert [span.sources for span in Span.objects.order_by("start")] == [["ner", "learned"], None]
    for span in Span.objects.all():
        assert span.created_at is not None and span.updated_at is not None


def test_proposing_nothing_writes_nothing(team: Team) -> None:
    assert propose([]) == 0
    assert propose(iter(())) == 0
    assert not Span.objects.exists()
