"""The correspondence table follows a person's span: a choice made by a slip (a selection one
word short, a span rejected or deleted) leaves the table once its span moves on and nothing
else relies on it, so that it is neither proposed everywhere nor refused in every release."""

from __future__ import annotations

import pytest

from annotator.keys.models import Entity
from annotator.models import ReviewItem, ReviewKind, Span, SpanSource
from annotator.services.propagation import propagate_choice
from annotator.services.spans import SpanChange, span_create, span_delete, span_update
from annotator.services.table import surface_choice
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = "Élodie waited at the Banque Laurentide, near the Banque de France."


def _add(team: Team, document: object, surface: str, label: str = "ORG") -> Span:
    start = TEXT.index(surface)
    return span_create(document=document, actor=team.annotator_en, start=start,
                       end=start + len(surface), label=label)  # fmt: skip


def _change(team: Team, document: object, span: Span, **change: object) -> Span:
    return span_update(document=document, span_id=span.pk, actor=team.annotator_en,
                       version=span.version, change=SpanChange(**change))  # fmt: skip


def test_a_span_whose_end_moves_takes_its_first_surface_out_of_the_table(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=TEXT, assignee=team.annotator_en)
    other = DocumentFactory(project=team.project, text="La Banque ouvre à neuf heures.")
    span = _add(team, document, "Banque")
    first = span.entity_id
    # Propagation of the slip has already proposed it elsewhere, untouched.
    propagate_choice(
        project_id=team.project.pk, alias_id=surface_choice(team.project, "Banque").alias_id
    )
    assert Span.objects.filter(document=other, entity_id=first).exists()

    end = TEXT.index("Banque Laurentide") + len("Banque Laurentide")
    moved = _change(team, document, span, end=end)

    assert surface_choice(team.project, "Banque") is None
    assert not Entity.objects.filter(pk=first).exists()
    assert not Span.objects.filter(entity_id=first).exists()  # its echoes went with it
    assert surface_choice(team.project, "Banque Laurentide").entity_id == moved.entity_id


def test_a_rejected_or_deleted_span_takes_its_own_choice_with_it(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=TEXT, assignee=team.annotator_en)
    added = _add(team, document, "Banque de France")
    span_delete(document=document, span_id=added.pk, actor=team.annotator_en, version=added.version)
    assert surface_choice(team.project, "Banque de France") is None

    machine = Span.objects.create(document=document, start=TEXT.index("Élodie"), end=6,
                                  label="PER", source=SpanSource.NER)  # fmt: skip
    accepted = _change(team, document, machine, status="accepted")
    assert surface_choice(team.project, "Élodie") is not None
    _change(team, document, accepted, status="rejected")
    assert surface_choice(team.project, "Élodie") is None


def test_a_choice_another_span_or_person_relies_on_stays(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=TEXT, assignee=team.annotator_en)
    twin = DocumentFactory(project=team.project, text="Banque. " + TEXT, assignee=team.annotator_en)
    span = _add(team, document, "Banque")
    # The same person accepted the word in another document: it is an identifier there.
    elsewhere = span_create(document=twin, actor=team.annotator_en, start=0, end=6, label="ORG")
    assert elsewhere.entity_id == span.entity_id
    end = TEXT.index("Banque Laurentide") + len("Banque Laurentide")
    _change(team, document, span, end=end)
    assert surface_choice(team.project, "Banque") is not None

    # Someone else's choice is never taken out by another person's span moving on.
    lyon = DocumentFactory(
        project=team.project, text="Lyon, Lyon et Lyon.", assignee=team.annotator_en
    )
    mine = span_create(document=lyon, actor=team.lead, start=0, end=4, label="LOC")
    theirs = span_create(document=lyon, actor=team.annotator_en, start=6, end=10, label="LOC")
    assert theirs.entity_id == mine.entity_id
    _change(team, lyon, theirs, status="rejected")
    assert surface_choice(team.project, "Lyon") is not None


def test_a_choice_a_flag_names_stays_for_the_lead(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=TEXT, assignee=team.annotator_en)
    span = _add(team, document, "Banque")
    flagged = _change(team, document, span, flag="Is this the bank?")
    assert ReviewItem.objects.filter(kind=ReviewKind.FLAG, entity_id=span.entity_id).exists()
    end = TEXT.index("Banque Laurentide") + len("Banque Laurentide")
    _change(team, document, flagged, end=end)
    assert surface_choice(team.project, "Banque") is not None
