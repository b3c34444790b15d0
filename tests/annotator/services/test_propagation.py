"""Propagation: a decision made once is proposed everywhere its surface occurs."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from annotator.keys.models import Alias, Entity
from annotator.models import DocumentStatus, ReviewItem, ReviewKind, Span, SpanSource, SpanStatus
from annotator.services.propagation import propagate_choice
from annotator.services.spans import SpanChange, span_create, span_update
from annotator.services.table import SurfaceConflict, surface_choice, surface_decide
from tests.conftest import Team
from tests.factories import DocumentFactory, MembershipFactory, ProjectFactory, SpanFactory


def decide(team: Team, surface: str, language: str = "en", **kwargs: Any) -> Any:
    kwargs.setdefault("decision", "pseudonymize")
    return surface_decide(
        project=team.project, surface=surface, language=language, label="PER",
        actor=team.lead, **kwargs,
    )  # fmt: skip


def test_a_choice_is_proposed_in_every_language_with_arabic_proclitics(team: Team) -> None:
    english = DocumentFactory(project=team.project, text="Moshe Chaya met MOSHE CHAYA.")
    french = DocumentFactory(project=team.project, language="fr", text="Voici Moshé Chaya.")
    arabic_text = "قال لموشيه حايا وموشيه حايا في لندن"
    arabic = DocumentFactory(project=team.project, language="ar", text=arabic_text)
    elsewhere = DocumentFactory(project=team.project, text="Nobody named here.")
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    arabic_choice = decide(team, "موشيه حايا", language="ar", replacement="راج أفروم")

    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)
    propagate_choice(project_id=team.project.pk, alias_id=arabic_choice.alias_id)

    english_spans = list(Span.objects.filter(document=english).order_by("start"))
    assert [(s.start, s.end) for s in english_spans] == [(0, 11), (16, 27)]
    assert {s.entity_id for s in english_spans} == {choice.entity_id}
    assert all(s.status == SpanStatus.PROPOSED and s.source == SpanSource.KNOWN
               for s in english_spans)  # fmt: skip
    (accented,) = Span.objects.filter(document=french)
    assert french.text[accented.start : accented.end] == "Moshé Chaya"
    surfaces = [
        arabic_text[s.start : s.end] for s in Span.objects.filter(document=arabic).order_by("start")
    ]
    assert surfaces == ["موشيه حايا", "موشيه حايا"]  # the proclitics ل and و left out
    assert not Span.objects.filter(document=elsewhere).exists()


def test_a_token_of_the_name_is_proposed_with_its_token_pseudonym(team: Team) -> None:
    document = DocumentFactory(project=team.project, text="Later, Moshe said hello.")
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)
    (span,) = Span.objects.filter(document=document)
    assert document.text[span.start : span.end] == "Moshe"
    assert span.entity_id == choice.entity_id
    token = surface_choice(team.project, "Moshe")
    assert token is not None and token.replacement == "Raj"


def test_a_wider_proposal_that_holds_a_decided_name_stays_whole(team: Team) -> None:
    """The pattern's e-mail address holds the name's words: it stays as the pattern proposed
    it, with no word of the name cut out of it; a proposal that only overlaps the name stays
    beside the new one, for the person to choose."""
    text = "Moshe Chaya wrote from moshe.chaya@example.org today."
    document = DocumentFactory(project=team.project, text=text)
    at = text.index("moshe.chaya@example.org")
    email = SpanFactory(document=document, start=at, end=at + 23, label="EMAIL",
                        source=SpanSource.REGEX)  # fmt: skip
    at = text.index("Chaya wrote")
    sloppy = SpanFactory(document=document, start=at, end=at + 11, label="PER",
                         source=SpanSource.NER)  # fmt: skip
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")

    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)

    spans = list(Span.objects.filter(document=document).order_by("start", "end"))
    assert [(text[s.start : s.end], s.source) for s in spans] == [
        ("Moshe Chaya", SpanSource.KNOWN),
        ("Chaya wrote", SpanSource.NER),
        ("moshe.chaya@example.org", SpanSource.REGEX),
    ]
    for machine in (email, sloppy):  # untouched: same row, same version, still a proposal
        now = next(s for s in spans if s.pk == machine.pk)
        assert (now.status, now.version) == (SpanStatus.PROPOSED, machine.version)


def test_a_proposal_that_only_learns_its_entity_keeps_its_version(team: Team) -> None:
    """The page holds the proposal's version: a decision elsewhere that changes nothing the
    annotator sees must not make their next action on it a conflict."""
    text = "Moshe Chaya and, later, Moshe Chaya again."
    document = DocumentFactory(project=team.project, text=text)
    same = SpanFactory(document=document, start=0, end=11, label="PER", source=SpanSource.NER)
    kept = SpanFactory(document=document, start=24, end=35, label="PER", source=SpanSource.NER,
                       decision="pseudonymize")  # fmt: skip
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    other = decide(team, "Sarah Levi", decision="keep", keep_reason="a minister")
    Span.objects.filter(pk=kept.pk).update(entity_id=other.entity_id, decision="keep")

    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)

    same.refresh_from_db()
    assert (same.entity_id, same.version) == (choice.entity_id, 1)
    kept.refresh_from_db()  # its decision changed: a new version
    assert (kept.entity_id, kept.decision, kept.version) == (choice.entity_id, "pseudonymize", 2)


def test_propagation_never_overwrites_a_person_and_raises_a_conflict(team: Team) -> None:
    document = DocumentFactory(project=team.project, text="Moshe Chaya again, Moshe Chaya.")
    kept = SpanFactory(
        document=document, start=0, end=11, source=SpanSource.HUMAN,
        status=SpanStatus.ACCEPTED, decision="keep", keep_reason="public",
    )  # fmt: skip
    machine = SpanFactory(document=document, start=19, end=24, label="PER", source="ner")
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)
    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)  # twice: no change

    kept.refresh_from_db()
    assert kept.decision == "keep" and kept.version == 1
    (conflict,) = ReviewItem.objects.filter(kind=ReviewKind.SURFACE_CONFLICT)
    assert conflict.span == kept and conflict.detail == {"decisions": ["keep", "pseudonymize"]}
    # The machine's shorter proposal stays beside the longer match: the person chooses.
    assert Span.objects.get(pk=machine.pk).status == SpanStatus.PROPOSED
    proposed = Span.objects.get(document=document, start=19, source=SpanSource.KNOWN)
    assert (proposed.end, proposed.decision) == (30, "pseudonymize")
    assert Span.objects.filter(document=document).count() == 3


def test_a_done_document_that_gets_a_proposal_is_in_progress_again(team: Team) -> None:
    document = DocumentFactory(
        project=team.project, text="Moshe Chaya.", status=DocumentStatus.DONE
    )
    choice = decide(team, "Moshe Chaya")
    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)
    document.refresh_from_db()
    assert document.status == DocumentStatus.IN_PROGRESS


def test_a_stretch_a_person_rejected_is_not_proposed_again_nor_its_document_reopened(
    team: Team,
) -> None:
    """Issue 31, 1: a pass landing after a person rejected the name there and marked the
    document done proposed it again, reopened the document, and the release left it out in
    silence instead of refusing it. A proposal set aside by nobody is proposed again."""
    document = DocumentFactory(
        project=team.project, text="Moshe Chaya, and Moshe Chaya.", status=DocumentStatus.DONE
    )
    SpanFactory(
        document=document, start=0, end=11, label="PER", source="ner",
        status=SpanStatus.REJECTED, decided_by=team.annotator_en,
    )  # fmt: skip
    SpanFactory(
        document=document, start=17, end=28, label="PER", source="ner",
        status=SpanStatus.REJECTED, decided_by=None,
    )  # fmt: skip
    choice = decide(team, "Moshe Chaya")
    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)
    proposed = Span.objects.filter(document=document, status=SpanStatus.PROPOSED)
    assert [(span.start, span.end) for span in proposed] == [(17, 28)]
    assert Span.objects.filter(document=document, start=0, status=SpanStatus.REJECTED).exists()


def test_a_decision_through_the_service_propagates_after_commit(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    first = DocumentFactory(project=team.project, text="Moshe Chaya wrote.")
    second = DocumentFactory(project=team.project, text="And Moshe Chaya replied.")
    span = SpanFactory(document=first, start=0, end=11, label="PER", source="ner")
    with django_capture_on_commit_callbacks(execute=True):
        span_update(
            document=first, span_id=span.pk, actor=team.annotator_en, version=1,
            change=SpanChange(status="accepted"),
        )  # fmt: skip
    (proposed,) = Span.objects.filter(document=second)
    assert proposed.entity_id == Span.objects.get(pk=span.pk).entity_id
    assert Span.objects.filter(document=first).count() == 1


def test_propagation_reads_the_documents_once_filtered_by_the_database(team: Team) -> None:
    for number in range(30):
        DocumentFactory(project=team.project, text=f"Unrelated post number {number}.")
    DocumentFactory(project=team.project, text="Moshe Chaya is here.")
    choice = decide(team, "Moshe Chaya")
    summary = propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)
    assert summary.documents_searched == 1 and summary.proposed == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_choices_for_one_surface_end_with_one_entity_and_one_replacement() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the race needs a database with concurrent writers")
    project = ProjectFactory(languages=["en"])
    people = [
        MembershipFactory(project=project, role="annotator", languages=["en"]).user
        for _ in range(8)
    ]
    documents = [
        DocumentFactory(project=project, text=f"Post {n}: Moshe Chaya was here.") for n in range(8)
    ]
    start = documents[0].text.index("Moshe")
    barrier = threading.Barrier(len(people))
    outcomes: list[Any] = [None] * len(people)

    def choose(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = span_create(
                document=documents[index], actor=people[index], start=start,
                end=start + 11, label="PER", replacement=f"Pseudo Nym{'x' * index}",
            )  # fmt: skip
        except SurfaceConflict as conflict:
            outcomes[index] = conflict
        finally:
            connection.close()

    threads = [threading.Thread(target=choose, args=(n,)) for n in range(len(people))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert Entity.objects.filter(project=project).count() == 1
    assert Alias.objects.filter(project=project, parent__isnull=True).count() == 1
    winner = surface_choice(project, "Moshe Chaya")
    assert winner is not None
    spans = [outcome for outcome in outcomes if isinstance(outcome, Span)]
    conflicts = [outcome for outcome in outcomes if isinstance(outcome, SurfaceConflict)]
    assert len(spans) == 1 and len(conflicts) == len(people) - 1
    assert all(conflict.winner.replacement == winner.replacement for conflict in conflicts)
    assert spans[0].entity_id == winner.entity_id
    # No lost decision: the winner's span holds it, the losers wrote nothing, and the
    # winner's choice was then proposed in their documents.
    spans_now = Span.objects.filter(document__project=project)
    assert spans_now.filter(source=SpanSource.HUMAN).count() == 1
    proposed = spans_now.filter(source=SpanSource.KNOWN, status=SpanStatus.PROPOSED)
    assert proposed.count() == len(people) - 1
    assert set(proposed.values_list("entity_id", flat=True)) == {winner.entity_id}


@pytest.mark.parametrize(
    ("decided", "language", "written"),
    [
        ("Moshe Chaya", "en", "Ｍｏｓｈｅ Ｃｈａｙａ"),  # fullwidth
        ("Moshe Chaya", "en", "\U0001d40c\U0001d428\U0001d42c\U0001d421\U0001d41e Chaya"),  # bold
        ("Moshe Chaya", "en", "Mo\u200bshe Cha\u200dya"),  # zero-width space and joiner
        ("محمد", "ar", "محمــد"),  # tatweel
        ("محمد", "ar", "مح\u200dمد"),  # zero-width joiner
        ("محمد", "ar", "ﻣﺤﻤﺪ"),  # presentation forms
        ("مصطفى", "ar", "مصطفي"),  # alef maqsura written as yeh
        ("فاطمة", "ar", "فاطمه"),  # ta marbuta written as heh
    ],
)
def test_a_choice_is_proposed_where_its_surface_is_written_another_way(
    team: Team, decided: str, language: str, written: str
) -> None:
    text = f"Hier {written}, et voilà."
    document = DocumentFactory(project=team.project, language=language, text=text)
    choice = decide(team, decided, language=language)

    propagate_choice(project_id=team.project.pk, alias_id=choice.alias_id)

    (span,) = Span.objects.filter(document=document)
    assert text[span.start : span.end] == written
    assert span.entity_id == choice.entity_id and span.status == SpanStatus.PROPOSED
