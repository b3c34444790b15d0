"""The document page's reads: rows with their surfaces and pseudonyms, places, counts."""

from __future__ import annotations

import pytest

from annotator.models import Comment, Document, ReviewItem, ReviewKind, Span, SpanSource, SpanStatus
from annotator.selectors.workspace import (
    PseudonymsOf,
    document_spans,
    span_places,
    span_rows,
    span_tally,
    spans_now,
    workspace_page,
)
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db


def pseudonyms_in(table: dict[str, str]) -> PseudonymsOf:
    """The table's pseudonyms as the span service gives them: by surface, for the surfaces
    asked for that the table holds."""

    def read(document: Document, surfaces: set[str]) -> dict[str, str]:
        return {surface: table[surface] for surface in surfaces if surface in table}

    return read


TEXT = "Moshe Chaya met Lea at Rue Alphonse Metayer."


def spans_of(team: Team) -> tuple[Document, dict[str, Span]]:
    document = DocumentFactory(project=team.project, language="en", text=TEXT)
    made = {}
    for surface, label, status in [
        ("Rue Alphonse Metayer", "ADDRESS", SpanStatus.PROPOSED),
        ("Moshe Chaya", "PER", SpanStatus.ACCEPTED),
        ("Lea", "PER", SpanStatus.REJECTED),
    ]:
        start = TEXT.index(surface)
        made[surface] = Span.objects.create(
            document=document, start=start, end=start + len(surface), label=label,
            source=SpanSource.NER, status=status, score=0.5,
        )  # fmt: skip
    return document, made


def test_rows_come_in_the_pages_order_with_surface_and_pseudonym(team: Team) -> None:
    document, made = spans_of(team)
    rows = span_rows(
        document, pseudonyms_of=pseudonyms_in({"Moshe Chaya": "Raj Avrom", "Lea": "Not Lea"})
    )
    assert [row.surface for row in rows] == ["Moshe Chaya", "Lea", "Rue Alphonse Metayer"]
    assert [row.replacement for row in rows] == ["Raj Avrom", "", ""]
    moshe = rows[0]
    span = made["Moshe Chaya"]
    assert (moshe.pk, moshe.start, moshe.end, moshe.version, moshe.score) == (
        span.pk, span.start, span.end, span.version, 0.5,
    )  # fmt: skip


def test_rows_of_some_ids_only(team: Team) -> None:
    document, made = spans_of(team)
    rows = span_rows(document, pseudonyms_of=pseudonyms_in({}), ids=[made["Lea"].pk, 10**9])
    assert [row.surface for row in rows] == ["Lea"]


def test_places_and_tally(team: Team) -> None:
    document, _ = spans_of(team)
    places = span_places(document)
    assert [(p.start, p.label, p.status) for p in places] == [
        (0, "PER", SpanStatus.ACCEPTED),
        (TEXT.index("Lea"), "PER", SpanStatus.REJECTED),
        (TEXT.index("Rue"), "ADDRESS", SpanStatus.PROPOSED),
    ]
    tally = span_tally(document)
    assert (tally.spans, tally.proposals) == (3, 1)
    assert tally.labels == {"PER", "ADDRESS"}
    assert (tally.proposal_labels, tally.proposal_sources) == (("ADDRESS",), ("ner",))
    page = workspace_page(document, pseudonyms_of=pseudonyms_in({}))
    assert page.tally == tally and len(page.rows) == 3


def test_spans_now_show_the_pseudonym_of_spans_not_rejected(team: Team) -> None:
    document, made = spans_of(team)
    table = {"Moshe Chaya": "Not Moshe Chaya", "Lea": "Not Lea"}
    now = {span.pk: span for span in spans_now(document, pseudonyms_of=pseudonyms_in(table))}
    moshe, lea = made["Moshe Chaya"], made["Lea"]
    assert (now[moshe.pk].version, now[moshe.pk].start, now[moshe.pk].end) == (
        moshe.version, moshe.start, moshe.end,
    )  # fmt: skip
    assert now[moshe.pk].replacement == "Not Moshe Chaya"
    assert now[lea.pk].replacement == ""  # rejected: its row shows no pseudonym
    assert now[made["Rue Alphonse Metayer"].pk].replacement == ""


def test_one_read_of_the_spans_gives_what_each_read_gives(team: Team) -> None:
    """An action's answer reads the document's spans once (`document_spans`): its rows, places,
    counts and what each row shows now are those of the reads made one by one, the flags
    and the table's pseudonyms included, and the table is asked once."""
    document, made = spans_of(team)
    lea = made["Lea"]
    item = ReviewItem.objects.create(project=team.project, kind=ReviewKind.FLAG,
                                     document=document, span=lea)  # fmt: skip
    Comment.objects.create(review_item=item, body="Is Lea a public figure?")
    table = pseudonyms_in({"Moshe Chaya": "Raj Avrom", "Lea": "Not Lea"})
    asked: list[set[str]] = []

    def read(document: Document, surfaces: set[str]) -> dict[str, str]:
        asked.append(surfaces)
        return dict(table(document, surfaces))

    spans = document_spans(document, pseudonyms_of=read)
    assert set(spans.now()) == set(spans_now(document, pseudonyms_of=table))
    ids = [span.pk for span in made.values()]
    assert spans.rows(ids) == span_rows(document, pseudonyms_of=table)
    assert spans.rows([lea.pk])[0].flag is not None
    assert spans.rows([lea.pk])[0].flag.comment == "Is Lea a public figure?"  # type: ignore[union-attr]
    assert spans.places() == span_places(document)
    assert spans.tally() == span_tally(document)
    assert asked == [{"Moshe Chaya", "Rue Alphonse Metayer"}]
