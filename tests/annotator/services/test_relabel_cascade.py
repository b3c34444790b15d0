"""Issue 31, trap 3: one stray digit relabelled a person everywhere, and the right digit was
then refused. A relabel that would change spans elsewhere asks first; relabelling back is
allowed (a machine's proposal elsewhere follows its entity, it does not hold it); undo of a
relabel puts back every span and the table, the pseudonym included."""

from __future__ import annotations

import pytest

from annotator.errors import NeedsConfirmation
from annotator.models import Span, SpanSource, SpanStatus
from annotator.services.propagation import propagate_choice
from annotator.services.spans import SpanChange, span_create, span_update
from annotator.services.table import surface_choice
from annotator.services.undo import undo_last, undoable
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db(transaction=True)

NAME = "Emmanuel Macron"
ENGLISH = f"Yesterday {NAME} spoke in Lyon."
FRENCH = f"Hier, {NAME} a parlé à Lyon."


def _setting(team: Team) -> tuple[object, Span, Span]:
    """An accepted name in English; in French, the NER's proposal of it has taken its entity
    (propagation), for its annotator to confirm."""
    english = DocumentFactory(project=team.project, text=ENGLISH, assignee=team.annotator_en)
    french = DocumentFactory(project=team.project, text=FRENCH, language="fr")
    start = FRENCH.index(NAME)
    proposal = Span.objects.create(document=french, start=start, end=start + len(NAME),
                                   label="PER", source=SpanSource.NER, score=0.9)  # fmt: skip
    start = ENGLISH.index(NAME)
    span = span_create(document=english, actor=team.annotator_en, start=start,
                       end=start + len(NAME), label="PER")  # fmt: skip
    propagate_choice(
        project_id=team.project.pk, alias_id=surface_choice(team.project, NAME).alias_id
    )
    proposal.refresh_from_db()
    assert proposal.entity_id == span.entity_id
    return english, span, proposal


def _relabel(team: Team, document: object, span: Span, label: str, **change: object) -> Span:
    span.refresh_from_db()
    return span_update(document=document, span_id=span.pk, actor=team.annotator_en,
                       version=span.version, change=SpanChange(label=label, **change))  # fmt: skip


def test_a_relabel_that_changes_spans_elsewhere_asks_first_and_changes_nothing(
    team: Team,
) -> None:
    english, span, proposal = _setting(team)
    before = surface_choice(team.project, NAME)
    with pytest.raises(NeedsConfirmation, match=r"1 other span in 1 document \(fr\)"):
        _relabel(team, english, span, "LOC")
    span.refresh_from_db()
    proposal.refresh_from_db()
    assert (span.label, proposal.label) == ("PER", "PER")
    assert surface_choice(team.project, NAME) == before


def test_a_confirmed_relabel_goes_everywhere_and_relabelling_back_is_allowed(team: Team) -> None:
    english, span, proposal = _setting(team)
    first = surface_choice(team.project, NAME)
    assert first is not None

    _relabel(team, english, span, "LOC", confirm=True)
    proposal.refresh_from_db()
    assert proposal.label == "LOC" and surface_choice(team.project, NAME).label == "LOC"

    # Back with the right key: the French proposal follows its entity, it does not hold it.
    back = _relabel(team, english, span, "PER", confirm=True)
    proposal.refresh_from_db()
    assert (back.label, proposal.label) == ("PER", "PER")
    assert surface_choice(team.project, NAME).label == "PER"


def test_undo_of_a_relabel_puts_back_every_span_and_the_pseudonym(team: Team) -> None:
    english, span, proposal = _setting(team)
    first = surface_choice(team.project, NAME)
    assert first is not None

    with undoable(document=english, actor=team.annotator_en, action="label",
                  start=span.start, end=span.end, extra=(span.pk,)):  # fmt: skip
        _relabel(team, english, span, "LOC", confirm=True)
    assert surface_choice(team.project, NAME).replacement != first.replacement  # drawn again
    undone = undo_last(document=english, actor=team.annotator_en)
    assert undone is not None and not undone.refused

    span.refresh_from_db()
    proposal.refresh_from_db()
    now = surface_choice(team.project, NAME)
    assert (span.label, span.status, proposal.label) == ("PER", SpanStatus.ACCEPTED, "PER")
    assert (now.label, now.entity_id, now.replacement) == (
        "PER", first.entity_id, first.replacement,
    )  # fmt: skip
    assert span.entity_id == first.entity_id == proposal.entity_id


def test_a_relabel_alone_on_its_entity_asks_nothing(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=ENGLISH, assignee=team.annotator_en)
    start = ENGLISH.index("Lyon")
    span = span_create(document=document, actor=team.annotator_en, start=start,
                       end=start + 4, label="PER")  # fmt: skip
    relabelled = _relabel(team, document, span, "LOC")
    assert relabelled.label == "LOC" and surface_choice(team.project, "Lyon").label == "LOC"
