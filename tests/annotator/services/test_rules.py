"""Where copies of a rule used to disagree, the strictest one now holds on every path: a
pseudonym found in the corpus, a reason to keep too long (never cut), a reason's outer
spaces."""

from __future__ import annotations

import pytest

from annotator.errors import DomainError
from annotator.keys.models import Entity
from annotator.keys.transfer import table_to_bytes
from annotator.models import Document, DocumentStatus, ReviewItem, ReviewKind, ReviewStatus, Span
from annotator.routers import keys_alias
from annotator.services.review.resolve import review_resolve
from annotator.services.spans import SpanChange, span_create, span_update
from annotator.services.table import (
    EntityChange,
    ImportConflicts,
    entity_update,
    keys_import,
    suggestions_for,
    surface_choice,
    surface_decide,
)
from pseudonymizer.keytable import Alias as KeyAlias
from pseudonymizer.keytable import KeyTable
from pseudonymizer.vocabulary import MAX_KEEP_REASON
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."
PASSPHRASE = "a long enough passphrase"


@pytest.fixture
def document(team: Team) -> Document:
    return DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.PREANNOTATED)


# --- The replacement: one rule (`annotator.keys.surfaces.check_replacement`) ----------------


def test_a_pseudonym_an_annotator_types_that_occurs_in_the_corpus_is_refused_unexplained(
    team: Team, document: Document
) -> None:
    # Before: only the lead's edit asked the documents. The annotator hears the one answer
    # that says nothing of which names occur in documents they may not open.
    with pytest.raises(DomainError, match="already used or names someone"):
        span_create(
            document=document, actor=team.annotator_en, start=12, end=23, label="PER",
            replacement="Alphonse Metayer",
        )  # fmt: skip
    assert not Span.objects.filter(document=document).exists()
    assert surface_choice(team.project, "Moshe Chaya") is None


def test_an_invalidated_form_is_held_to_the_same_rule(team: Team, document: Document) -> None:
    with pytest.raises(DomainError, match="already used or names someone"):
        surface_decide(
            project=team.project, surface="Moshe Chaya", language="en", label="PER",
            decision="invalidate", replacement="Rue Alphonse", actor=team.annotator_en,
        )  # fmt: skip


def test_a_drawn_pseudonym_that_occurs_in_the_corpus_is_drawn_again(team: Team) -> None:
    (first,) = suggestions_for(team.project, "Moshe Chaya", "PER", "en", count=1)
    DocumentFactory(project=team.project, text=f"A letter to {first}, and one more.")

    choice = surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", actor=team.annotator_en,
    )  # fmt: skip

    assert choice.created and choice.replacement and choice.replacement != first


def test_a_key_file_pseudonym_that_occurs_in_the_corpus_is_refused(
    team: Team, document: Document
) -> None:
    table = KeyTable(
        aliases=[KeyAlias("Tom Reddle", "en", "Alphonse Metayer", 1, "pseudonymize", "PER")]
    )
    with pytest.raises(ImportConflicts):
        keys_import(
            project=team.project,
            data=table_to_bytes(table, PASSPHRASE),
            passphrase=PASSPHRASE,
            actor=team.admin,
        )
    assert surface_choice(team.project, "Tom Reddle") is None


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
