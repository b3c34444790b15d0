"""Undo: what one action did to a document's spans, and putting it back.

An action (accept, reject, relabel, move, decide, flag, add, accept-all) changes one span
or several: moving or adding a span rejects the proposals it now overlaps. Before it, the
caller takes a `Snapshot` of the spans it may touch; after it, `undo_entry` keeps the
state before of each span whose version moved (or None for a span the action created) and
its version after. `undo_apply` puts those states back in one transaction, and only if no
span changed since (someone else's change is never undone by mistake: StaleVersion, and
nothing moves). A decision goes back through the correspondence table, as any decision
does, so the surface's pseudonym is the one it had (a relabel undone relabels its entity
back, and every span that followed it); and what the action put in the table
goes back out of it: an entity the undone spans held, that none of them holds any more,
made by this person and relied on by nothing else ("Met Moshe Chaya" after an edge moved
and came back, a one-letter slip added and undone), is withdrawn, audited.

An entry is plain JSON (it lives in the session): offsets, labels, statuses, decisions,
the pseudonym chosen (a replacement, never an original) and ids.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotator.models import Comment, Document, ReviewStatus, Span, SpanStatus
from annotator.permissions import acting_user
from annotator.services.errors import StaleVersion
from annotator.services.spans import (
    _decide,
    _locked_document,
    _relabel,
    _touch_document,
    _withdraw,
    span_choices,
)

# The fields of a span an action may change, and undo puts back.
FIELDS = ("start", "end", "label", "status", "decision", "keep_reason", "entity_id",
          "decided_by_id")  # fmt: skip


# The spans of a document in [start, end) (and `extra` ids) as they were, by id.
Snapshot = dict[int, dict[str, Any]]


def _state(span: Span, replacement: str | None) -> dict[str, Any]:
    state: dict[str, Any] = {name: getattr(span, name) for name in FIELDS}
    state["decided_at"] = span.decided_at.isoformat() if span.decided_at else None
    state["replacement"] = replacement
    state["version"] = span.version
    return state


def _overlapping(document: Document, start: int, end: int, extra: tuple[int, ...]) -> Any:
    return Span.objects.filter(document=document).filter(
        Q(start__lt=end, end__gt=start) | Q(pk__in=extra)
    )


def _window(
    places: list[tuple[int, int, int]], start: int, end: int, extra: tuple[int, ...]
) -> tuple[int, int]:
    """What an action on [start, end) (and the spans `extra`) may change: [start, end) and the
    whole of each span (id, start, end) in `places` that overlaps it or is in `extra`. A
    proposal the action trims keeps what lies beyond it, in new pieces too
    (`annotator.services.spans._make_room`), all within the proposal's old place."""
    low, high = start, end
    for span_id, span_start, span_end in places:
        if (span_start < end and span_end > start) or span_id in extra:
            low, high = min(low, span_start), max(high, span_end)
    return low, high


def take_snapshot(
    document: Document, start: int, end: int, extra: tuple[int, ...] = ()
) -> Snapshot:
    """The state of every span of `document` that an action on [start, end) (and `extra`)
    may change (`_window`); the pseudonym of those accepted (a decision undone goes back to
    it)."""
    places = list(_overlapping(document, start, end, extra).values_list("pk", "start", "end"))
    spans = list(_overlapping(document, *_window(places, start, end, extra), extra))
    accepted = [span for span in spans if span.status == SpanStatus.ACCEPTED]
    choices = span_choices(document, accepted) if accepted else {}
    return {
        span.pk: _state(span, choices[span.pk].replacement if span.pk in choices else None)
        for span in spans
    }


def snapshot_window(
    before: Snapshot, start: int, end: int, extra: tuple[int, ...] = ()
) -> tuple[int, int]:
    """The stretch of the document `take_snapshot` looked at for this action."""
    places = [(span_id, state["start"], state["end"]) for span_id, state in before.items()]
    return _window(places, start, end, extra)


def undo_entry(
    document: Document, before: Snapshot, start: int, end: int, extra: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """What the action did, as undo needs it: each span the snapshot looked at, or made since
    in its stretch, whose version moved, with its version now and its state before (None: the
    action made it)."""
    window = snapshot_window(before, start, end, extra)
    after = _overlapping(document, *window, extra).values_list("pk", "version")
    entry = []
    for span_id, version in after:
        old = before.get(span_id)
        if old is None or old["version"] != version:
            entry.append({"id": span_id, "version": version, "before": old})
    # Spans the action removed are not undone (no action removes a span but undo itself).
    return entry


@transaction.atomic
def undo_apply(
    *, document: Document, actor: Any, entry: list[dict[str, Any]], comment_id: int | None = None
) -> list[int]:
    """Put each span of `entry` back as it was; the ids of the spans changed. Raises
    StaleVersion (and changes nothing) when any of them changed since."""
    document = _locked_document(document)
    user = acting_user(actor)
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
    # holds any more leave the table, if nothing else relies on them (`_withdraw`).
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
        if relabelled and span.entity_id is not None:
            # A relabel undone: its entity, and every span that followed it, go back to the
            # label, with the pseudonym the surface had under it.
            _relabel(document, span, user, was=label, confirm=True, back=before["replacement"])
        if span.status == SpanStatus.ACCEPTED:
            _decide(span, document, user, before["replacement"])
        span.save()
    kept = {span.entity_id for span in spans.values() if span.pk is not None}
    for entity_id, span in held.items():
        if entity_id not in kept:
            _withdraw(document, entity_id, user, span)
    if comment_id is not None:
        comment = (
            Comment.objects.filter(pk=comment_id, author=user).select_related("review_item").first()
        )
        if comment is not None:
            review = comment.review_item
            comment.delete()
            if review.status == ReviewStatus.OPEN and not review.comments.exists():
                review.delete()
    _touch_document(document)
    return ids
