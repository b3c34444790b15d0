"""A choice the correspondence table refused, recorded as an open surface conflict for
the lead rather than lost.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from annotator.models import Comment, Document, ReviewItem, ReviewKind, ReviewStatus, Span
from annotator.permissions import acting_user
from annotator.services.decision_rules import kept_reason
from annotator.services.review.resolve import MAX_COMMENT
from annotator.services.review.scan import review_fingerprint
from annotator.services.span_events import Refused
from annotator.services.table import SurfaceConflict, pseudonym_digest, review_note_write


def refusal_record(event: Refused) -> None:
    """A decision the table refused in the span service: for the lead, once rolled back
    (`annotator.services.after_decision`)."""
    review_attempt_record(
        document=event.document, actor=event.actor, conflict=event.conflict,
        decision=event.decision, replacement=event.replacement, keep_reason=event.keep_reason,
        span_id=event.span_id, start=event.start, end=event.end,
    )  # fmt: skip


def review_attempt_record(
    *,
    document: Document,
    actor: Any,
    conflict: SurfaceConflict,
    decision: str | None,
    replacement: str | None = None,
    keep_reason: str = "",
    span_id: int | None = None,
    start: int | None = None,
    end: int | None = None,
) -> ReviewItem | None:
    """Record an annotator's choice that the table refused (`conflict`) as an open surface
    conflict for the lead: what they wanted beside what the table holds. Called after the
    refused write rolled back; the same attempt twice is one item. `decision` None: the
    span's own."""
    current = None
    if span_id is not None:
        current = Span.objects.filter(pk=span_id).values_list("decision", "start", "end").first()
    if current is not None:
        decision = decision or current[0]
        start, end = current[1], current[2]
    if decision is None:
        return None
    winner = conflict.winner
    project = document.project
    fingerprint = review_fingerprint(
        "attempt",
        document.pk,
        span_id if span_id is not None else f"{start}:{end}",
        decision,
        pseudonym_digest(project, replacement or ""),
        winner.entity_id,
    )
    user = acting_user(actor)
    try:
        with transaction.atomic():
            if ReviewItem.objects.filter(
                project_id=document.project_id, fingerprint=fingerprint, status=ReviewStatus.OPEN
            ).exists():
                return None
            item = ReviewItem.objects.create(
                project_id=document.project_id,
                kind=ReviewKind.SURFACE_CONFLICT,
                document=document,
                span_id=span_id if current is not None else None,
                entity_id=winner.entity_id,
                raised_by=user,
                fingerprint=fingerprint,
                detail={
                    "entity_id": winner.entity_id,
                    "label": winner.label,
                    "language": document.language,
                    "start": start,
                    "end": end,
                    "wanted": {"decision": decision},
                    "recorded": {"decision": winner.decision},
                },
            )
            wanted = kept_reason(decision, keep_reason)
            if wanted:
                body = f"Wanted to keep it: {wanted}"
                Comment.objects.create(review_item=item, author=user, body=body[:MAX_COMMENT])
    except IntegrityError:
        return None  # recorded meanwhile
    review_note_write(
        project,
        item_id=item.pk,
        detail={
            "wanted": {"replacement": replacement or ""},
            "recorded": {"replacement": winner.replacement},
        },
    )
    return item
