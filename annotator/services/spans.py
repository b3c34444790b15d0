"""Every change a person makes to a span, and a document's status: one service for the pages,
the API and the tests.

Each write locks the document row, checks the span's `version` (a stale one raises
`StaleVersion` with the span as it is now: never a silent overwrite), validates offsets and
labels against the document and the project, records who and when, and moves the document's
status along (new or pre-annotated → in progress on the first change; done only when no
proposal is left). A span accepted with a decision goes through the correspondence table
(`annotator.services.table.surface_decide`), so one surface has one choice in the project; a
choice new to the table is then proposed everywhere else it occurs (propagation, a task).
What a write sets off beyond the span (propagation, learning's counters, the quality numbers,
the lead's review of a refused choice) is listed, in order, in one place:
`annotator.services.after_decision`, which each write calls once with what it did.
A replica (blind double annotation, `annotator.services.double_annotation`) keeps its
decisions on its spans: they never reach the table, and the table's choices are not shown on
it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F, IntegerField, Q, Subquery, Value
from django.db.models.expressions import Combinable
from django.db.models.functions import Coalesce, Greatest, Least
from django.utils import timezone

from annotator.errors import (
    DomainError,
    NeedsConfirmation,
    NotFoundError,
    StaleVersion,
)
from annotator.models import (
    Comment,
    Document,
    DocumentStatus,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
    Span,
    SpanSource,
    SpanStatus,
    span_held_by_person,
)
from annotator.permissions import acting_user, acting_user_id
from annotator.services import after_decision
from annotator.services.decision_rules import check_decision
from annotator.services.span_events import Decided, NewChoice, Refused
from annotator.services.table import (
    SUGGESTIONS,
    Choice,
    SurfaceConflict,
    entity_withdraw,
    span_relabel,
    suggestions_for,
    surface_choice,
    surface_choices,
    surface_decide,
)
from pseudonymizer import graphemes
from pseudonymizer.detection_check import covered
from pseudonymizer.edges import less_than_a_word
from pseudonymizer.vocabulary import Decision

MAX_COMMENT = 5000
# Statuses a change to a span moves a document out of.
_REOPENED = (DocumentStatus.NEW, DocumentStatus.PREANNOTATED, DocumentStatus.DONE)


@dataclass(frozen=True)
class SpanChange:
    """What a person asks of a span; None leaves a field as it is.

    Setting a decision or a replacement on a proposal accepts it. `flag` raises a review
    item for the lead with that comment.
    """

    status: str | None = None
    label: str | None = None
    start: int | None = None
    end: int | None = None
    decision: str | None = None
    keep_reason: str | None = None
    replacement: str | None = None
    flag: str | None = None
    # The person confirmed a decision of less than a word (`_check_whole`), or a relabel that
    # every span of the entity follows (`span_entity_relabel`).
    confirm: bool = False


def document_locked(document: Document) -> Document:
    """The document row, locked until the transaction ends: writes to one document queue.

    Only the document's row (`of=("self",)`): a plain FOR UPDATE over the join with the
    project would lock the project's row too, and queue every write of every annotator of
    the project behind one another. The folded search text is not read: spans never need it.
    """
    return (
        Document.objects.select_for_update(of=("self",))
        .select_related("project")
        .defer("search_text")
        .get(pk=document.pk)
    )


_GONE = (
    "This span is no longer in the document (a run or another person removed or "
    "replaced it), or never was: list the document's spans again."
)


def _locked_span(document: Document, span_id: int) -> Span:
    span = Span.objects.select_for_update().filter(document=document, pk=span_id).first()
    if span is None:
        raise NotFoundError(_GONE)
    return span


@dataclass(frozen=True)
class Nearby:
    """Spans of one document that this transaction read under lock: every span that overlaps
    [low, high), and those the reader named (the span being changed). A write that needs the
    spans around a place within [low, high) takes them from here instead of reading them
    again; they are as read until the write changes them."""

    low: int
    high: int
    spans: tuple[Span, ...]

    def span(self, span_id: int) -> Span:
        """The span `span_id`; NotFoundError when the read did not find it (it is gone)."""
        return span_among(self.spans, span_id)

    def overlapping(self, start: int, end: int) -> list[Span] | None:
        """The spans that overlap [start, end); None when [start, end) reaches outside what
        was read."""
        if start < self.low or end > self.high:
            return None
        return [span for span in self.spans if span.start < end and span.end > start]


def span_among(spans: Iterable[Span], span_id: int) -> Span:
    """The span `span_id` of those read; NotFoundError when the read did not find it (it is
    gone)."""
    for span in spans:
        if span.pk == span_id:
            return span
    raise NotFoundError(_GONE)


def span_reach(
    document: Document, span_id: int, change: SpanChange
) -> tuple[Combinable, Combinable]:
    """Where a change to the span may act, as expressions a query compares offsets with: the
    span's place as it is in the database, and the place the change gives it. Null when the
    span is gone."""
    place = Span.objects.filter(document=document, pk=span_id).order_by()  # by its key
    low: Combinable = Subquery(place.values("start")[:1], output_field=IntegerField())
    high: Combinable = Subquery(place.values("end")[:1], output_field=IntegerField())
    if change.start is not None:
        low = Least(low, Value(change.start), output_field=IntegerField())
    if change.end is not None:
        high = Greatest(high, Value(change.end), output_field=IntegerField())
    return low, high


def reach_of(span: Span, change: SpanChange) -> tuple[int, int]:
    """`span_reach` of `span` as read."""
    start = span.start if change.start is None else min(span.start, change.start)
    end = span.end if change.end is None else max(span.end, change.end)
    return start, end


def spans_near(document: Document, span_id: int, change: SpanChange) -> Nearby:
    """The span `span_id` and every span of the document that overlaps it or the place
    `change` gives it, locked, in one query (the document's row is locked already).
    NotFoundError when the span is gone."""
    low, high = span_reach(document, span_id, change)
    spans = tuple(
        Span.objects.select_for_update()
        .filter(document=document)
        .filter(Q(pk=span_id) | Q(start__lt=high, end__gt=low))
        .order_by("pk")
    )
    return Nearby(*reach_of(span_among(spans, span_id), change), spans)


def _check_version(span: Span, version: int | None) -> None:
    if version is None:
        raise DomainError("give the span's version (the one you read) to change it")
    if version != span.version:
        raise StaleVersion(
            f"the span changed since you read it (version {version}, now {span.version})",
            span,
        )


def _check_offsets(text: str, start: int, end: int) -> None:
    if start < 0 or end > len(text) or start >= end:
        raise DomainError(
            f"offsets [{start}, {end}) are not a span of this document "
            f"(0 ≤ start < end ≤ {len(text)}, in code points)"
        )
    # Half a character would show a hand without its skin tone, an accent on the pseudonym:
    # a span holds whole grapheme clusters (pseudonymizer.graphemes), and says which.
    whole = graphemes.widen(text, start, end)
    if whole != (start, end):
        raise DomainError(
            f"offsets [{start}, {end}) cut a character in two (a letter and its accent, an "
            f"emoji and its modifier or joined parts, a flag, CR LF): the whole characters "
            f"are [{whole[0]}, {whole[1]})"
        )
    if not text[start:end].strip():
        raise DomainError(f"offsets [{start}, {end}) cover only white space")
    if text[start].isspace() or text[end - 1].isspace():
        raise DomainError(f"offsets [{start}, {end}) begin or end with white space")


def _check_label(document: Document, label: str) -> None:
    labels = document.project.labels
    if label not in labels:
        raise DomainError(f"unknown label {label!r}; the project's labels are {', '.join(labels)}")


def _check_whole(document: Document, start: int, end: int, confirm: bool) -> None:
    """Refuse to decide less than a word (a single letter, a piece of a word) unless the
    person confirmed it: its surface would be looked for in every document, and found in
    every word it begins (`pseudonymizer.edges.less_than_a_word`). A replica's decisions
    never reach the table: nothing to confirm."""
    if confirm or document.is_blind:
        return
    reason = less_than_a_word(document.text, start, end)
    if reason:
        raise NeedsConfirmation(
            f"[{start}, {end}) is {reason}: decided, it would be looked for in every document "
            "and found inside other words. Widen it to the whole word, or confirm to decide "
            "it as it is."
        )


def _proposals_give_way(
    document: Document,
    start: int,
    end: int,
    actor: Any,
    keep: int | None,
    nearby: Nearby | None = None,
) -> None:
    """Refuse a span across another person's span; make room among the proposals it overlaps.

    A proposal is an alternative to the new span only where the two overlap. What reaches
    beyond it stays proposed, for a person to decide: NER's "Ottoline Postlethwaite" becomes
    "Postlethwaite" when a person adds "Ottoline" (and two proposals, one each side, when the
    new span lies inside it). A proposal with nothing left beyond it (no letter, mark or digit:
    `pseudonymizer.detection_check.covered`), or whose rest another span already proposes, is
    set aside: rejected, and by no person (`decided_by` stays empty), so that a release never
    counts it as something a person saw (`annotator.services.releases`).

    The spans it overlaps are taken from `nearby` when that read holds [start, end).
    """
    read = nearby.overlapping(start, end) if nearby is not None else None
    if read is None:
        read = list(
            Span.objects.select_for_update()
            .filter(document=document, start__lt=end, end__gt=start)
            .exclude(status=SpanStatus.REJECTED)
        )
    overlapping = [
        other for other in read if other.status != SpanStatus.REJECTED and other.pk != keep
    ]
    proposals = []
    for other in overlapping:
        if span_held_by_person(other.status, other.source):
            raise DomainError(
                f"[{start}, {end}) overlaps span {other.pk} [{other.start}, {other.end}), "
                "which a person decided: change that span instead"
            )
        proposals.append(other)
    if not proposals:
        return
    now = timezone.now()
    set_aside = []
    for other in proposals:
        rest = _rest(document, other, start, end, keep)
        if not rest:
            set_aside.append(other.pk)
            continue
        # A new version: a form still holding the proposal whole cannot accept it whole. A
        # piece is another surface than the table's choice the proposal carried: it carries
        # none, and its decision is the person's to make.
        fresh = {"entity_id": None, "decision": Decision.PSEUDONYMIZE.value, "keep_reason": ""}
        (first_start, first_end), *others = rest
        Span.objects.filter(pk=other.pk).update(
            start=first_start,
            end=first_end,
            # What the machine proposed stays what it proposed (the old row's columns).
            proposed_start=Coalesce("proposed_start", "start"),
            proposed_end=Coalesce("proposed_end", "end"),
            updated_at=now,
            version=F("version") + 1,
            **fresh,
        )
        for piece_start, piece_end in others:
            Span.objects.create(
                document=document, start=piece_start, end=piece_end, label=other.label,
                source=other.source, sources=other.sources, score=other.score,
                run_id=other.run_id, proposed_start=piece_start, proposed_end=piece_end,
                proposed_label=other.label, **fresh,
            )  # fmt: skip
    if set_aside:
        Span.objects.filter(pk__in=set_aside).update(
            status=SpanStatus.REJECTED,
            decided_by=None,
            decided_at=now,
            updated_by=actor,
            updated_at=now,
            entity_id=None,
            version=F("version") + 1,
        )


def _rest(
    document: Document, proposal: Span, start: int, end: int, keep: int | None
) -> list[tuple[int, int]]:
    """The stretches of `proposal` that [start, end) leaves nobody's decision, as whole
    characters, less those another span of the document (not rejected) already holds with the
    same label."""
    text = document.text
    stretches = [
        graphemes.widen(text, piece_start, piece_end)
        for piece_start, piece_end in covered(text, proposal.start, proposal.end, [(start, end)])
    ]
    if not stretches:
        return []
    held = set(
        Span.objects.filter(document=document, label=proposal.label)
        .exclude(status=SpanStatus.REJECTED)
        .exclude(pk__in=[pk for pk in (proposal.pk, keep) if pk is not None])
        .filter(start__lt=max(e for _, e in stretches), end__gt=min(s for s, _ in stretches))
        .values_list("start", "end")
    )
    return [stretch for stretch in stretches if stretch not in held]


def document_touched(document: Document) -> None:
    """A person changed a span: the document is in progress, unless it was done and nothing
    in it is left undecided (a finished document whose edge was moved, whose pseudonym was
    changed, stays finished and in the next release; one with a proposal left undecided by
    the change goes back to work, and the page says so)."""
    if (
        document.status == DocumentStatus.DONE
        and not Span.objects.for_document(document).proposed().exists()
    ):
        return
    if document.status in _REOPENED:
        Document.objects.filter(pk=document.pk).update(
            status=DocumentStatus.IN_PROGRESS, updated_at=timezone.now()
        )
        document.status = DocumentStatus.IN_PROGRESS


def span_choice_record(
    span: Span,
    document: Document,
    actor: Any,
    replacement: str | None,
    *,
    label_asked: bool = False,
) -> Choice | None:
    """Record the span's decision for its surface in the correspondence table. A replica's
    decision stays on its span (None): a second annotation is measured, never a choice of
    the project, so it neither writes the table nor propagates.

    One surface has one label in the project: a span whose surface the table holds under
    another label takes the entity's label (an NER "ORG" accepted on a surface decided as a
    person), unless the person asked for its label in this very write (`label_asked`: a span
    added, a label chosen), which is then refused (SurfaceConflict: 409), as a relabel of a
    decided span is."""
    if document.is_blind:
        span.entity_id = None
        return None
    previous = span.entity_id
    choice = surface_decide(
        project=document.project,
        surface=document.text[span.start : span.end],
        language=document.language,
        label=span.label,
        decision=span.decision,
        replacement=replacement,
        keep_reason=span.keep_reason,
        actor=actor,
        span_id=span.pk,
    )
    if not choice.created and choice.label != span.label:
        if label_asked:
            raise SurfaceConflict(
                f"this surface is {choice.label} in the project (one surface, one label): "
                f"label it {choice.label}, or ask a lead to change the entity's label",
                choice,
            )
        span.label = choice.label
    span.entity_id = choice.entity_id
    if previous is not None and previous != choice.entity_id:
        orphan_withdraw(document, previous, actor, span)
    return choice


def _publish(
    document: Document,
    actor: Any,
    span_id: int | None = None,
    choice: Choice | None = None,
    *,
    done: bool = False,
) -> None:
    """Set off what follows this write (`annotator.services.after_decision`): once per write,
    inside its transaction (what follows defers what it sends to its commit)."""
    new: tuple[NewChoice, ...] = ()
    if choice is not None and choice.created and span_id is not None:
        new = (NewChoice(alias_id=choice.alias_id, span_id=span_id),)
    after_decision.decided(
        Decided(
            project=document.project,
            document_id=document.pk,
            language=document.language,
            replica=document.is_blind,
            actor_id=acting_user_id(actor),
            span_ids=() if span_id is None else (span_id,),
            new_choices=new,
            done=done,
        )
    )


def orphan_withdraw(document: Document, entity_id: int, actor: Any, span: Span) -> None:
    """The span no longer holds the surface its entity names: the person's own choice leaves
    the table if nothing else relies on it (`entity_withdraw`)."""
    if not document.is_blind:
        entity_withdraw(project=document.project, entity_id=entity_id, actor=actor,
                        span_id=span.pk)  # fmt: skip


def span_entity_relabel(
    document: Document,
    span: Span,
    actor: Any,
    *,
    was: str,
    confirm: bool,
    back: str | None = None,
) -> None:
    """A decided span took another label: its entity follows, with a pseudonym drawn for the
    label, or its surface moves to an entity of the label (`span_relabel`). Where other
    spans hold the entity (a proposal in another language the person cannot see included),
    the person confirms first: one stray key relabelled a person everywhere (issue 31, 3).
    `back`: the pseudonym the surface had under the new label (an undo). A replica's label
    stays on its span."""
    if document.is_blind or span.entity_id is None:
        return
    if not confirm:
        others = (
            Span.objects.filter(document__project_id=document.project_id, entity_id=span.entity_id)
            .exclude(pk=span.pk)
            .exclude(status=SpanStatus.REJECTED)
        )
        held = list(others.values_list("document_id", "document__language"))
        if held:
            documents = {document_id for document_id, _ in held}
            languages = ", ".join(sorted({language for _, language in held}))
            raise NeedsConfirmation(
                f"this {was} is held by {len(held)} other span{_s(len(held))} in "
                f"{len(documents)} document{_s(len(documents))} ({languages}): relabelling "
                f"it {span.label} relabels them all and draws their pseudonyms again. Confirm "
                "to relabel it everywhere, or flag this span for the lead.",
                action=f"Relabel it {span.label} everywhere",
            )
    span.entity_id = span_relabel(
        project=document.project, span_id=span.pk, entity_id=span.entity_id,
        surface=document.text[span.start : span.end], label=span.label, actor=actor,
        back=back,
    )  # fmt: skip


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def _flag(span: Span, document: Document, actor: Any, comment: str) -> None:
    comment = comment.strip()
    if not comment:
        raise DomainError("a flag needs a comment for the lead")
    if len(comment) > MAX_COMMENT:
        raise DomainError(f"a comment is at most {MAX_COMMENT} characters")
    item = ReviewItem.objects.filter(
        span=span, kind=ReviewKind.FLAG, status=ReviewStatus.OPEN
    ).first()
    if item is None:
        item = ReviewItem.objects.create(
            project=document.project,
            kind=ReviewKind.FLAG,
            document=document,
            span=span,
            entity_id=span.entity_id,
            raised_by=actor,
        )
    Comment.objects.create(review_item=item, author=actor, body=comment)


def span_create(
    *,
    document: Document,
    actor: Any,
    start: int,
    end: int,
    label: str,
    decision: str = Decision.PSEUDONYMIZE,
    keep_reason: str = "",
    replacement: str | None = None,
    confirm: bool = False,
) -> Span:
    """Add a span a person found (accepted, source `human`) and record its decision. A
    decision or pseudonym the person chose that the table refuses (SurfaceConflict) is
    recorded for the lead's review, once the refused write has rolled back, as `span_update`
    does. Less than a word needs `confirm` (NeedsConfirmation)."""
    try:
        with transaction.atomic():
            return _create_locked(
                document_locked(document), actor=actor, start=start, end=end, label=label,
                decision=decision, keep_reason=keep_reason, replacement=replacement,
                confirm=confirm,
            )  # fmt: skip
    except SurfaceConflict as conflict:
        if replacement is not None or decision != Decision.PSEUDONYMIZE:
            after_decision.refused(Refused(
                document=document, actor=acting_user(actor), conflict=conflict, decision=decision,
                replacement=replacement, keep_reason=keep_reason, start=start, end=end,
            ))  # fmt: skip
        raise


def _create_locked(
    document: Document,
    *,
    actor: Any,
    start: int,
    end: int,
    label: str,
    decision: str,
    keep_reason: str,
    replacement: str | None,
    confirm: bool = False,
) -> Span:
    user = acting_user(actor)
    _check_offsets(document.text, start, end)
    _check_label(document, label)
    keep_reason = check_decision(decision, keep_reason)
    _check_whole(document, start, end, confirm)
    _proposals_give_way(document, start, end, user, keep=None)
    now = timezone.now()
    span = Span(
        document=document,
        start=start,
        end=end,
        label=label,
        source=SpanSource.HUMAN,
        status=SpanStatus.ACCEPTED,
        decision=decision,
        keep_reason=keep_reason,
        created_by=user,
        decided_by=user,
        decided_at=now,
        updated_by=user,
    )
    span.save()
    choice = span_choice_record(span, document, user, replacement, label_asked=True)
    span.save(update_fields=["entity_id", "label"])
    document_touched(document)
    _publish(document, user, span.pk, choice)
    return span


def span_update(
    *, document: Document, span_id: int, actor: Any, version: int | None, change: SpanChange
) -> Span:
    """Apply `change` to the span, or raise (DomainError, StaleVersion, NotFoundError)
    having changed nothing. A decision or pseudonym the table refuses (SurfaceConflict) is
    recorded for the lead's review, once the refused write has rolled back."""
    try:
        with transaction.atomic():
            locked = document_locked(document)
            return _update_locked(
                locked, span_id=span_id, actor=actor, version=version, change=change,
                nearby=spans_near(locked, span_id, change),
            )  # fmt: skip
    except SurfaceConflict as conflict:
        span_update_refused(
            document=document, actor=actor, span_id=span_id, change=change, conflict=conflict
        )
        raise


def span_update_locked(
    *,
    document: Document,
    nearby: Nearby,
    span_id: int,
    actor: Any,
    version: int | None,
    change: SpanChange,
) -> Span:
    """`span_update` in the caller's transaction, which holds the document's row lock and has
    read under lock the span and those around it (`nearby`: the span, and every span that
    overlaps its place and the place `change` gives it), so that none is read again; no
    savepoint of its own. Refused, it raises having recorded nothing: the caller rolls its
    transaction back, then records a refusal the table made (`span_update_refused`)."""
    return _update_locked(
        document, span_id=span_id, actor=actor, version=version, change=change, nearby=nearby
    )


def span_update_refused(
    *, document: Document, actor: Any, span_id: int, change: SpanChange, conflict: SurfaceConflict
) -> None:
    """Record for the lead's review a decision, pseudonym or relabel of a decided span that
    the table refused (`conflict`), once the refused write has rolled back; nothing for
    another change (an accept whose surface is decided otherwise is no one's choice yet)."""
    # A decided span's relabel the table refused is the lead's too (`span_entity_relabel`).
    relabel = change.label is not None and change.status is None
    if change.decision is not None or change.replacement is not None or relabel:
        after_decision.refused(Refused(
            document=document, actor=acting_user(actor), conflict=conflict, span_id=span_id,
            decision=change.decision, replacement=change.replacement,
            keep_reason=change.keep_reason or "",
        ))  # fmt: skip


def _update_locked(
    document: Document,
    *,
    span_id: int,
    actor: Any,
    version: int | None,
    change: SpanChange,
    nearby: Nearby | None = None,
) -> Span:
    """`span_update` on a document whose row this transaction has locked already (and the
    spans around the span, when `nearby` holds them)."""
    span = nearby.span(span_id) if nearby is not None else _locked_span(document, span_id)
    _check_version(span, version)
    if _changes_nothing(document, span, change):
        # A form sent twice, or saved without an edit, is not a new version: another
        # annotator's form still holding this version stays valid.
        return span
    user = acting_user(actor)
    now = timezone.now()
    fields = {"version", "updated_by", "updated_at"}
    decided = span.decision if span.status == SpanStatus.ACCEPTED else None

    status = change.status
    if status is not None and status not in SpanStatus.values:
        raise DomainError(f"unknown status {status!r}; statuses are {', '.join(SpanStatus)}")
    deciding = change.decision is not None or change.replacement is not None
    if status is None and deciding and span.status == SpanStatus.PROPOSED:
        status = SpanStatus.ACCEPTED  # choosing what happens to a proposal accepts it
    if status == SpanStatus.PROPOSED and span.status != SpanStatus.PROPOSED:
        raise DomainError("a decided span cannot become a proposal again")
    if status == SpanStatus.REJECTED and deciding:
        raise DomainError("a rejected span takes no decision or replacement")

    moved = change.start is not None or change.end is not None
    if moved:
        start = span.start if change.start is None else change.start
        end = span.end if change.end is None else change.end
        _check_offsets(document.text, start, end)
        span.start, span.end = start, end
        fields |= {"start", "end"}
    was = span.label
    if change.label is not None and change.label != span.label:
        _check_label(document, change.label)
        span.label = change.label
        fields.add("label")
    if change.decision is not None or change.keep_reason is not None:
        decision = span.decision if change.decision is None else change.decision
        keep_reason = span.keep_reason if change.keep_reason is None else change.keep_reason
        span.keep_reason = check_decision(decision, keep_reason)
        span.decision = decision
        fields |= {"decision", "keep_reason"}
    if status is not None and status != span.status:
        span.status = status
        span.decided_by, span.decided_at = user, now
        fields |= {"status", "decided_by", "decided_at"}

    final = span.status
    accepting = "status" in fields and final == SpanStatus.ACCEPTED
    if (moved or accepting) and final == SpanStatus.ACCEPTED:
        _check_whole(document, span.start, span.end, change.confirm)
    if (moved or accepting) and final != SpanStatus.REJECTED:
        # An accepted span is a person's: it may not overlap another person's, and the
        # proposals it overlaps (alternatives to it) are rejected.
        _proposals_give_way(document, span.start, span.end, user, keep=span.pk, nearby=nearby)
    relabelled = "label" in fields and not moved and change.replacement is None
    if relabelled and final == SpanStatus.ACCEPTED and decided == span.decision:
        # A decided span relabelled, its surface and decision as they were: the table
        # follows the label. (A new surface, decision or pseudonym is a new choice.)
        span_entity_relabel(document, span, user, was=was, confirm=change.confirm)
    choice = None
    if final == SpanStatus.REJECTED:
        if span.entity_id is not None:
            orphan_withdraw(document, span.entity_id, user, span)
        span.entity_id = None
        fields.add("entity_id")
    elif final == SpanStatus.ACCEPTED and (
        deciding or moved or "status" in fields or "label" in fields or span.entity_id is None
    ):
        label = span.label
        choice = span_choice_record(
            span, document, user, change.replacement, label_asked=change.label is not None
        )
        fields.add("entity_id")
        if span.label != label:
            fields.add("label")
    if change.flag is not None:
        _flag(span, document, user, change.flag)

    span.version += 1
    span.updated_by = user
    span.updated_at = now
    span.save(update_fields=sorted(fields))
    document_touched(document)
    _publish(document, user, span.pk, choice)
    return span


def _changes_nothing(document: Document, span: Span, change: SpanChange) -> bool:
    """Whether `change` asks for what `span` already is: each field given equals the span's,
    a replacement is the table's choice already linked to it, and there is no flag (a flag
    is a new comment for the lead). Anything doubtful counts as a change, and goes through
    the checks of `_update_locked`."""
    if change.flag is not None:
        return False
    given = {
        "status": change.status,
        "start": change.start,
        "end": change.end,
        "label": change.label,
        "decision": change.decision,
        "keep_reason": change.keep_reason,
    }
    if any(value is not None and value != getattr(span, name) for name, value in given.items()):
        return False
    deciding = change.decision is not None or change.replacement is not None
    if deciding and span.status != SpanStatus.ACCEPTED:
        return False  # a decision accepts a proposal, and a rejected span refuses one
    if document.is_blind:
        return True  # a replica's replacement is never recorded (`span_choice_record`)
    if span.status == SpanStatus.ACCEPTED and span.entity_id is None:
        return False  # accepted without its entity: the update links it to the table
    if change.replacement is None:
        return True
    choice = surface_choice(document.project, document.text[span.start : span.end])
    return (
        choice is not None
        and choice.entity_id == span.entity_id
        and choice.replacement == change.replacement
    )


@transaction.atomic
def span_delete(*, document: Document, span_id: int, actor: Any, version: int | None) -> None:
    """Remove a span a person added; a machine or imported span is rejected instead, so that
    the next pre-annotation run does not propose it again."""
    document = document_locked(document)
    span = _locked_span(document, span_id)
    _check_version(span, version)
    user = acting_user(actor)
    if span.entity_id is not None:
        orphan_withdraw(document, span.entity_id, user, span)
    if span.source == SpanSource.HUMAN:
        span.delete()
    else:
        now = timezone.now()
        Span.objects.filter(pk=span.pk).update(
            status=SpanStatus.REJECTED,
            entity_id=None,
            decided_by=user,
            decided_at=now,
            updated_by=user,
            updated_at=now,
            version=span.version + 1,
        )
    document_touched(document)
    _publish(document, user, span_id)


@dataclass(frozen=True)
class BulkOutcome:
    changed: int
    # Proposals whose surface the project decided otherwise: each is left for a person.
    conflicts: int


@transaction.atomic
def spans_decide_all(
    *,
    document: Document,
    actor: Any,
    status: str,
    label: str | None = None,
    source: str | None = None,
) -> BulkOutcome:
    """Accept or reject every proposal of `document` (of `label`, of `source`), each as one
    person's decision through `span_update`. A proposal whose surface already has another
    choice in the correspondence table, or that overlaps a span a person decided, stays a
    proposal, counted in `conflicts`."""
    if status not in (SpanStatus.ACCEPTED, SpanStatus.REJECTED):
        raise DomainError("proposals can be accepted or rejected together, nothing else")
    document = document_locked(document)
    proposals = Span.objects.for_document(document).proposed()
    if label:
        proposals = proposals.filter(label=label)
    if source:
        proposals = proposals.filter(source=source)
    changed = conflicts = 0
    tried: set[int] = set()
    while True:
        # The widest proposal first where several start together: accepting "Ottoline" before
        # "Ottoline Postlethwaite" would leave "Postlethwaite" to decide alone. A decision
        # trims the proposals it overlaps (a new version) or sets them aside: those are read
        # again in the next pass, with the pieces it made.
        pending = list(
            proposals.exclude(pk__in=tried)
            .order_by("start", "-end", "id")
            .values_list("pk", "version")
        )
        if not pending:
            break
        for span_id, version in pending:
            try:
                # A savepoint each, so a conflict undoes that span alone; the document stays
                # locked (and read) once for all of them.
                with transaction.atomic():
                    change = SpanChange(status=status)
                    _update_locked(
                        document,
                        span_id=span_id,
                        actor=actor,
                        version=version,
                        change=change,
                        nearby=spans_near(document, span_id, change),
                    )
            except StaleVersion:
                continue  # trimmed or set aside by an earlier decision of this pass
            except (SurfaceConflict, DomainError):
                # Decided otherwise in the project, or across a span a person decided.
                conflicts += 1
            else:
                changed += 1
            tried.add(span_id)
    return BulkOutcome(changed=changed, conflicts=conflicts)


@transaction.atomic
def document_status_set(
    *, document: Document, actor: Any, status: str, version: int | None = None
) -> Document:
    """Mark a document done (only when no proposal is left undecided) or in progress again.
    Atomic itself, as every service that locks a row: its callers (a page, the API) run in
    autocommit, where a row lock outside a transaction is an error on PostgreSQL."""
    document = document_locked(document)
    if version is not None and version != document.version:
        raise StaleVersion(
            f"the document changed since you read it (version {version}, now {document.version})",
            document,
        )
    allowed = (DocumentStatus.DONE, DocumentStatus.IN_PROGRESS)
    if status not in allowed:
        raise DomainError(
            f"a document can be marked {' or '.join(allowed)}; {status!r} is set by Cloak"
        )
    if status == DocumentStatus.DONE:
        left = list(
            Span.objects.for_document(document).proposed().values_list("id", flat=True)[:21]
        )
        if left:
            listed = ", ".join(str(pk) for pk in left[:20])
            more = " and more" if len(left) > 20 else ""
            raise DomainError(
                f"{len(left) if len(left) <= 20 else 'over 20'} proposal(s) are still "
                f"undecided: span {listed}{more}"
            )
    if document.status != status:
        document.status = status
        document.version += 1
        fields = ["status", "version", "updated_at"]
        if status == DocumentStatus.DONE:
            document.finished_at = timezone.now()
            fields.append("finished_at")
        document.save(update_fields=fields)
        _publish(document, actor, done=status == DocumentStatus.DONE)
    return document


def span_choices(document: Document, spans: list[Span]) -> dict[int, Choice]:
    """The correspondence-table choice for the surface of each span of `document` that is not
    rejected, by span id: the one replacement for a surface the caller is annotating (already
    chosen elsewhere, it is preselected), and nothing else of the table. None for a replica:
    its annotator is blind to the choices of the project, the first annotator's among them."""
    if document.is_blind:
        return {}
    surfaces = {
        span.pk: document.text[span.start : span.end]
        for span in spans
        if span.status != SpanStatus.REJECTED
    }
    choices = surface_choices(document.project, surfaces.values())
    return {
        span_id: choices[surface] for span_id, surface in surfaces.items() if surface in choices
    }


def surface_pseudonyms(document: Document, surfaces: set[str]) -> dict[str, str]:
    """The pseudonym a row of `document` shows for each of `surfaces` (of spans not rejected)
    that has one: what `span_choices` gives its spans, by surface, for a caller that has
    offsets and no Span to build (the page's check of what changed). None for a replica."""
    if document.is_blind:
        return {}
    choices = surface_choices(document.project, surfaces)
    return {surface: choice.replacement for surface, choice in choices.items()}


def pseudonym_chosen(document: Document, surface: str) -> Choice | None:
    """The choice the project holds for `surface`, as shown to whoever annotates `document`:
    none on a replica (blind to the first annotator's)."""
    if document.is_blind:
        return None
    return surface_choice(document.project, surface)


def pseudonym_suggestions(
    document: Document, surface: str, label: str, *, count: int = SUGGESTIONS
) -> list[str]:
    """Pseudonyms for `surface` in `document` (`suggestions_for`). On a replica the one
    already chosen is not put first, nor anywhere: it would show the first annotator's
    choice; the fresh ones are as many as anywhere else."""
    if not document.is_blind:
        return suggestions_for(document.project, surface, label, document.language, count=count)
    chosen = surface_choice(document.project, surface)
    if chosen is None:
        return suggestions_for(document.project, surface, label, document.language, count=count)
    wider = suggestions_for(document.project, surface, label, document.language, count=count + 1)
    return [s for s in wider if s != chosen.replacement][:count]
