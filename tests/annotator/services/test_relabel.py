"""A decided span relabelled: the table follows. Alone on its entity, the entity takes the
label and a pseudonym drawn for it (one a person typed stays); relied on by other spans
through its other names, the surface moves to an entity of its own label; relied on by
another span of the same surface, the choice is the lead's. The lead sees each in the
audit, by ids and labels only."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from annotator.keys.models import Alias, Entity
from annotator.models import AuditAction, AuditEvent, ReviewItem, ReviewKind, Span, SpanStatus
from annotator.services.propagation import propagate_choice
from annotator.services.review.resolve import review_resolve
from annotator.services.spans import SpanChange, span_create, span_update
from annotator.services.table import SurfaceConflict, entity_merge, surface_choice
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

SUNDAY = "الأحد"
ARABIC = f"نلتقي {SUNDAY} في المقهى."
# The weekdays the date generator draws from for an Arabic one (pseudonymizer dates).
ARABIC_DAYS = {"الإثنين", "الاثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة", "السبت"}
ENGLISH = "Shoutout to Moshe Chaya! Moshe came by."


def _add(team: Team, document: Any, surface: str, label: str = "PER", **kw: Any) -> Span:
    start = document.text.index(surface)
    return span_create(document=document, actor=kw.pop("actor", team.lead), start=start,
                       end=start + len(surface), label=label, **kw)  # fmt: skip


def _relabel(team: Team, document: Any, span: Span, label: str, actor: Any = None) -> Span:
    # Confirmed: a relabel that changes spans elsewhere asks first (test_relabel_cascade.py).
    return span_update(document=document, span_id=span.pk, actor=actor or team.lead,
                       version=span.version,
                       change=SpanChange(label=label, confirm=True))  # fmt: skip


def _folded(team: Team) -> tuple[Any, Span, Span]:
    """ "Moshe Chaya" (English) and الأحد (Arabic), each decided PER, then folded into one
    entity by a lead (a slip): the Arabic document, and the two spans."""
    english = DocumentFactory(project=team.project, text=ENGLISH)
    arabic = DocumentFactory(project=team.project, language="ar", text=ARABIC)
    named = _add(team, english, "Moshe Chaya")
    sunday = _add(team, arabic, SUNDAY)
    entity_merge(project=team.project, entity_id=named.entity_id, other_id=sunday.entity_id,
                 actor=team.lead, version=None, other_version=None)  # fmt: skip
    sunday.refresh_from_db()
    return arabic, named, sunday


def _edits() -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=AuditAction.KEY_EDIT).order_by("pk"))


def test_a_span_alone_on_its_entity_takes_it_to_the_label_with_a_pseudonym_drawn_for_it(
    team: Team,
) -> None:
    document = DocumentFactory(project=team.project, language="ar", text=ARABIC)
    echoed = DocumentFactory(project=team.project, language="ar", text=f"يوم {SUNDAY}.")
    span = _add(team, document, SUNDAY)
    person = surface_choice(team.project, SUNDAY)
    assert person is not None and person.label == "PER"
    # Propagation proposed it elsewhere, untouched: an echo follows its entity.
    propagate_choice(project_id=team.project.pk, alias_id=person.alias_id)
    echo = Span.objects.get(document=echoed, entity_id=person.entity_id)

    relabelled = _relabel(team, document, span, "DATE")

    choice = surface_choice(team.project, SUNDAY)
    assert choice is not None
    assert relabelled.label == "DATE" and relabelled.entity_id == person.entity_id
    assert choice.entity_id == person.entity_id and choice.label == "DATE"
    assert Entity.objects.get(pk=person.entity_id).label == "DATE"
    assert choice.replacement != person.replacement
    assert choice.replacement in ARABIC_DAYS  # a weekday for a weekday, not a woman's name
    echo.refresh_from_db()
    assert echo.label == "DATE" and echo.status == SpanStatus.PROPOSED
    (edit,) = _edits()
    assert edit.target == f"entity:{person.entity_id}" and edit.actor == team.lead
    assert edit.detail["action"] == "relabel" and edit.detail["label"] == ["PER", "DATE"]
    assert edit.detail["redrawn"] == [choice.alias_id]
    assert SUNDAY not in str(edit.detail) and choice.replacement not in str(edit.detail)


def test_a_pseudonym_a_person_typed_stays_through_a_relabel(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=ENGLISH)
    span = _add(team, document, "Moshe Chaya", replacement="Raj Avrom")
    before = surface_choice(team.project, "Moshe Chaya")
    assert before is not None

    _relabel(team, document, span, "PER:IMG")

    after = surface_choice(team.project, "Moshe Chaya")
    assert after is not None and after.label == "PER:IMG"
    assert after.replacement == "Raj Avrom"
    assert _edits()[-1].detail["redrawn"] == []


def test_the_words_cut_from_a_name_follow_the_name(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=ENGLISH)
    span = _add(team, document, "Moshe Chaya")
    word = surface_choice(team.project, "Moshe")
    assert word is not None and word.label == "PER"  # "Moshe" cut from "Moshe Chaya"

    _relabel(team, document, span, "ORG")

    name = surface_choice(team.project, "Moshe Chaya")
    assert name is not None and name.label == "ORG"
    # An organisation's words are not names of their own: the word went with the person.
    assert surface_choice(team.project, "Moshe") is None
    assert not Alias.objects.filter(entity_id=name.entity_id, parent__isnull=False).exists()


def test_a_word_cut_from_a_name_relabelled_leaves_the_name(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=ENGLISH)
    other = DocumentFactory(project=team.project, text="Moshe was late.")
    _add(team, document, "Moshe Chaya")
    name = surface_choice(team.project, "Moshe Chaya")
    word = _add(team, other, "Moshe")
    assert name is not None and word.entity_id == name.entity_id

    moved = _relabel(team, other, word, "ORG")

    choice = surface_choice(team.project, "Moshe")
    assert choice is not None and choice.label == "ORG"
    assert moved.entity_id == choice.entity_id != name.entity_id
    assert Alias.objects.get(pk=choice.alias_id).parent_id is None
    kept = surface_choice(team.project, "Moshe Chaya")
    assert kept is not None and kept.label == "PER" and kept.replacement == name.replacement
    first, second = _edits()
    assert first.target == f"entity:{name.entity_id}" and first.detail["new"] == choice.entity_id
    assert second.target == f"entity:{choice.entity_id}"
    assert second.detail == {"action": "relabel", "label": ["PER", "ORG"], "from": name.entity_id}


def test_a_surface_other_spans_rely_on_through_another_name_moves_to_an_entity_of_its_label(
    team: Team,
) -> None:
    arabic, named, sunday = _folded(team)
    assert sunday.entity_id == named.entity_id
    before = surface_choice(team.project, SUNDAY)
    assert before is not None

    moved = _relabel(team, arabic, sunday, "DATE")

    after = surface_choice(team.project, SUNDAY)
    assert after is not None and after.label == "DATE"
    assert moved.entity_id == after.entity_id != named.entity_id
    assert after.replacement in ARABIC_DAYS
    assert Entity.objects.get(pk=named.entity_id).label == "PER"
    person = surface_choice(team.project, "Moshe Chaya")
    assert person is not None and person.entity_id == named.entity_id
    assert Span.objects.get(pk=named.pk).entity_id == named.entity_id
    detail = _edits()[-2].detail
    assert detail["new"] == after.entity_id and detail["alias"] == after.alias_id
    assert SUNDAY not in str([event.detail for event in _edits()])


def test_another_span_of_the_same_surface_leaves_the_choice_to_the_lead(team: Team) -> None:
    first = DocumentFactory(project=team.project, text=ENGLISH, assignee=team.annotator_en)
    second = DocumentFactory(project=team.project, text="Moshe Chaya again.")
    span = _add(team, first, "Moshe Chaya", actor=team.annotator_en)
    _add(team, second, "Moshe Chaya", actor=team.annotator_en)
    before = surface_choice(team.project, "Moshe Chaya")

    with pytest.raises(SurfaceConflict, match="flag the span for the lead"):
        _relabel(team, first, span, "ORG", actor=team.annotator_en)

    assert Span.objects.get(pk=span.pk).label == "PER"
    assert surface_choice(team.project, "Moshe Chaya") == before
    assert not _edits()
    item = ReviewItem.objects.get(kind=ReviewKind.SURFACE_CONFLICT, span_id=span.pk)
    assert item.entity_id == span.entity_id


def test_a_span_relabelled_back_and_forth_keeps_its_entity(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=ENGLISH)
    span = _add(team, document, "Moshe Chaya")
    moved = _relabel(team, document, span, "ORG")
    back = _relabel(team, document, moved, "PER")
    assert surface_choice(team.project, "Moshe Chaya").label == "PER"  # type: ignore[union-attr]
    again = _relabel(team, document, back, "PER:IMG")
    assert again.entity_id == span.entity_id
    assert len(_edits()) == 3


def test_a_lead_who_relabels_an_entity_in_review_draws_for_the_label_too(team: Team) -> None:
    document = DocumentFactory(project=team.project, language="ar", text=ARABIC)
    span = _add(team, document, SUNDAY, actor=team.annotator_fr)
    span_update(document=document, span_id=span.pk, actor=team.annotator_fr, version=span.version,
                change=SpanChange(flag="A day, not a person"))  # fmt: skip
    item = ReviewItem.objects.get(kind=ReviewKind.FLAG, span_id=span.pk)
    person = surface_choice(team.project, SUNDAY)

    review_resolve(item=item, actor=team.lead, rationale="A weekday.", decision="pseudonymize",
                   label="DATE")  # fmt: skip

    choice = surface_choice(team.project, SUNDAY)
    assert person is not None and choice is not None
    assert choice.label == "DATE" and choice.entity_id == person.entity_id
    assert choice.replacement in ARABIC_DAYS


def test_no_original_of_a_relabel_reaches_the_logs(
    team: Team, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    arabic, named, sunday = _folded(team)
    settings.DEBUG = True  # Django logs every query with its parameters
    for name in (None, "django", "django.db.backends", "annotator", "pseudonymizer"):
        caplog.set_level(logging.DEBUG, logger=name)
    caplog.clear()

    _relabel(team, arabic, sunday, "DATE")
    _relabel(team, named.document, Span.objects.get(pk=named.pk), "ORG")

    logged = caplog.text + "\n".join(str(record.args) for record in caplog.records)
    assert "keys_alias" in logged  # the SQL that wrote the table was logged
    for original in (SUNDAY, "Moshe Chaya", "Moshe"):
        assert original not in logged
