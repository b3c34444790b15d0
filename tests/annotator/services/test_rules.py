"""Where copies of a rule used to disagree, the strictest one now holds on every path: a
reason to keep too long (never cut), a reason's outer spaces."""

from __future__ import annotations

import pytest

from annotator.keys.models import Entity
from annotator.models import Document, DocumentStatus, ReviewItem, ReviewKind, ReviewStatus
from annotator.routers import keys_alias
from annotator.services.errors import DomainError
from annotator.services.review import review_resolve
from annotator.services.spans import SpanChange, span_create, span_update
from annotator.services.table import (
    EntityChange,
    entity_update,
    surface_choice,
    surface_decide,
)
from pseudonymizer.vocabulary import MAX_KEEP_REASON
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."
PASSPHRASE = "a long enough passphrase"


@pytest.fixture
def document(team: Team) -> Document:
    return DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.PREANNOTATED)


# --- The reason to keep: one rule (`pseudonymizer.vocabulary.check_decision`) ---------------


def flagged(team: Team, document: Document) -> ReviewItem:
    span = SpanFactory(document=document)
    span_update(document=document, span_id=span.pk, actor=team.annotator_en,
                version=span.version, change=SpanChange(flag="Keep?"))  # fmt: skip
    return ReviewItem.objects.get(kind=ReviewKind.FLAG)


def test_a_lead_reason_to_keep_too_long_is_refused_not_cut(team: Team, document: Document) -> None:
    item = flagged(team, document)
    with pytest.raises(DomainError, match=f"at most {MAX_KEEP_REASON} characters"):
        review_resolve(item=item, actor=team.lead, rationale="A public figure.",
                       decision="keep", keep_reason="x" * (MAX_KEEP_REASON + 1))  # fmt: skip
    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN


def test_a_rationale_too_long_to_stand_for_the_reason_is_refused_not_cut(
    team: Team, document: Document
) -> None:
    item = flagged(team, document)
    with pytest.raises(DomainError, match=f"at most {MAX_KEEP_REASON} characters"):
        review_resolve(item=item, actor=team.lead, rationale="y" * (MAX_KEEP_REASON + 1),
                       decision="keep")  # fmt: skip
    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN
    # A long rationale is fine for any other decision: it stands for no reason to keep.
    review_resolve(item=item, actor=team.lead, rationale="y" * (MAX_KEEP_REASON + 1),
                   decision="delete")  # fmt: skip
    item.refresh_from_db()
    assert item.status == ReviewStatus.RESOLVED


def test_a_lead_reason_too_long_is_refused_in_the_table_whatever_the_decision(
    team: Team,
) -> None:
    choice = surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", replacement="Raj Avrom", actor=team.lead,
    )  # fmt: skip
    with pytest.raises(DomainError, match=f"at most {MAX_KEEP_REASON} characters"):
        entity_update(
            project=team.project, entity_id=choice.entity_id, actor=team.lead, version=None,
            change=EntityChange(decision="delete", keep_reason="z" * (MAX_KEEP_REASON + 1)),
        )  # fmt: skip
    entity = Entity.objects.using(keys_alias()).get(pk=choice.entity_id)
    assert entity.decision == "pseudonymize" and entity.version == 1


def test_a_span_and_its_entity_keep_the_reason_without_its_outer_spaces(
    team: Team, document: Document
) -> None:
    span = span_create(
        document=document, actor=team.annotator_en, start=12, end=23, label="PER",
        decision="keep", keep_reason="  a public figure  ",
    )  # fmt: skip
    assert span.keep_reason == "a public figure"
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None and choice.keep_reason == "a public figure"
