"""The span service: every change a person makes, through the correspondence table."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction

from annotator.errors import DomainError, NeedsConfirmation, NotFoundError, StaleVersion
from annotator.keys.models import Alias, Entity
from annotator.models import (
    Document,
    DocumentStatus,
    Project,
    ReviewItem,
    ReviewKind,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.services.spans import (
    SpanChange,
    document_locked,
    document_status_set,
    span_create,
    span_delete,
    span_update,
    spans_decide_all,
)
from annotator.services.table import SurfaceConflict, surface_choice, surface_decide
from tests.conftest import Team
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."


def proposal(document: Document, start: int = 12, end: int = 23, label: str = "PER") -> Span:
    return SpanFactory(document=document, start=start, end=end, label=label, source=SpanSource.NER)


@pytest.fixture
def document(team: Team) -> Document:
    return DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.PREANNOTATED)


def test_accepting_a_proposal_records_a_pseudonym_and_the_annotator(
    team: Team, document: Document
) -> None:
    span = proposal(document)
    updated = span_update(
        document=document,
        span_id=span.pk,
        actor=team.annotator_en,
        version=span.version,
        change=SpanChange(status="accepted"),
    )
    assert updated.status == SpanStatus.ACCEPTED
    assert updated.version == span.version + 1
    assert updated.decided_by == team.annotator_en
    assert updated.updated_by == team.annotator_en
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None and choice.entity_id == updated.entity_id
    assert choice.replacement and choice.replacement != "Moshe Chaya"
    document.refresh_from_db()
    assert document.status == DocumentStatus.IN_PROGRESS


def test_the_same_surface_gets_the_same_replacement_whatever_its_case(
    team: Team, document: Document
) -> None:
    first = proposal(document)
    span_update(
        document=document,
        span_id=first.pk,
        actor=team.annotator_en,
        version=1,
        change=SpanChange(replacement="Raj Avrom"),
    )
    other = DocumentFactory(project=team.project, text="MOSHE CHAYA wrote again.")
    second = span_create(document=other, actor=team.annotator_en, start=0, end=11, label="PER")
    assert second.entity_id == Span.objects.get(pk=first.pk).entity_id
    assert Alias.objects.filter(project=team.project, parent__isnull=True).count() == 1


def test_a_person_name_brings_its_token_level_aliases(team: Team, document: Document) -> None:
    span = proposal(document)
    span_update(
        document=document,
        span_id=span.pk,
        actor=team.annotator_en,
        version=1,
        change=SpanChange(replacement="Raj Avrom"),
    )
    moshe = surface_choice(team.project, "Moshe")
    chaya = surface_choice(team.project, "chaya")
    assert moshe is not None and moshe.replacement == "Raj"
    assert chaya is not None and chaya.replacement == "Avrom"
    assert moshe.entity_id == chaya.entity_id == Span.objects.get(pk=span.pk).entity_id


def test_a_word_that_is_not_free_keeps_what_it_had(team: Team) -> None:
    """A word with a choice of its own, or whose piece is someone's pseudonym or an original
    of the project, gets no token-level alias; the free words of the name still do."""
    project = team.project

    def decide(surface: str, replacement: str) -> None:
        surface_decide(
            project=project, surface=surface, language="en", label="PER",
            decision="pseudonymize", replacement=replacement,
        )  # fmt: skip

    decide("Moshe", "Ezra")  # a word with its own choice
    decide("Dana Levi", "Tom Sharon")  # brings "Tom", a piece now in use
    decide("Avrom", "Kalen")  # "Avrom" is an original of the project
    decide("Moshe Chaya Benali Noor", "Raj Tom Avrom Gila")
    choices = {
        word: choice.replacement if (choice := surface_choice(project, word)) else None
        for word in ("Moshe", "Chaya", "Benali", "Noor")
    }
    assert choices == {"Moshe": "Ezra", "Chaya": None, "Benali": None, "Noor": "Gila"}
    assert Alias.objects.filter(project=project, replacement_key="gila").count() == 1


def test_a_typed_pseudonym_used_by_another_surface_is_refused(
    team: Team, document: Document
) -> None:
    span_create(
        document=document, actor=team.annotator_en, start=12, end=23, label="PER",
        replacement="Raj Avrom",
    )  # fmt: skip
    other = DocumentFactory(project=team.project, text="Dana Levi was there.")
    with pytest.raises(DomainError, match="already used or names someone"):
        span_create(
            document=other, actor=team.annotator_en, start=0, end=9, label="PER",
            replacement="raj avrom",
        )  # fmt: skip
    assert not Span.objects.filter(document=other).exists()


def test_a_pseudonym_that_is_an_original_is_refused(team: Team, document: Document) -> None:
    span_create(document=document, actor=team.annotator_en, start=12, end=23, label="PER")
    other = DocumentFactory(project=team.project, text="Dana Levi was there.")
    with pytest.raises(DomainError, match="already used or names someone"):
        span_create(
            document=other, actor=team.annotator_en, start=0, end=9, label="PER",
            replacement="Moshe Chaya",
        )  # fmt: skip


def test_another_decision_for_a_decided_surface_is_a_conflict_with_the_winner(
    team: Team, document: Document
) -> None:
    span_create(
        document=document, actor=team.annotator_en, start=12, end=23, label="PER",
        replacement="Raj Avrom",
    )  # fmt: skip
    other = DocumentFactory(project=team.project, language="fr", text="Moshe Chaya, encore.")
    with pytest.raises(SurfaceConflict) as raised:
        span_create(
            document=other, actor=team.annotator_fr, start=0, end=11, label="PER",
            decision="keep", keep_reason="public figure",
        )  # fmt: skip
    assert raised.value.winner.replacement == "Raj Avrom"
    assert raised.value.winner.decision == "pseudonymize"
    assert not Span.objects.filter(document=other).exists()


def test_an_annotator_may_change_a_choice_nobody_else_relies_on(
    team: Team, document: Document
) -> None:
    span = span_create(
        document=document, actor=team.annotator_en, start=12, end=23, label="PER",
        replacement="Raj Avrom",
    )  # fmt: skip
    changed = span_update(
        document=document,
        span_id=span.pk,
        actor=team.annotator_en,
        version=span.version,
        change=SpanChange(decision="keep", keep_reason="a public figure"),
    )
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None and choice.decision == "keep" and choice.replacement == ""
    assert changed.entity_id == choice.entity_id
    assert Entity.objects.filter(project=team.project).count() == 1


def test_a_stale_version_changes_nothing_and_says_what_the_span_is(
    team: Team, document: Document
) -> None:
    span = proposal(document)
    span_update(
        document=document, span_id=span.pk, actor=team.annotator_en, version=1,
        change=SpanChange(label="ORG"),
    )  # fmt: skip
    with pytest.raises(StaleVersion) as raised:
        span_update(
            document=document, span_id=span.pk, actor=team.lead, version=1,
            change=SpanChange(status="rejected"),
        )  # fmt: skip
    current: Any = raised.value.current
    assert current.version == 2 and current.label == "ORG"
    assert Span.objects.get(pk=span.pk).status == SpanStatus.PROPOSED


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        (-1, 4, "not a span"),
        (5, 5, "not a span"),
        (40, 999, "not a span"),
        (11, 12, "white space"),
        (11, 17, "white space"),
    ],
)
def test_bad_offsets_are_refused(
    team: Team, document: Document, start: int, end: int, message: str
) -> None:
    with pytest.raises(DomainError, match=message):
        span_create(document=document, actor=team.annotator_en, start=start, end=end, label="PER")
    assert not Span.objects.filter(document=document).exists()


def test_a_span_may_not_cut_a_letter_from_its_combining_accent(team: Team) -> None:
    text = "Rene\u0301 Dubois est la\u0300."
    document = DocumentFactory(project=team.project, language="fr", text=text)
    with pytest.raises(DomainError, match=r"cut a character in two.*\[0, 5\)"):
        span_create(document=document, actor=team.annotator_fr, start=0, end=4, label="PER")
    span = span_create(document=document, actor=team.annotator_fr, start=0, end=12, label="PER")
    assert text[span.start : span.end] == "Rene\u0301 Dubois"


# Each text holds a grapheme cluster of several code points; (start, end) cuts it.
CUT_CLUSTERS = [
    pytest.param("Merci Moshe \U0001f44d\U0001f3fd !", (12, 13), id="hand-without-its-tone"),
    pytest.param("Merci Moshe \U0001f44d\U0001f3fd !", (13, 14), id="tone-alone"),
    pytest.param(
        "Moshe \U0001f468\u200d\U0001f469\u200d\U0001f467 a Londres", (6, 8), id="zwj-family"
    ),
    pytest.param("Moshe \U0001f1eb\U0001f1f7 Chaya", (7, 14), id="half-a-flag"),
    pytest.param("موشيه\r\nحايا", (6, 10), id="between-cr-and-lf"),
    pytest.param("موشيه\r\nحايا", (0, 6), id="ending-between-cr-and-lf"),
    pytest.param("مُوشيه حايا", (1, 6), id="arabic-damma-alone"),
]


@pytest.mark.parametrize(("text", "cut"), CUT_CLUSTERS)
def test_a_new_span_that_cuts_a_grapheme_cluster_is_refused(
    team: Team, text: str, cut: tuple[int, int]
) -> None:
    document = DocumentFactory(project=team.project, language="ar", text=text)
    with pytest.raises(DomainError, match="cut a character in two"):
        span_create(document=document, actor=team.lead, start=cut[0], end=cut[1], label="PER")
    assert not Span.objects.filter(document=document).exists()


@pytest.mark.parametrize(("text", "cut"), CUT_CLUSTERS)
def test_moving_an_edge_into_a_grapheme_cluster_is_refused(
    team: Team, text: str, cut: tuple[int, int]
) -> None:
    document = DocumentFactory(project=team.project, language="ar", text=text)
    whole = len(text.rstrip(" !"))
    span = SpanFactory(document=document, start=0, end=whole, label="PER", source=SpanSource.NER)
    with pytest.raises(DomainError, match="cut a character in two"):
        span_update(
            document=document, actor=team.lead, span_id=span.pk, version=span.version,
            change=SpanChange(start=cut[0], end=cut[1]),
        )  # fmt: skip
    unchanged = Span.objects.get(pk=span.pk)
    assert (unchanged.start, unchanged.end, unchanged.version) == (0, whole, span.version)


def test_a_span_of_whole_clusters_is_accepted_around_emoji_flags_and_cr_lf(team: Team) -> None:
    text = "\U0001f44d\U0001f3fd Moshe \U0001f1eb\U0001f1f7\r\nChaya"
    document = DocumentFactory(project=team.project, language="en", text=text)
    hand = span_create(document=document, actor=team.lead, start=0, end=2, label="PER")
    flag = span_create(document=document, actor=team.lead, start=9, end=11, label="LOC")
    chaya = span_create(document=document, actor=team.lead, start=13, end=18, label="PER")
    assert [text[s.start : s.end] for s in (hand, flag, chaya)] == [
        "\U0001f44d\U0001f3fd", "\U0001f1eb\U0001f1f7", "Chaya",
    ]  # fmt: skip


def test_an_unknown_label_is_refused(team: Team, document: Document) -> None:
    with pytest.raises(DomainError, match="unknown label"):
        span_create(document=document, actor=team.annotator_en, start=12, end=23, label="NOPE")


def test_a_span_across_a_persons_span_is_refused_and_proposals_give_way(
    team: Team, document: Document
) -> None:
    kept = span_create(document=document, actor=team.annotator_en, start=12, end=23, label="PER")
    with pytest.raises(DomainError, match="overlaps span"):
        span_create(document=document, actor=team.annotator_en, start=18, end=26, label="PER",
                    confirm=True)  # fmt: skip
    machine = proposal(document, 28, 49, "ADDRESS")
    inside = proposal(document, 32, 40, "PER")  # "Alphonse"
    added = span_create(
        document=document, actor=team.annotator_en, start=28, end=40, label="ADDRESS"
    )
    # The wider proposal keeps what reaches beyond the person's span, proposed: a person
    # decides it, the "." aside (no letter). The one held whole is set aside by nobody.
    rest = Span.objects.get(pk=machine.pk)
    assert (rest.status, TEXT[rest.start : rest.end], rest.version) == (
        SpanStatus.PROPOSED, "Metayer", 2
    )  # fmt: skip
    assert (rest.proposed_start, rest.proposed_end) == (28, 49)  # what the machine proposed
    gone = Span.objects.get(pk=inside.pk)
    assert (gone.status, gone.decided_by_id) == (SpanStatus.REJECTED, None)
    assert gone.updated_by == team.annotator_en
    assert Span.objects.get(pk=kept.pk).status == SpanStatus.ACCEPTED
    assert added.source == SpanSource.HUMAN


def test_a_persons_span_inside_a_proposal_leaves_both_sides_of_it_proposed(
    team: Team, document: Document
) -> None:
    machine = proposal(document, 28, 48, "ADDRESS")  # "Rue Alphonse Metayer"
    span_create(document=document, actor=team.annotator_en, start=32, end=40, label="PER")
    pieces = Span.objects.filter(document=document, status=SpanStatus.PROPOSED).order_by("start")
    assert [(TEXT[s.start : s.end], s.label, s.source) for s in pieces] == [
        ("Rue", "ADDRESS", SpanSource.NER),
        ("Metayer", "ADDRESS", SpanSource.NER),
    ]
    assert pieces[0].pk == machine.pk and pieces[0].entity_id is None


def test_what_another_proposal_already_holds_is_not_proposed_twice(
    team: Team, document: Document
) -> None:
    machine = proposal(document, 28, 48, "ADDRESS")
    surname = proposal(document, 41, 48, "ADDRESS")  # "Metayer", proposed on its own
    span_create(document=document, actor=team.annotator_en, start=28, end=40, label="ADDRESS")
    assert Span.objects.get(pk=machine.pk).status == SpanStatus.REJECTED
    assert Span.objects.get(pk=machine.pk).decided_by_id is None
    assert Span.objects.get(pk=surname.pk).status == SpanStatus.PROPOSED


def test_accepting_all_decides_the_widest_proposal_first_and_what_is_left_of_the_others(
    team: Team, document: Document
) -> None:
    first = proposal(document, 12, 17, "PER")  # "Moshe", from the table, say
    full = proposal(document, 12, 23, "PER")  # "Moshe Chaya"
    street = proposal(document, 28, 40, "ADDRESS")  # "Rue Alphonse"
    longer = proposal(document, 32, 48, "ADDRESS")  # "Alphonse Metayer"
    outcome = spans_decide_all(document=document, actor=team.annotator_en, status="accepted")
    spans = {s.pk: s for s in Span.objects.filter(document=document)}
    assert spans[full.pk].status == SpanStatus.ACCEPTED
    assert (spans[first.pk].status, spans[first.pk].decided_by_id) == (SpanStatus.REJECTED, None)
    assert spans[street.pk].status == SpanStatus.ACCEPTED
    assert (TEXT[spans[longer.pk].start : spans[longer.pk].end], spans[longer.pk].status) == (
        "Metayer", SpanStatus.ACCEPTED
    )  # fmt: skip
    assert not Span.objects.filter(document=document, status=SpanStatus.PROPOSED).exists()
    assert (outcome.changed, outcome.conflicts) == (3, 0)


def test_emoji_and_arabic_offsets_are_code_points(team: Team) -> None:
    text = "👋🏽 مرحبا موشيه حايا في لندن"
    document = DocumentFactory(project=team.project, language="ar", text=text)
    start = text.index("موشيه")
    span = span_create(document=document, actor=team.lead, start=start, end=start + 10, label="PER")
    assert text[span.start : span.end] == "موشيه حايا"


def test_deleting_a_machine_span_rejects_it_and_a_persons_span_goes(
    team: Team, document: Document
) -> None:
    machine = proposal(document)
    span_delete(document=document, span_id=machine.pk, actor=team.annotator_en, version=1)
    assert Span.objects.get(pk=machine.pk).status == SpanStatus.REJECTED
    mine = span_create(
        document=document, actor=team.annotator_en, start=28, end=49, label="ADDRESS"
    )
    span_delete(document=document, span_id=mine.pk, actor=team.annotator_en, version=1)
    assert not Span.objects.filter(pk=mine.pk).exists()
    with pytest.raises(NotFoundError):
        span_delete(document=document, span_id=mine.pk, actor=team.annotator_en, version=1)


def test_flagging_opens_one_review_item_with_each_comment(team: Team, document: Document) -> None:
    span = proposal(document)
    for version, comment in ((1, "Public figure?"), (2, "Seen in the news too")):
        span_update(
            document=document, span_id=span.pk, actor=team.annotator_en, version=version,
            change=SpanChange(flag=comment),
        )  # fmt: skip
    item = ReviewItem.objects.get(span=span)
    assert item.kind == ReviewKind.FLAG and item.raised_by == team.annotator_en
    assert [c.body for c in item.comments.all()] == ["Public figure?", "Seen in the news too"]
    with pytest.raises(DomainError, match="comment"):
        span_update(
            document=document, span_id=span.pk, actor=team.annotator_en, version=3,
            change=SpanChange(flag="  "),
        )  # fmt: skip


def accepted(document: Document, actor: Any, replacement: str | None = None) -> Span:
    span = proposal(document)
    return span_update(
        document=document, span_id=span.pk, actor=actor, version=span.version,
        change=SpanChange(status="accepted", replacement=replacement),
    )  # fmt: skip


@pytest.mark.parametrize(
    "change",
    [
        SpanChange(),
        SpanChange(status="accepted"),
        SpanChange(start=12, end=23, label="PER"),
        SpanChange(decision="pseudonymize", keep_reason=""),
        SpanChange(status="accepted", replacement="Raj Avrom", label="PER"),
    ],
    ids=["nothing", "same-status", "same-offsets-and-label", "same-decision", "same-pseudonym"],
)
def test_a_change_to_what_the_span_already_is_keeps_its_version(
    team: Team, document: Document, change: SpanChange
) -> None:
    span = accepted(document, team.annotator_en, replacement="Raj Avrom")
    before = Span.objects.get(pk=span.pk)
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.DONE)
    answered = span_update(
        document=document, span_id=span.pk, actor=team.lead, version=span.version, change=change
    )
    after = Span.objects.get(pk=span.pk)
    assert answered.version == after.version == before.version
    assert (after.updated_at, after.updated_by, after.decided_by) == (
        before.updated_at, before.updated_by, before.decided_by,
    )  # fmt: skip
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.DONE
    assert surface_choice(team.project, "Moshe Chaya").replacement == "Raj Avrom"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "change",
    [
        SpanChange(flag="Is this a public figure?"),
        SpanChange(replacement="Hubert Couturier"),
        SpanChange(end=17),
        SpanChange(label="ORG"),
        SpanChange(decision="keep", keep_reason="A public figure"),
        SpanChange(status="rejected"),
    ],
    ids=["flag", "another-pseudonym", "moved", "relabelled", "kept", "rejected"],
)
def test_a_change_to_anything_the_span_holds_is_a_new_version(
    team: Team, document: Document, change: SpanChange
) -> None:
    span = accepted(document, team.annotator_en, replacement="Raj Avrom")
    answered = span_update(
        document=document, span_id=span.pk, actor=team.annotator_en, version=span.version,
        change=change,
    )  # fmt: skip
    assert answered.version == Span.objects.get(pk=span.pk).version == span.version + 1
    assert answered.updated_at > span.updated_at


def test_deciding_a_proposal_as_it_would_be_is_still_accepting_it(
    team: Team, document: Document
) -> None:
    span = proposal(document)
    answered = span_update(
        document=document, span_id=span.pk, actor=team.annotator_en, version=span.version,
        change=SpanChange(decision="pseudonymize"),
    )  # fmt: skip
    assert answered.status == SpanStatus.ACCEPTED and answered.version == span.version + 1


def test_a_stale_version_is_refused_even_when_the_change_is_none(
    team: Team, document: Document
) -> None:
    span = accepted(document, team.annotator_en)
    with pytest.raises(StaleVersion):
        span_update(
            document=document, span_id=span.pk, actor=team.lead, version=span.version - 1,
            change=SpanChange(),
        )  # fmt: skip


def test_a_document_is_done_only_when_no_proposal_is_left(team: Team, document: Document) -> None:
    span = proposal(document)
    with pytest.raises(DomainError, match=rf"undecided: span {span.pk}"):
        document_status_set(document=document, actor=team.annotator_en, status="done")
    span_update(
        document=document, span_id=span.pk, actor=team.annotator_en, version=1,
        change=SpanChange(status="rejected"),
    )  # fmt: skip
    done = document_status_set(document=document, actor=team.annotator_en, status="done")
    assert done.status == DocumentStatus.DONE
    with pytest.raises(DomainError, match="set by Cloak"):
        document_status_set(document=document, actor=team.annotator_en, status="reviewed")
    # A decided change keeps a finished document finished (issue 31): the span added is
    # decided, and no proposal is left.
    span_create(document=document, actor=team.annotator_en, start=28, end=49, label="ADDRESS")
    document.refresh_from_db()
    assert document.status == DocumentStatus.DONE
    # Marked in progress by its annotator, it is.
    back = document_status_set(document=document, actor=team.annotator_en, status="in_progress")
    assert back.status == DocumentStatus.IN_PROGRESS


def test_a_keep_needs_a_reason(team: Team, document: Document) -> None:
    with pytest.raises(DomainError, match="why"):
        span_create(
            document=document, actor=team.annotator_en, start=12, end=23, label="PER",
            decision="keep",
        )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_a_span_write_locks_its_document_and_not_the_project() -> None:
    """Annotators of one project write at once: a write holds its document's row, never the
    project's (a FOR UPDATE over the join with the project would queue every write of the
    project behind one another)."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need a database with concurrent writers")
    project = ProjectFactory(languages=["en"])
    first, second = (DocumentFactory(project=project, text="Moshe Chaya") for _ in range(2))
    holding, checked = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def other_writer() -> None:
        holding.wait(timeout=30)
        try:
            with transaction.atomic():
                for name, model, pk in (
                    ("project", Project, project.pk),
                    ("other document", Document, second.pk),
                    ("same document", Document, first.pk),
                ):
                    try:
                        with transaction.atomic():
                            model.objects.select_for_update(nowait=True).get(pk=pk)
                        seen[name] = "free"
                    except DatabaseError:
                        seen[name] = "locked"
        finally:
            connection.close()
            checked.set()

    thread = threading.Thread(target=other_writer)
    thread.start()
    with transaction.atomic():
        document_locked(first)
        holding.set()
        checked.wait(timeout=30)
    thread.join(timeout=30)
    assert seen == {"project": "free", "other document": "free", "same document": "locked"}


def test_one_surface_has_one_label_an_accepted_proposal_follows_its_entity(
    team: Team, document: Document
) -> None:
    """Issue 29, 7: NER's ORG on a surface decided as a person takes the person's label; a
    span added with another label on it is refused and changes nothing."""
    decided = span_create(document=document, actor=team.annotator_en, start=12, end=23,
                          label="PER")  # fmt: skip
    other = DocumentFactory(project=team.project, text="Moshe Chaya again.")
    org = SpanFactory(
        document=other, start=0, end=11, label="ORG", source=SpanSource.NER, proposed_label="ORG"
    )

    accepted = span_update(document=other, span_id=org.pk, actor=team.annotator_en,
                           version=org.version, change=SpanChange(status="accepted"))  # fmt: skip

    assert (accepted.label, accepted.entity_id) == ("PER", decided.entity_id)
    assert Span.objects.get(pk=org.pk).label == "PER"
    assert Span.objects.get(pk=org.pk).proposed_label == "ORG"  # what the machine said stays
    third = DocumentFactory(project=team.project, text="Ask Moshe Chaya.")
    with pytest.raises(SurfaceConflict, match="this surface is PER in the project"):
        span_create(document=third, actor=team.annotator_en, start=4, end=15, label="ORG")
    assert not Span.objects.filter(document=third).exists()
    proposal_org = SpanFactory(document=third, start=4, end=15, label="ORG", source=SpanSource.NER)
    with pytest.raises(SurfaceConflict, match="one surface, one label"):
        span_update(document=third, span_id=proposal_org.pk, actor=team.annotator_en,
                    version=proposal_org.version,
                    change=SpanChange(status="accepted", label="LOC"))  # fmt: skip
    assert Span.objects.get(pk=proposal_org.pk).status == SpanStatus.PROPOSED


def test_deciding_less_than_a_word_asks_for_confirmation_and_changes_nothing_without_it(
    team: Team,
) -> None:
    """Issue 29, 4: a single letter or a piece of a word becomes a table original only once a
    person confirms it; accepting everything leaves such a proposal for them."""
    text = "L\u00adeclerc wrote from P\u200bennycuick to ولندن."
    document = DocumentFactory(project=team.project, text=text)
    with pytest.raises(NeedsConfirmation, match="a single letter or digit"):
        span_create(document=document, actor=team.annotator_en, start=0, end=1, label="PER")
    piece = text.index("ennycuick")
    proposal_piece = proposal(document, piece, piece + 9, "PER")
    with pytest.raises(NeedsConfirmation, match="part of a word"):
        span_update(
            document=document, span_id=proposal_piece.pk, actor=team.annotator_en,
            version=proposal_piece.version, change=SpanChange(status="accepted"),
        )  # fmt: skip
    assert not Span.objects.filter(document=document, source=SpanSource.HUMAN).exists()
    assert Span.objects.get(pk=proposal_piece.pk).status == SpanStatus.PROPOSED

    outcome = spans_decide_all(document=document, actor=team.annotator_en, status="accepted")
    assert (outcome.changed, outcome.conflicts) == (0, 1)

    accepted = span_update(document=document, span_id=proposal_piece.pk,
                           actor=team.annotator_en, version=proposal_piece.version,
                           change=SpanChange(status="accepted", confirm=True))  # fmt: skip
    assert accepted.status == SpanStatus.ACCEPTED
    letter = span_create(document=document, actor=team.annotator_en, start=0, end=1,
                         label="PER", confirm=True)  # fmt: skip
    assert letter.entity_id is not None
    london = text.index("لندن")  # after a proclitic: a whole name
    assert span_create(document=document, actor=team.annotator_en, start=london,
                       end=london + 4, label="LOC")  # fmt: skip
