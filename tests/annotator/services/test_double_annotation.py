"""Blind double annotation: the sample, the replica's blindness, its decisions kept off the
correspondence table, replicas left out of everyone else's lists, runs and propagation; and
what machines proposed, kept at creation."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from annotator.errors import DomainError
from annotator.keys.models import Alias
from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    DocumentStatus,
    Role,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.permissions import can_view_document, visible_documents
from annotator.routers import keys_alias
from annotator.selectors.documents import document_list, double_candidates, replica_pairs
from annotator.selectors.queues import next_document, project_queues, queues_of
from annotator.services import runs
from annotator.services.assignments import documents_assign, documents_assign_arrivals
from annotator.services.double_annotation import (
    double_assign,
    double_sample,
    sample_size,
)
from annotator.services.imports import documents_import
from annotator.services.propagation import propagate_choice
from annotator.services.spans import (
    SpanChange,
    pseudonym_chosen,
    pseudonym_suggestions,
    span_choices,
    span_create,
    span_update,
    spans_decide_all,
)
from annotator.services.table import surface_choice
from tests.conftest import Team
from tests.factories import DocumentFactory, MembershipFactory, SpanFactory

pytestmark = pytest.mark.django_db

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer. Mail moshe@example.org now."
NAME = (12, 23)  # Moshe Chaya
FIRST_NAME = (12, 17)  # Moshe
STREET = (28, 48)  # Rue Alphonse Metayer
EMAIL = (55, 72)  # moshe@example.org


@pytest.fixture
def second(team: Team) -> Any:
    """A second English annotator: the one a sample goes to."""
    return MembershipFactory(project=team.project, role=Role.ANNOTATOR, languages=["en"]).user


def english(team: Team, count: int, **kwargs: Any) -> list[Document]:
    kwargs.setdefault("assignee", team.annotator_en)
    return [DocumentFactory(project=team.project, language="en", **kwargs) for _ in range(count)]


def machine(document: Document, start: int, end: int, label: str, source: str, **kw: Any) -> Span:
    return SpanFactory(
        document=document, start=start, end=end, label=label, source=source, score=0.9,
        proposed_start=start, proposed_end=end, proposed_label=label, **kw,
    )  # fmt: skip


def assign(team: Team, annotator: Any, percentage: object = 100, **kwargs: Any) -> Any:
    kwargs.setdefault("language", "en")
    return double_assign(
        project=team.project, percentage=percentage, annotator=annotator, actor=team.admin,
        **kwargs,
    )  # fmt: skip


class Rollback(Exception):
    pass


# --- The sample -----------------------------------------------------------------------------


def test_the_sample_is_a_percentage_rounded_up_and_at_least_one() -> None:
    assert sample_size(Decimal(10), 7) == 1
    assert sample_size(Decimal(30), 7) == 3
    assert sample_size(Decimal("0.001"), 3) == 1
    assert sample_size(Decimal(100), 7) == 7
    assert sample_size(Decimal(50), 0) == 0
    ids = list(range(1, 101))
    assert double_sample(ids, Decimal(20), "seed") == double_sample(ids, Decimal(20), "seed")
    assert len(double_sample(ids, Decimal(20), "seed")) == 20


def test_a_sample_is_drawn_from_the_originals_others_hold_without_a_replica(
    team: Team, second: Any
) -> None:
    held = english(team, 7)
    english(team, 1, assignee=second)  # the second annotator's own: never given again
    english(team, 1, assignee=None)  # nobody's yet: no first annotation to compare with
    DocumentFactory(project=team.project, language="fr", assignee=team.annotator_fr)
    assert double_candidates(team.project, "en", second) == [d.pk for d in held]

    outcome = assign(team, second, 30, seed="s")
    assert outcome.documents == 3
    originals = [original for original, _ in outcome.pairs]
    assert originals == double_sample([d.pk for d in held], Decimal(30), "s")
    # What has a replica is not drawn again: the rest of the language, once each.
    rest = assign(team, second, 100)
    assert sorted(o for o, _ in rest.pairs) == sorted({d.pk for d in held} - set(originals))
    assert Document.objects.replicas().count() == 7
    with pytest.raises(DomainError, match="no document in en is left"):
        assign(team, second, 100)


def test_the_same_call_draws_the_same_sample(team: Team, second: Any) -> None:
    english(team, 20)
    try:
        with transaction.atomic():
            first = assign(team, second, 25)
            raise Rollback
    except Rollback:
        pass
    assert not Document.objects.replicas().exists()
    again = assign(team, second, 25)
    assert [o for o, _ in again.pairs] == [o for o, _ in first.pairs]
    assert again.documents == 5


@pytest.mark.parametrize("percentage", [0, -5, "100.5", "abc", "NaN", "inf", True, None])
def test_it_refuses_a_bad_percentage_and_changes_nothing(
    team: Team, second: Any, percentage: object
) -> None:
    english(team, 3)
    with pytest.raises(DomainError, match="percentage"):
        assign(team, second, percentage)
    assert not Document.objects.replicas().exists()
    assert not AuditEvent.objects.filter(action=AuditAction.DOUBLE_ASSIGN).exists()


def test_it_refuses_an_unknown_language_and_an_annotator_who_may_not(
    team: Team, second: Any
) -> None:
    english(team, 3)
    with pytest.raises(DomainError, match="not one of the project's"):
        assign(team, second, 50, language="de")
    with pytest.raises(DomainError, match="not a member"):
        assign(team, team.outsider, 50)
    with pytest.raises(DomainError, match="not a member"):
        assign(team, "nobody-at-all", 50)
    with pytest.raises(DomainError, match="does not work on en"):
        assign(team, team.annotator_fr, 50)
    # A lead or an admin opens the first annotation: theirs would not be blind.
    for who in (team.lead, team.admin):
        with pytest.raises(DomainError, match="would not be blind"):
            assign(team, who, 50)
    # The first annotator holds every one of them: nothing to give them twice.
    with pytest.raises(DomainError, match="no document in en is left"):
        assign(team, team.annotator_en, 50)
    assert not Document.objects.replicas().exists()
    assert not AuditEvent.objects.filter(action=AuditAction.DOUBLE_ASSIGN).exists()


def test_a_username_names_the_second_annotator_and_the_assignment_is_audited(
    team: Team, second: Any
) -> None:
    (original,) = english(team, 1, text=TEXT, external_id="post-1")
    outcome = assign(team, second.username, 100)
    replica = Document.objects.get(pk=outcome.pairs[0][1])
    assert replica.external_id == "post-1#2"
    event = AuditEvent.objects.get(action=AuditAction.DOUBLE_ASSIGN)
    assert event.actor == team.admin and event.target == f"user:{second.pk}"
    assert event.detail["documents"] == 1 and event.detail["pairs"] == [[original.pk, replica.pk]]
    assert "Moshe" not in json.dumps(event.detail)


def test_a_replica_takes_a_free_external_id(team: Team, second: Any) -> None:
    english(team, 1, external_id="a")
    DocumentFactory(project=team.project, language="fr", external_id="a#2")
    outcome = assign(team, second, 100)
    assert Document.objects.get(pk=outcome.pairs[0][1]).external_id == "a#3"


# --- Blind ------------------------------------------------------------------------------------


@pytest.fixture
def worked(team: Team) -> Document:
    """An English document the first annotator has worked on: a proposal moved, relabelled
    and decided with a pseudonym, one rejected, one of their own, one known entity."""
    (document,) = english(team, 1, text=TEXT, external_id="worked")
    first_name = machine(document, *FIRST_NAME, "LOC", SpanSource.NER, sources=["ner", "learned"])
    street = machine(document, *STREET, "ADDRESS", SpanSource.IMPORT)
    machine(document, *EMAIL, "EMAIL", SpanSource.REGEX)
    span_update(
        document=document, span_id=first_name.pk, actor=team.annotator_en, version=1,
        change=SpanChange(end=NAME[1], label="PER", replacement="Raj Avrom"),
    )  # fmt: skip
    span_update(
        document=document, span_id=street.pk, actor=team.annotator_en, version=1,
        change=SpanChange(status=SpanStatus.REJECTED),
    )  # fmt: skip
    span_create(document=document, actor=team.annotator_en, start=0, end=8, label="HASHTAG")
    SpanFactory(document=document, start=73, end=76, label="PER", source=SpanSource.KNOWN,
                entity_id=surface_choice(team.project, "Moshe Chaya").entity_id)  # fmt: skip
    return document


def test_proposed_offsets_and_label_stay_when_a_person_moves_and_relabels(
    team: Team, worked: Document
) -> None:
    span = Span.objects.get(document=worked, source=SpanSource.NER)
    assert (span.start, span.end, span.label) == (*NAME, "PER")
    assert (span.proposed_start, span.proposed_end, span.proposed_label) == (*FIRST_NAME, "LOC")
    assert Span.objects.get(document=worked, source=SpanSource.HUMAN).proposed_start is None


def test_a_replica_has_the_machine_proposals_as_made_and_nothing_of_the_first_annotator(
    team: Team, second: Any, worked: Document
) -> None:
    outcome = assign(team, second, 100)
    assert outcome.spans == 3
    replica = Document.objects.get(pk=outcome.pairs[0][1])
    assert replica.text == worked.text and replica.search_text == worked.search_text
    assert (replica.replica_of_id, replica.assignee, replica.language) == (
        worked.pk, second, "en"
    )  # fmt: skip
    assert replica.status == DocumentStatus.PREANNOTATED
    spans = list(Span.objects.filter(document=replica).order_by("start"))
    assert [(s.start, s.end, s.label, s.source, s.sources) for s in spans] == [
        # Where the machine put it, not where it went, and every source that proposed it.
        (*FIRST_NAME, "LOC", SpanSource.NER, ["ner", "learned"]),
        (*STREET, "ADDRESS", SpanSource.IMPORT, None),  # rejected by the first: proposed again
        (*EMAIL, "EMAIL", SpanSource.REGEX, None),
    ]
    for span in spans:
        assert span.status == SpanStatus.PROPOSED
        assert span.decision == "pseudonymize" and span.keep_reason == ""
        assert span.entity_id is None
        assert span.decided_by is None and span.updated_by is None
        assert (span.proposed_start, span.proposed_end, span.proposed_label) == (
            span.start, span.end, span.label
        )  # fmt: skip
    assert span_choices(replica, spans) == {}
    # The original is as it was.
    assert Span.objects.filter(document=worked).count() == 5


def test_suggestions_on_a_replica_never_put_the_first_annotators_pseudonym_first(
    team: Team, second: Any, worked: Document
) -> None:
    replica = Document.objects.get(pk=assign(team, second, 100).pairs[0][1])
    on_original = pseudonym_suggestions(worked, "Moshe Chaya", "PER")
    assert on_original[0] == "Raj Avrom"
    on_replica = pseudonym_suggestions(replica, "Moshe Chaya", "PER")
    assert "Raj Avrom" not in on_replica
    assert len(on_replica) == len(on_original)
    assert pseudonym_chosen(worked, "Moshe Chaya") is not None
    assert pseudonym_chosen(replica, "Moshe Chaya") is None


def test_decisions_on_a_replica_never_reach_the_correspondence_table(
    team: Team, second: Any, worked: Document, django_capture_on_commit_callbacks: Any
) -> None:
    replica = Document.objects.get(pk=assign(team, second, 100).pairs[0][1])
    aliases = Alias.objects.using(keys_alias()).count()
    name = Span.objects.get(document=replica, source=SpanSource.NER)
    street = Span.objects.get(document=replica, source=SpanSource.IMPORT)
    with django_capture_on_commit_callbacks() as callbacks:
        # A surface the project decided, decided otherwise: no conflict, nothing written.
        decided = span_update(
            document=replica, span_id=name.pk, actor=second, version=name.version,
            change=SpanChange(end=NAME[1], label="PER", decision="keep", keep_reason="public"),
        )  # fmt: skip
        kept = span_update(
            document=replica, span_id=street.pk, actor=second, version=street.version,
            change=SpanChange(replacement="Rue Nouvelle Rue"),
        )  # fmt: skip
        added = span_create(
            document=replica, actor=second, start=0, end=8, label="HASHTAG", replacement="#x"
        )
        outcome = spans_decide_all(document=replica, actor=second, status=SpanStatus.ACCEPTED,
                                   source=SpanSource.REGEX)  # fmt: skip
    assert outcome.changed == 1 and outcome.conflicts == 0
    assert callbacks == []  # no propagation
    assert Alias.objects.using(keys_alias()).count() == aliases
    assert surface_choice(team.project, "Rue Alphonse Metayer") is None
    assert surface_choice(team.project, "moshe@example.org") is None
    decided.refresh_from_db()
    assert (decided.status, decided.decision, decided.keep_reason, decided.entity_id) == (
        SpanStatus.ACCEPTED, "keep", "public", None
    )  # fmt: skip
    assert decided.proposed_end == FIRST_NAME[1] and decided.proposed_label == "LOC"
    assert kept.status == SpanStatus.ACCEPTED and kept.entity_id is None
    assert added.entity_id is None
    assert not Span.objects.filter(document=replica, entity_id__isnull=False).exists()
    # The project's choice for the name is the first annotator's still.
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None and choice.decision == "pseudonymize"


# --- Invisible to others ------------------------------------------------------------------------


def test_replicas_are_listed_and_queued_for_their_annotator_only(
    team: Team, second: Any, worked: Document
) -> None:
    other = english(team, 1)[0]
    replica = Document.objects.get(pk=assign(team, second, 50, seed="x").pairs[0][1])
    original = replica.replica_of
    assert original is not None
    untouched = ({worked.pk, other.pk} - {original.pk}).pop()

    for person in (team.annotator_en, team.lead, team.admin):
        listed = set(document_list(person, team.project).values_list("pk", flat=True))
        assert replica.pk not in listed and original.pk in listed
    # The second annotator sees their replica, and not the original they annotate again.
    listed = set(document_list(second, team.project).values_list("pk", flat=True))
    assert listed == {replica.pk, untouched}
    assert set(visible_documents(second, team.project)) == {replica, Document(pk=untouched)}

    assert not can_view_document(team.annotator_en, replica)
    assert not can_view_document(second, original)
    assert can_view_document(second, replica)
    assert can_view_document(team.lead, replica) and can_view_document(team.lead, original)

    assert queues_of([team.project], team.annotator_en)[team.project.pk].total == 2
    assert queues_of([team.project], second)[team.project.pk].total == 1
    assert next_document(second, team.project) == replica
    assert next_document(team.annotator_en, team.project) in (worked, other)
    by_name = {queue.assignee: queue.total for queue in project_queues(team.project)}
    assert by_name == {team.annotator_en.username: 2, second.username: 1}
    assert list(replica_pairs(team.project)) == [replica]


def test_nobody_is_given_both_halves_of_a_pair(team: Team, second: Any) -> None:
    english(team, 2)
    original_id, replica_id = assign(team, second, 50).pairs[0]
    with pytest.raises(DomainError, match="other half"):
        documents_assign(project=team.project, actor=team.admin, document_ids=[original_id],
                         assignee=second.username)  # fmt: skip
    with pytest.raises(DomainError, match="other half"):
        documents_assign(project=team.project, actor=team.admin, document_ids=[replica_id],
                         assignee=team.annotator_en.username)  # fmt: skip
    # A replica nobody holds is not given to the language's annotator on arrival.
    Document.objects.filter(pk=replica_id).update(assignee=None)
    documents_assign_arrivals(project=team.project)
    assert Document.objects.get(pk=replica_id).assignee is None
    assert all(queue.assignee is not None for queue in project_queues(team.project))


def test_a_run_never_proposes_into_a_replica(
    team: Team, second: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}
    (original,) = english(team, 1, text=TEXT)
    replica_id = assign(team, second, 100).pairs[0][1]
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_create(project=team.project, actor=None, language="en")
    run.refresh_from_db()
    assert run.documents_total == 1
    assert not Span.objects.filter(document_id=replica_id).exists()
    (email,) = Span.objects.filter(document=original, run=run, label="EMAIL")
    # What the run proposed is kept as proposed.
    assert (email.proposed_start, email.proposed_end, email.proposed_label) == (*EMAIL, "EMAIL")


def test_propagation_never_proposes_into_a_replica(team: Team, second: Any) -> None:
    (original,) = english(team, 1, text=TEXT)
    replica_id = assign(team, second, 100).pairs[0][1]
    elsewhere = DocumentFactory(project=team.project, language="en", text="Moshe Chaya again.")
    span = span_create(document=elsewhere, actor=team.annotator_en, start=0, end=11, label="PER")
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None and span.entity_id == choice.entity_id
    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)
    assert not Span.objects.filter(document_id=replica_id).exists()
    known = Span.objects.get(document=original, source=SpanSource.KNOWN, start=NAME[0])
    assert known.end == NAME[1]
    assert (known.proposed_start, known.proposed_end, known.proposed_label) == (*NAME, "PER")


# --- What machines proposed, kept at creation ---------------------------------------------------


def test_an_import_keeps_what_it_proposed(team: Team, tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(
        json.dumps({"id": "imp", "lang": "en", "text": TEXT,
                    "spans": [{"start": NAME[0], "end": NAME[1], "label": "PER"}]}) + "\n"
    )  # fmt: skip
    documents_import(project=team.project, path=path)
    span = Span.objects.get(document__external_id="imp")
    assert (span.proposed_start, span.proposed_end, span.proposed_label) == (*NAME, "PER")
    span = span_update(
        document=span.document, span_id=span.pk, actor=team.annotator_en, version=span.version,
        change=SpanChange(start=FIRST_NAME[0], end=FIRST_NAME[1], label="LOC"),
    )  # fmt: skip
    span.refresh_from_db()
    assert (span.start, span.end, span.label) == (*FIRST_NAME, "LOC")
    assert (span.proposed_start, span.proposed_end, span.proposed_label) == (*NAME, "PER")
