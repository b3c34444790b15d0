"""The lead's review: conflicts found, choices refused, flags, and their resolution."""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotator.errors import ConflictError, DomainError
from annotator.keys.models import Alias, Entity
from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.routers import keys_alias
from annotator.selectors.review import with_note
from annotator.services.review.resolve import review_dismiss, review_resolve
from annotator.services.review.scan import review_scan
from annotator.services.spans import SpanChange, span_create, span_update
from annotator.services.table import SurfaceConflict, review_notes, surface_choice, surface_decide
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."
FRENCH = "Bonjour Moshe Chaya, à la Rue Alphonse Metayer."
# Originals of these tests: none may appear in an item's detail or resolution.
ORIGINALS = ("Moshe", "Chaya", "Acme", "Cohen")


def decide(team: Team, surface: str, language: str = "en", **kwargs: Any) -> Any:
    kwargs.setdefault("decision", "pseudonymize")
    kwargs.setdefault("label", "PER")
    return surface_decide(
        project=team.project, surface=surface, language=language, actor=team.lead, **kwargs
    )


def accepted(document: Document, entity_id: int, decision: str, **kwargs: Any) -> Span:
    kwargs.setdefault("start", document.text.index("Moshe Chaya"))
    kwargs.setdefault("end", kwargs["start"] + len("Moshe Chaya"))
    return SpanFactory(
        document=document, source=SpanSource.HUMAN, status=SpanStatus.ACCEPTED,
        decision=decision, keep_reason="public" if decision == "keep" else "",
        entity_id=entity_id, **kwargs,
    )  # fmt: skip


def items(kind: str | None = None) -> list[ReviewItem]:
    found = ReviewItem.objects.order_by("pk")
    return list(found.filter(kind=kind) if kind else found)


def assert_no_original(found: list[ReviewItem]) -> None:
    for item in found:
        dumped = json.dumps([item.detail, item.resolution], ensure_ascii=False)
        for original in ORIGINALS:
            assert original.lower() not in dumped.lower(), (item.kind, dumped)


def as_a_lead_reads(item: ReviewItem) -> tuple[dict[str, Any], dict[str, Any]]:
    """The item's detail and resolution with its pseudonyms, kept with the keys."""
    item.refresh_from_db()
    return with_note(item, review_notes(item.project, [item.pk]).get(item.pk))


# --- Detection ------------------------------------------------------------------------------


def test_a_surface_with_two_decisions_is_raised_once(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    first = DocumentFactory(project=team.project, text=TEXT)
    second = DocumentFactory(project=team.project, text=TEXT)
    agreeing = accepted(first, choice.entity_id, "pseudonymize")
    kept = accepted(second, choice.entity_id, "keep")

    summary = review_scan(project=team.project)
    again = review_scan(project=team.project)

    (item,) = items()
    assert summary.raised == {ReviewKind.SURFACE_CONFLICT: 1} and again.total == 0
    assert item.kind == ReviewKind.SURFACE_CONFLICT and item.status == ReviewStatus.OPEN
    assert item.span == kept and item.document == second  # the span that dissents
    assert item.detail["decisions"] == ["keep", "pseudonymize"]
    assert item.detail["recorded"] == "pseudonymize"
    assert sorted(item.detail["spans"]) == sorted([agreeing.pk, kept.pk])
    assert_no_original(items())


def test_one_decision_everywhere_raises_nothing(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    accepted(DocumentFactory(project=team.project, text=TEXT), choice.entity_id, "pseudonymize")
    accepted(DocumentFactory(project=team.project, text=TEXT), choice.entity_id, "pseudonymize")
    assert review_scan(project=team.project).total == 0


def test_a_replica_never_raises_a_conflict(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    original = DocumentFactory(project=team.project, text=TEXT)
    replica = DocumentFactory(project=team.project, text=TEXT, replica_of=original)
    accepted(original, choice.entity_id, "pseudonymize")
    accepted(replica, choice.entity_id, "keep")
    assert review_scan(project=team.project).total == 0


def test_kept_in_one_language_and_replaced_in_another_is_one_keep_conflict(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    english = DocumentFactory(project=team.project, text=TEXT)
    french = DocumentFactory(project=team.project, language="fr", text=FRENCH)
    kept = accepted(english, choice.entity_id, "keep")
    accepted(french, choice.entity_id, "pseudonymize")

    summary = review_scan(project=team.project)

    (item,) = items()
    assert summary.raised == {ReviewKind.KEEP_CONFLICT: 1}  # not a surface conflict too
    assert item.span == kept and item.entity_id == choice.entity_id
    assert item.detail["kept_in"] == ["en"] and item.detail["replaced_in"] == ["fr"]
    assert review_scan(project=team.project).total == 0
    assert_no_original(items())


def test_two_pseudonyms_for_one_word_of_an_entity_is_an_entity_conflict(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    # As a merge leaves it: "Moshe Cohen" → "Dov Levi" joins the entity, and "Moshe" has
    # two pseudonyms in English ("Raj" and "Dov").
    merged = Alias(entity_id=choice.entity_id, project_id=team.project.pk, language="en")
    merged.set_original("Moshe Cohen", team.project.secret)
    merged.set_replacement("Dov Levi")
    merged.save(using=keys_alias())
    # The same words in another language are another question: no conflict there.
    french = Alias(entity_id=choice.entity_id, project_id=team.project.pk, language="fr")
    french.set_original("Moshé Chaïa", team.project.secret)  # another surface: ï is not y
    french.set_replacement("Raj Avrom-Levi")
    french.save(using=keys_alias())

    review_scan(project=team.project)

    (item,) = items()
    assert item.kind == ReviewKind.ENTITY_CONFLICT and item.entity_id == choice.entity_id
    assert item.detail["language"] == "en"
    assert item.detail["alias_id"] == merged.pk
    replacements = as_a_lead_reads(item)[0]["replacements"]
    assert "Dov Levi" in replacements and "Raj" in replacements
    assert "replacements" not in item.detail  # kept with the keys
    assert review_scan(project=team.project).total == 0
    assert_no_original(items())


def test_a_pseudonym_that_is_a_word_run_of_the_corpus_is_raised(team: Team) -> None:
    clash = decide(team, "Acme Corp", label="ORG", replacement="Alphonse METAYER")
    decide(team, "Cohen Ltd", label="ORG", replacement="Metay Ltd")  # not a whole word
    # Imported after the choices: a pseudonym found in the corpus is refused when given.
    document = DocumentFactory(project=team.project, text=TEXT)

    review_scan(project=team.project)

    (item,) = items()
    assert item.kind == ReviewKind.ORIGINAL_REPLACEMENT
    assert as_a_lead_reads(item)[0]["replacement"] == "Alphonse METAYER"
    assert "replacement" not in item.detail  # kept with the keys
    assert item.detail["alias_id"] == clash.alias_id and item.document == document
    assert review_scan(project=team.project).total == 0
    assert_no_original(items())


def test_a_resolved_conflict_opens_again_only_while_it_is_still_there(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    accepted(DocumentFactory(project=team.project, text=TEXT), choice.entity_id, "pseudonymize")
    kept = accepted(DocumentFactory(project=team.project, text=TEXT), choice.entity_id, "keep")
    review_scan(project=team.project)
    (item,) = items()

    review_resolve(item=item, actor=team.lead, rationale="Not public.", decision="pseudonymize")
    assert review_scan(project=team.project).total == 0  # gone: nothing to raise

    Span.objects.filter(pk=kept.pk).update(decision="keep")  # the same conflict, once more
    assert review_scan(project=team.project).raised == {ReviewKind.SURFACE_CONFLICT: 1}
    reopened = items()[-1]
    assert reopened.pk != item.pk and reopened.status == ReviewStatus.OPEN


def test_a_dismissed_conflict_stays_quiet_while_it_stays_the_same(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    english = DocumentFactory(project=team.project, text=TEXT)
    accepted(english, choice.entity_id, "keep")
    accepted(DocumentFactory(project=team.project, language="fr", text=FRENCH),
             choice.entity_id, "pseudonymize")  # fmt: skip
    review_scan(project=team.project)
    (item,) = items()
    review_dismiss(item=item, actor=team.lead, rationale="Both are right in context.")
    assert review_scan(project=team.project).total == 0
    # Another language joins the conflict: a new question.
    arabic = DocumentFactory(project=team.project, language="ar", text="Moshe Chaya هنا")
    accepted(arabic, choice.entity_id, "delete")
    assert review_scan(project=team.project).raised == {ReviewKind.KEEP_CONFLICT: 1}


def test_a_refused_choice_is_recorded_for_the_lead_not_lost(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    document = DocumentFactory(project=team.project, text=TEXT)
    span = SpanFactory(document=document, start=12, end=23, source=SpanSource.NER)
    change = SpanChange(decision="keep", keep_reason="a public figure")
    for _ in range(2):
        with pytest.raises(SurfaceConflict):
            span_update(document=document, span_id=span.pk, actor=team.annotator_en,
                        version=span.version, change=change)  # fmt: skip

    (item,) = items()
    span.refresh_from_db()
    assert span.status == SpanStatus.PROPOSED and span.version == 1  # the write rolled back
    assert item.kind == ReviewKind.SURFACE_CONFLICT and item.span == span
    assert item.raised_by == team.annotator_en and item.entity_id == choice.entity_id
    detail = as_a_lead_reads(item)[0]
    assert detail["wanted"] == {"decision": "keep", "replacement": ""}
    assert detail["recorded"] == {"decision": "pseudonymize", "replacement": "Raj Avrom"}
    assert item.detail["recorded"] == {"decision": "pseudonymize"}  # the pseudonym: with the keys
    assert [c.body for c in item.comments.all()] == ["Wanted to keep it: a public figure"]
    # A scan finds the same question already open: nothing twice.
    assert review_scan(project=team.project).total == 0
    assert_no_original(items())


def test_a_refused_choice_on_a_span_a_person_adds_is_recorded_too(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    document = DocumentFactory(project=team.project, text=TEXT)
    with pytest.raises(SurfaceConflict):
        span_create(document=document, actor=team.annotator_en, start=12, end=23, label="PER",
                    decision="keep", keep_reason="a public figure")  # fmt: skip

    assert not Span.objects.filter(document=document).exists()  # the write rolled back
    (item,) = items()
    assert item.kind == ReviewKind.SURFACE_CONFLICT and item.document == document
    assert item.entity_id == choice.entity_id and item.raised_by == team.annotator_en
    assert as_a_lead_reads(item)[0]["wanted"] == {"decision": "keep", "replacement": ""}
    assert_no_original(items())


# --- Resolution -----------------------------------------------------------------------------


@pytest.fixture
def flagged(team: Team) -> dict[str, Any]:
    choice = decide(team, "Moshe Chaya", replacement="Raj Avrom")
    english = DocumentFactory(project=team.project, text=TEXT)
    french = DocumentFactory(project=team.project, language="fr", text=FRENCH)
    mine = accepted(english, choice.entity_id, "pseudonymize")
    theirs = accepted(french, choice.entity_id, "pseudonymize")
    span_update(document=english, span_id=mine.pk, actor=team.annotator_en, version=mine.version,
                change=SpanChange(flag="A well-known singer: keep?"))  # fmt: skip
    (item,) = items(ReviewKind.FLAG)
    return {"choice": choice, "item": item, "mine": mine, "theirs": theirs}


def test_resolving_applies_the_decision_everywhere_and_propagates(
    team: Team, flagged: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    untouched = DocumentFactory(project=team.project, text="And Moshe Chaya again.")
    item, choice = flagged["item"], flagged["choice"]
    versions = {span.pk: span.version for span in Span.objects.all()}

    with django_capture_on_commit_callbacks(execute=True):
        resolved = review_resolve(
            item=item, actor=team.lead, rationale="A public figure.", decision="keep"
        )

    assert resolved.status == ReviewStatus.RESOLVED and resolved.resolved_by == team.lead
    assert resolved.rationale == "A public figure." and resolved.resolved_at is not None
    assert resolved.resolution["action"] == "resolve"
    assert resolved.resolution["decision"] == "keep"
    for span in (flagged["mine"], flagged["theirs"]):
        span.refresh_from_db()
        assert span.decision == "keep" and span.keep_reason == "A public figure."
        assert span.version == versions[span.pk] + 1
    entity = Entity.objects.using(keys_alias()).get(pk=choice.entity_id)
    assert entity.decision == "keep" and entity.version == 2
    now = surface_choice(team.project, "Moshe Chaya")
    assert now is not None and now.decision == "keep" and now.replacement == ""
    word = surface_choice(team.project, "Moshe")  # its words follow the name
    assert word is None or (word.decision == "keep" and word.replacement == "")
    (proposed,) = Span.objects.filter(document=untouched)
    assert proposed.decision == "keep" and proposed.status == SpanStatus.PROPOSED
    event = AuditEvent.objects.get(action=AuditAction.REVIEW_RESOLVE)
    assert event.actor == team.lead and event.target == f"review:{item.pk}"
    assert "moshe" not in json.dumps(event.detail).lower()
    assert_no_original(items())


def test_a_pseudonym_the_lead_types_replaces_the_surfaces_and_its_words(
    team: Team, flagged: dict[str, Any]
) -> None:
    review_resolve(item=flagged["item"], actor=team.lead, rationale="Closer in register.",
                   decision="pseudonymize", replacement="Dov Levi")  # fmt: skip
    chosen = surface_choice(team.project, "Moshe Chaya")
    word = surface_choice(team.project, "Moshe")
    assert chosen is not None and chosen.replacement == "Dov Levi"
    assert word is not None and word.replacement == "Dov"
    assert as_a_lead_reads(flagged["item"])[1]["replacement"] == "Dov Levi"
    assert "replacement" not in flagged["item"].resolution  # kept with the keys


def test_a_pseudonym_found_in_the_corpus_is_refused_and_nothing_changes(
    team: Team, flagged: dict[str, Any]
) -> None:
    with pytest.raises(DomainError, match="occurs in a document"):
        review_resolve(item=flagged["item"], actor=team.lead, rationale="Try.",
                       decision="pseudonymize", replacement="Alphonse Metayer")  # fmt: skip
    flagged["item"].refresh_from_db()
    assert flagged["item"].status == ReviewStatus.OPEN
    chosen = surface_choice(team.project, "Moshe Chaya")
    assert chosen is not None and chosen.replacement == "Raj Avrom"


def test_a_rationale_is_required(team: Team, flagged: dict[str, Any]) -> None:
    with pytest.raises(DomainError, match="rationale"):
        review_resolve(item=flagged["item"], actor=team.lead, rationale="  ", decision="keep")
    with pytest.raises(DomainError, match="rationale"):
        review_dismiss(item=flagged["item"], actor=team.lead, rationale="")
    flagged["item"].refresh_from_db()
    assert flagged["item"].status == ReviewStatus.OPEN
    assert not AuditEvent.objects.filter(action=AuditAction.REVIEW_RESOLVE).exists()


def test_resolving_twice_is_a_conflict(team: Team, flagged: dict[str, Any]) -> None:
    item = flagged["item"]
    stale = ReviewItem.objects.get(pk=item.pk)  # read before the first resolution
    review_dismiss(item=item, actor=team.lead, rationale="Fine as it is.")
    with pytest.raises(ConflictError):
        review_resolve(item=stale, actor=team.admin, rationale="Keep.", decision="keep")
    with pytest.raises(ConflictError):
        review_dismiss(item=stale, actor=team.admin, rationale="Again.")
    item.refresh_from_db()
    assert item.resolved_by == team.lead and item.resolution == {"action": "dismiss"}
    span = flagged["mine"]
    span.refresh_from_db()
    assert span.decision == "pseudonymize"  # a dismissal changes nothing else


def test_a_flagged_proposal_is_accepted_by_the_resolution(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=TEXT)
    span = SpanFactory(document=document, start=28, end=48, label="ADDRESS", source="ner")
    span_update(document=document, span_id=span.pk, actor=team.annotator_en,
                version=span.version, change=SpanChange(flag="Is this a real street?"))  # fmt: skip
    (item,) = items()
    review_resolve(item=item, actor=team.lead, rationale="A real street.",
                   decision="pseudonymize", label="ADDRESS")  # fmt: skip
    span.refresh_from_db()
    assert span.status == SpanStatus.ACCEPTED and span.decided_by == team.lead
    assert span.entity_id is not None
    choice = surface_choice(team.project, "Rue Alphonse Metayer")
    assert choice is not None and choice.entity_id == span.entity_id
    assert choice.replacement and choice.decision == "pseudonymize"


def test_an_unknown_decision_or_label_changes_nothing(team: Team, flagged: dict[str, Any]) -> None:
    with pytest.raises(DomainError, match="unknown decision"):
        review_resolve(item=flagged["item"], actor=team.lead, rationale="x", decision="burn")
    with pytest.raises(DomainError, match="unknown label"):
        review_resolve(item=flagged["item"], actor=team.lead, rationale="x", decision="keep",
                       label="NOPE")  # fmt: skip
    with pytest.raises(DomainError, match="takes no pseudonym"):
        review_resolve(item=flagged["item"], actor=team.lead, rationale="x", decision="keep",
                       replacement="Dov")  # fmt: skip
    entity = Entity.objects.using(keys_alias()).get(pk=flagged["choice"].entity_id)
    assert entity.decision == "pseudonymize" and entity.version == 1
