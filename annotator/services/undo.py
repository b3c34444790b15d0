"""Undo: what one action did to a document's spans, and putting it back.

An action (accept, reject, relabel, move, decide, flag, add, accept-all) changes one span
or several: moving or adding a span rejects the proposals it now overlaps. The page runs it
inside `undoable`, one transaction: the spans it may touch are read first (`take_snapshot`),
then the action runs, then an `UndoStep` keeps the state before of each span whose version
moved (or None for a span the action created) and its version after. An action on one span
(`span_update_undoable`) does the same in its caller's transaction with one read of each:
the spans it may touch, locked, serve the step and the span service's checks; the spans of
the document once it ran serve the step and the page's answer. `undo_last` puts the
newest step of a person's stack on a document back, in one transaction, and only if no span
changed since (someone else's change is never undone by mistake: nothing moves, and the
answer says why). A decision goes back through the correspondence table, as any decision
does, so the surface's pseudonym is the one it had (a relabel undone relabels its entity
back, and every span that followed it); and what the action put in the table goes back out
of it: an entity the undone spans held, that none of them holds any more, made by this
person and relied on by nothing else ("Met Moshe Chaya" after an edge moved and came back, a
one-letter slip added and undone), is withdrawn, audited.

A step, in the web role's tables, holds offsets, labels, statuses, decisions and ids, never a
pseudonym or an original: the pseudonyms the spans had before it are kept with the keys
(`annotator.services.table.undo_note_write`) and read back through the door by its undo.
A person's steps are theirs on every tab, and go when they sign out (`undo_forget`), when
the stack grows past `UNDO_DEPTH`, or after a session's age (`undo_expire`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import IntegerField, Max, Min, Q, QuerySet, Subquery, Value
from django.db.models.expressions import Combinable
from django.db.models.functions import Coalesce, Greatest, Least
from django.db.transaction import TransactionManagementError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotator.errors import DomainError, StaleVersion
from annotator.models import Comment, Document, ReviewStatus, Span, SpanStatus, UndoStep
from annotator.permissions import acting_user, acting_user_id
from annotator.selectors.workspace import DocumentSpans, document_spans
from annotator.services.spans import (
    Nearby,
    SpanChange,
    document_locked,
    document_touched,
    orphan_withdraw,
    reach_of,
    span_among,
    span_choice_record,
    span_choices,
    span_entity_relabel,
    span_reach,
    span_update_locked,
    surface_pseudonyms,
)
from annotator.services.table import undo_note_read, undo_note_write, undo_notes_delete

# What the Undo button says it takes back, by action.
ACTIONS = {
    "accept": "the accept",
    "reject": "the reject",
    "label": "the new label",
    "move": "the boundary move",
    "decide": "the decision",
    "flag": "the flag",
    "add": "the span added",
    "bulk-accepted": "accept all",
    "bulk-rejected": "reject all",
}
# A person's stack keeps this many steps a document (a few more between two prunings: the
# stack is cut back every PRUNE_EVERY-th step recorded, not on each, which an action pays).
UNDO_DEPTH = 30
PRUNE_EVERY = 8

# The fields of a span an action may change, and undo puts back.
FIELDS = ("start", "end", "label", "status", "decision", "keep_reason", "entity_id",
          "decided_by_id")  # fmt: skip


def _state(span: Span) -> dict[str, Any]:
    state: dict[str, Any] = {name: getattr(span, name) for name in FIELDS}
    state["decided_at"] = span.decided_at.isoformat() if span.decided_at else None
    state["version"] = span.version
    return state


Offset = int | Combinable


def _overlapping(
    document: Document, start: Offset, end: Offset, extra: tuple[int, ...]
) -> QuerySet[Span]:
    return Span.objects.filter(document=document).filter(
        Q(start__lt=end, end__gt=start) | Q(pk__in=extra)
    )


def _in_window(
    document: Document, start: Offset, end: Offset, extra: tuple[int, ...]
) -> QuerySet[Span]:
    """The spans `take_snapshot` reads: those that overlap the window of an action on
    [start, end) and the spans `extra` (`_window`), the window worked out in the same query
    (the places of the spans that overlap [start, end), a subquery)."""
    low: Combinable = start if not isinstance(start, int) else Value(start)
    high: Combinable = end if not isinstance(end, int) else Value(end)
    reached = (
        _overlapping(document, start, end, extra)
        .order_by()
        .values("document")
        .annotate(low=Min("start"), high=Max("end"))
    )
    wide_low = Least(
        low,
        Coalesce(Subquery(reached.values("low")), low, output_field=IntegerField()),
        output_field=IntegerField(),
    )
    wide_high = Greatest(
        high,
        Coalesce(Subquery(reached.values("high")), high, output_field=IntegerField()),
        output_field=IntegerField(),
    )
    return _overlapping(document, wide_low, wide_high, extra)


def _window(
    places: list[tuple[int, int, int]], start: int, end: int, extra: tuple[int, ...]
) -> tuple[int, int]:
    """What an action on [start, end) (and the spans `extra`) may change: [start, end) and the
    whole of each span (id, start, end) in `places` that overlaps it or is in `extra`. A
    proposal the action trims keeps what lies beyond it, in new pieces too
    (`annotator.services.spans._proposals_give_way`), all within the proposal's old place."""
    low, high = start, end
    for span_id, span_start, span_end in places:
        if (span_start < end and span_end > start) or span_id in extra:
            low, high = min(low, span_start), max(high, span_end)
    return low, high


@dataclass
class Step:
    """An action `undoable` is recording: the spans it may change as they were (`before`,
    by id), the pseudonym of those accepted (`pseudonyms`, by id: kept with the keys, never
    in the step), and once it ran, what it did (`entry`)."""

    document: Document
    start: int
    end: int
    extra: list[int]
    before: dict[int, dict[str, Any]]
    pseudonyms: dict[int, str]
    entry: list[dict[str, Any]] = field(default_factory=list)
    # The comment a flag wrote, which its undo takes back.
    comment_id: int | None = None

    def also(self, span_id: int) -> None:
        """The action made or touched span `span_id`, outside [start, end) perhaps."""
        self.extra.append(span_id)

    @property
    def window(self) -> tuple[int, int]:
        """The stretch of the document the action may have changed."""
        places = [(span_id, state["start"], state["end"]) for span_id, state in self.before.items()]
        return _window(places, self.start, self.end, tuple(self.extra))

    @property
    def changed(self) -> list[int]:
        """The ids of the spans the action changed or made."""
        return [item["id"] for item in self.entry]


def take_snapshot(document: Document, start: int, end: int, extra: tuple[int, ...] = ()) -> Step:
    """The state of every span of `document` that an action on [start, end) (and `extra`)
    may change (`_window`), and the pseudonym of those accepted (a decision undone goes back
    to it). One query for the spans."""
    return _step(document, start, end, extra, list(_in_window(document, start, end, extra)))


def _step(
    document: Document, start: int, end: int, extra: tuple[int, ...], spans: list[Span]
) -> Step:
    accepted = [span for span in spans if span.status == SpanStatus.ACCEPTED]
    choices = span_choices(document, accepted) if accepted else {}
    return Step(
        document=document, start=start, end=end, extra=list(extra),
        before={span.pk: _state(span) for span in spans},
        pseudonyms={
            span_id: choice.replacement for span_id, choice in choices.items()
            if choice.replacement
        },
    )  # fmt: skip


def _entry(step: Step, after: DocumentSpans | None = None) -> list[dict[str, Any]]:
    """What the action did, as undo needs it: each span the snapshot looked at, or made since
    in its stretch, whose version moved, with its version now and its state before (None: the
    action made it). From `after`, a read of the document's spans made once the action ran,
    when the caller has one."""
    extra = tuple(step.extra)
    if after is None:
        now = list(_overlapping(step.document, *step.window, extra).values_list("pk", "version"))
    else:
        low, high = step.window
        now = [
            (span.pk, span.version)
            for span in after.spans
            if (span.start < high and span.end > low) or span.pk in extra
        ]
    entry = []
    for span_id, version in now:
        old = step.before.get(span_id)
        if old is None or old["version"] != version:
            entry.append({"id": span_id, "version": version, "before": old})
    # Spans the action removed are not undone (no action removes a span but undo itself).
    return entry


@contextmanager
def undoable(
    *, document: Document, actor: Any, action: str, start: int, end: int,
    extra: tuple[int, ...] = (),
) -> Iterator[Step]:  # fmt: skip
    """Run an action on [start, end) of `document` (and the spans `extra`) as a step of the
    person's undo stack, in one transaction: the spans it may change are read, it runs in
    the `with` block, and what it did is kept (`UndoStep`, the pseudonyms with the keys).

    An action refused (a DomainError) changed no span, and no step is kept; what it recorded
    of its refusal (a conflict for the lead's review) commits, and the error goes on."""
    if action not in ACTIONS:
        raise ValueError(f"not an undoable action: {action}")
    refused: DomainError | None = None
    with transaction.atomic():
        document = document_locked(document)
        step = take_snapshot(document, start, end, extra)
        try:
            yield step
        except DomainError as error:
            refused = error
        else:
            step.entry = _entry(step)
            _keep(actor, action, step)
    if refused is not None:
        raise refused


@dataclass(frozen=True)
class SpanEdit:
    """A change to one span made as a step of the person's undo stack
    (`span_update_undoable`): the document as the change left it and the status it had
    before, the step, what undo would now take back, and every span of the document as the
    change left them (one read, which the step's record and the page's answer share)."""

    document: Document
    was: str
    step: Step
    undo: str
    spans: DocumentSpans


def span_update_undoable(
    *,
    document: Document,
    span_id: int,
    actor: Any,
    action: str,
    version: int | None,
    change: SpanChange,
) -> SpanEdit:
    """`span_update` as a step of `actor`'s undo stack (`undoable` and `span_update` in one),
    in the caller's transaction, which holds the document's row lock (read locked by the page,
    or `document_locked`) and is the one transaction of the change: no savepoint of its own.

    Each span is read once: the span and those around it, under lock, for the step's state
    before and the change's checks together (`take_snapshot`, `Nearby`); every span of the
    document once the change is written, for what it did (the step) and for the caller to
    show (`SpanEdit.spans`). Refused, it raises as `span_update` does, having kept no step:
    the caller's transaction rolls back whole, and the caller then records a refusal the
    table made (`annotator.services.spans.span_update_refused`)."""
    if action not in ACTIONS:
        raise ValueError(f"not an undoable action: {action}")
    if not transaction.get_connection().in_atomic_block:
        raise TransactionManagementError(
            "span_update_undoable runs in its caller's transaction, which locked the document"
        )
    was = document.status
    extra = (span_id,)
    spans = list(
        _in_window(document, *span_reach(document, span_id, change), extra)
        .select_for_update()
        .order_by("pk")
    )
    step = _step(document, *reach_of(span_among(spans, span_id), change), extra, spans)
    # Every span that overlaps the step's window, which holds the span's place now and the
    # place the change gives it: all that the change's checks ask about.
    nearby = Nearby(*step.window, tuple(spans))
    span_update_locked(
        document=document, nearby=nearby, span_id=span_id, actor=actor, version=version,
        change=change,
    )  # fmt: skip
    if change.flag is not None:
        step.comment_id = (
            Comment.objects.filter(review_item__span_id=span_id, author_id=acting_user_id(actor))
            .values_list("pk", flat=True)
            .order_by("-pk")
            .first()
        )
    after = document_spans(document, pseudonyms_of=surface_pseudonyms)
    step.entry = _entry(step, after)
    kept = _keep(actor, action, step)
    undo = ACTIONS[action] if kept else undo_label(document, actor)
    return SpanEdit(document=document, was=was, step=step, undo=undo, spans=after)


def _keep(actor: Any, action: str, step: Step) -> bool:
    """Keep the step on the person's stack, if the action did anything; whether it did."""
    if not step.entry and step.comment_id is None:
        return False
    user = acting_user(actor)
    row = UndoStep.objects.create(
        user=user, document=step.document, action=action, spans=step.entry,
        comment_id=step.comment_id,
    )  # fmt: skip
    undo_note_write(
        step.document.project,
        step_id=row.pk,
        pseudonyms={
            item["id"]: step.pseudonyms[item["id"]]
            for item in step.entry
            if item["before"] is not None and item["id"] in step.pseudonyms
        },
    )
    if row.pk % PRUNE_EVERY:
        return True
    deeper = list(
        UndoStep.objects.filter(user=user, document=step.document)
        .order_by("-pk")
        .values_list("pk", flat=True)[UNDO_DEPTH:]
    )
    if deeper:
        UndoStep.objects.filter(pk__in=deeper).delete()
        undo_notes_delete(deeper)
    return True


def undo_label(document: Document, user: Any) -> str:
    """What undo would take back on `document` for `user`, for the button; "" when nothing."""
    action = (
        UndoStep.objects.filter(user=acting_user(user), document=document)
        .order_by("-pk")
        .values_list("action", flat=True)
        .first()
    )
    return ACTIONS.get(action, "the last action") if action else ""


@dataclass(frozen=True)
class Undone:
    """What `undo_last` took back (`what`, for the page), the spans it changed or would
    have, the stretches they cover before and after, and why nothing moved (`refused`)."""

    what: str
    span_ids: list[int]
    ranges: list[tuple[int, int]]
    refused: str = ""


def undo_last(*, document: Document, actor: Any) -> Undone | None:
    """Take back the person's last step on `document` (None: there is none), unless a span
    it changed has changed again since: then nothing moves, the step is gone all the same
    (a second try would be refused again), and `refused` says why."""
    user = acting_user(actor)
    with transaction.atomic():
        document = document_locked(document)
        step = (
            UndoStep.objects.select_for_update()
            .filter(user=user, document=document)
            .order_by("-pk")
            .first()
        )
        if step is None:
            return None
        step_id = step.pk
        step.delete()
        transaction.on_commit(lambda: undo_notes_delete([step_id]))
        ids = [item["id"] for item in step.spans]
        ranges = list(Span.objects.filter(pk__in=ids).values_list("start", "end"))
        ranges += [
            (item["before"]["start"], item["before"]["end"]) for item in step.spans
            if item["before"]
        ]  # fmt: skip
        undone = Undone(what=ACTIONS.get(step.action, "the last action"), span_ids=ids,
                        ranges=ranges)  # fmt: skip
        pseudonyms = undo_note_read(document.project, step_id)
        try:
            with transaction.atomic():
                _put_back(document, user, step.spans, pseudonyms, step.comment_id)
        except DomainError as refused:
            return Undone(what=undone.what, span_ids=ids, ranges=ranges, refused=str(refused))
    return undone


def _put_back(
    document: Document,
    user: Any,
    entry: list[dict[str, Any]],
    pseudonyms: dict[int, str],
    comment_id: int | None,
) -> None:
    """Put each span of `entry` back as it was, with the pseudonym it had (`pseudonyms`, by
    span id). Raises StaleVersion (the caller rolls back) when any of them changed since."""
    ids = [item["id"] for item in entry]
    spans = {span.pk: span for span in Span.objects.select_for_update().filter(pk__in=ids)}
    for item in entry:
        span = spans.get(item["id"])
        if span is None or span.document_id != document.pk or span.version != item["version"]:
            raise StaleVersion(
                "a span changed since, by you elsewhere or by someone else: nothing was undone",
                span,
            )
    now = timezone.now()
    # The entities the action's spans hold now: once the spans are back, those none of them
    # holds any more leave the table, if nothing else relies on them (`orphan_withdraw`).
    held = {span.entity_id: span for span in spans.values() if span.entity_id is not None}
    # Spans the action created go first: the proposals they pushed aside come back after.
    for item in sorted(entry, key=lambda item: item["before"] is not None):
        span = spans[item["id"]]
        before = item["before"]
        if before is None:
            span.delete()
            continue
        label = span.label
        relabelled = (
            span.status == SpanStatus.ACCEPTED
            and before["status"] == SpanStatus.ACCEPTED
            and before["label"] != label
            and (before["start"], before["end"]) == (span.start, span.end)
        )
        for name in FIELDS:
            setattr(span, name, before[name])
        span.decided_at = parse_datetime(before["decided_at"]) if before["decided_at"] else None
        span.version += 1
        span.updated_by = user
        span.updated_at = now
        pseudonym = pseudonyms.get(span.pk)
        if relabelled and span.entity_id is not None:
            # A relabel undone: its entity, and every span that followed it, go back to the
            # label, with the pseudonym the surface had under it.
            span_entity_relabel(document, span, user, was=label, confirm=True, back=pseudonym)
        if span.status == SpanStatus.ACCEPTED:
            span_choice_record(span, document, user, pseudonym)
        span.save()
    kept = {span.entity_id for span in spans.values() if span.pk is not None}
    for entity_id, span in held.items():
        if entity_id not in kept:
            orphan_withdraw(document, entity_id, user, span)
    if comment_id is not None:
        comment = (
            Comment.objects.filter(pk=comment_id, author=user).select_related("review_item").first()
        )
        if comment is not None:
            review = comment.review_item
            comment.delete()
            if review.status == ReviewStatus.OPEN and not review.comments.exists():
                review.delete()
    document_touched(document)


def undo_forget(user: Any) -> int:
    """Delete every step of `user`'s stacks (they signed out, or were deactivated), and the
    pseudonyms kept for them; the steps deleted."""
    ids = list(UndoStep.objects.filter(user=acting_user(user)).values_list("pk", flat=True))
    if ids:
        UndoStep.objects.filter(pk__in=ids).delete()
        undo_notes_delete(ids)
    return len(ids)


def undo_expire() -> int:
    """Delete the steps, and their notes, older than a session lives (run by beat): no
    session that took them is still signed in. The steps deleted."""
    before = timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE)
    deleted, _ = UndoStep.objects.filter(created_at__lt=before).delete()
    undo_notes_delete(before=before)
    return int(deleted)
