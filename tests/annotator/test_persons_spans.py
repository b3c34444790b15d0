"""A person's span, written once (issue 32): what the database filters (`PERSONS_SPANS`,
`PERSONS_HELD`) and what Python asks of a row already read (`span_by_person`,
`span_held_by_person`) agree on every status, source and decider."""

from __future__ import annotations

import itertools

import pytest

from annotator.models import Span, SpanSource, SpanStatus, span_by_person, span_held_by_person
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db


def test_the_queryset_and_the_predicate_say_the_same_of_every_span(team: Team) -> None:
    document = DocumentFactory(project=team.project, text="x " * 200)
    kinds = list(
        itertools.product(
            SpanStatus.values, [source.value for source in SpanSource], [None, team.annotator_en]
        )
    )
    for n, (status, source, decider) in enumerate(kinds):
        Span.objects.create(document=document, start=2 * n, end=2 * n + 1, label="PER",
                            status=status, source=source, decided_by=decider)  # fmt: skip
    rows = list(Span.objects.filter(document=document).values_list(
        "pk", "status", "source", "decided_by_id"))  # fmt: skip
    by_person = {pk for pk, status, source, decider in rows
                 if span_by_person(status, source, decider)}  # fmt: skip
    held = {pk for pk, status, source, _ in rows if span_held_by_person(status, source)}
    spans = Span.objects.filter(document=document)
    assert set(spans.decided_by_person().values_list("pk", flat=True)) == by_person
    assert set(spans.held_by_person().values_list("pk", flat=True)) == held
    assert held < by_person  # a person's rejection is a decision, not a span they hold
