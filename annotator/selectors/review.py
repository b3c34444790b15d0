"""Reads of the review queue: the lead's list and items, the counts on the project page, and
the resolutions an annotator sees on their document.

Only the lead's views (Can.REVIEW) show a snippet of the text around an item's span: leads see
every document and its originals. An item's pseudonyms are kept with the keys: the lead's
views read them with an audited read (`annotator.services.table.review_notes_read`) and hand
them to `review_row`. What an annotator is shown (`document_resolutions`) is the lead's
decision and rationale, nothing of the table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet

from annotator.models import (
    DECISION_CHOICES,
    Comment,
    Document,
    Project,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
)
from pseudonymizer.graphemes import boundaries

# Characters of context on each side of an item's span on the lead's pages.
CONTEXT = 60
DECISION_LABELS = {value: str(label) for value, label in DECISION_CHOICES}
ALL_STATUSES = "all"


def review_items(
    project: Project, *, kind: str = "", status: str = ReviewStatus.OPEN, language: str = ""
) -> QuerySet[ReviewItem]:
    """The project's items (of `kind`, in `status` or every status for "all", about a document
    or entity of `language`), open ones first and oldest first."""
    items = (
        ReviewItem.objects.filter(project=project)
        .select_related("document", "span", "raised_by", "resolved_by")
        .defer("document__search_text")
        .annotate(comment_count=Count("comments"))
        .order_by("status", "created_at", "pk")  # "open" before "resolved"
    )
    if kind:
        items = items.filter(kind=kind)
    if status and status != ALL_STATUSES:
        items = items.filter(status=status)
    if language:
        items = items.filter(
            Q(document__language=language) | Q(document__isnull=True, detail__language=language)
        )
    return items


@dataclass(frozen=True)
class KindCount:
    kind: str
    label: str
    open: int


def review_counts(project: Project) -> list[KindCount]:
    """Open items of each kind, every kind listed (one grouped query)."""
    counts = dict(
        ReviewItem.objects.filter(project=project, status=ReviewStatus.OPEN)
        .values_list("kind")
        .annotate(n=Count("id"))
        .order_by()
    )
    return [
        KindCount(kind.value, str(kind.label), counts.get(kind.value, 0)) for kind in ReviewKind
    ]


@dataclass(frozen=True)
class FlagCounts:
    open: int
    resolved: int


def flag_counts(project: Project, user: Any) -> FlagCounts:
    """The flags `user` raised in the project, open and resolved."""
    counts = dict(
        ReviewItem.objects.filter(project=project, kind=ReviewKind.FLAG, raised_by=user)
        .values_list("status")
        .annotate(n=Count("id"))
        .order_by()
    )
    return FlagCounts(counts.get(ReviewStatus.OPEN, 0), counts.get(ReviewStatus.RESOLVED, 0))


@dataclass(frozen=True)
class ReviewRow:
    """What the lead's pages show of one item."""

    item: ReviewItem
    kind_label: str
    language: str
    label: str
    before: str  # context before the span, the span's text, the context after it
    surface: str
    after: str
    anchor: str  # "#span-N" on the document's page, or ""
    # The item's detail and resolution with its pseudonyms (its note) laid over them.
    detail: dict[str, Any]
    resolution: dict[str, Any]


class Note(Protocol):
    """An item's pseudonyms as the keys keep them (`annotator.services.table.Note`)."""

    def over(
        self, detail: Mapping[str, Any], resolution: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]: ...


def with_note(item: ReviewItem, note: Note | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The item's detail and resolution as a lead reads them: its pseudonyms (`note`, read
    with `annotator.services.table.review_notes_read`, audited) laid over what it stores."""
    detail = item.detail if isinstance(item.detail, dict) else {}
    resolution = item.resolution if isinstance(item.resolution, dict) else {}
    if note is None:
        return dict(detail), dict(resolution)
    return note.over(detail, resolution)


def snippet(text: str, start: int, end: int, context: int = CONTEXT) -> tuple[str, str, str]:
    """`text[start:end]` with up to `context` code points on each side, cut only between
    grapheme clusters: a cut inside one would show half a character (a variation selector
    without its emoji, a mark without its letter)."""
    cut_before = max(0, min(start, len(text)) - context)
    cut_after = min(len(text), end + context)
    low = min(start, boundaries(text, cut_before, cut_before)[-1])  # first boundary at or after
    high = max(end, boundaries(text, cut_after, cut_after)[0])  # last boundary at or before
    return text[low:start], text[start:end], text[end:high]


def review_row(item: ReviewItem, note: Note | None = None) -> ReviewRow:
    """For the lead (Can.REVIEW) only: the snippet holds originals, and `note` the item's
    pseudonyms (see `with_note`)."""
    detail, resolution = with_note(item, note)
    document: Document | None = item.document
    span = item.span
    before = surface = after = ""
    if document is not None and span is not None:
        before, surface, after = snippet(document.text, span.start, span.end)
    label = span.label if span is not None else str(detail.get("label", ""))
    language = document.language if document is not None else str(detail.get("language", ""))
    return ReviewRow(
        item=item,
        kind_label=str(ReviewKind(item.kind).label),
        language=language,
        label=label,
        before=before,
        surface=surface,
        after=after,
        anchor=f"#span-{span.pk}" if span is not None else "",
        detail=detail,
        resolution=resolution,
    )


@dataclass(frozen=True)
class Resolution:
    """A lead's resolution as an annotator sees it on their document."""

    span_id: int | None
    kind_label: str
    dismissed: bool
    decision: str
    decision_label: str
    rationale: str
    resolved_by: str
    resolved_at: datetime | None


def document_resolutions(document: Document) -> list[Resolution]:
    """The resolved items about `document`, newest first: the lead's decision and rationale,
    nothing else of the item (its detail holds replacements of other surfaces)."""
    rows = (
        ReviewItem.objects.filter(document=document, status=ReviewStatus.RESOLVED)
        .select_related("resolved_by")
        .order_by("-resolved_at", "-pk")
    )
    found = []
    for item in rows:
        resolution = item.resolution if isinstance(item.resolution, dict) else {}
        decision = str(resolution.get("decision", ""))
        found.append(
            Resolution(
                span_id=item.span_id,
                kind_label=str(ReviewKind(item.kind).label),
                dismissed=resolution.get("action") == "dismiss",
                decision=decision,
                decision_label=DECISION_LABELS.get(decision, decision),
                rationale=item.rationale,
                resolved_by=item.resolved_by.get_username() if item.resolved_by else "",
                resolved_at=item.resolved_at,
            )
        )
    return found


def review_comments(item: ReviewItem) -> QuerySet[Comment]:
    """The item's comments, oldest first, with their authors."""
    return item.comments.select_related("author").order_by("created_at")


def scanned_key(project_id: int) -> str:
    return f"cloak:review-scanned:{project_id}"


def review_last_scan(project: Project) -> datetime | None:
    """When the project was last scanned, if known (the cache holds it in ISO 8601)."""
    value = cache.get(scanned_key(project.pk))
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


@dataclass(frozen=True)
class SpanState:
    """The span a review item is about, as it is now (not as it was when the item was
    raised): what the lead's resolution changes."""

    status: str
    label: str
    decision: str
    keep_reason: str
    pseudonym: str  # the table's for its surface; "" for none or not pseudonymized


def span_state(item: ReviewItem, pseudonym_of: Callable[[str], str]) -> SpanState | None:
    """For the lead (Can.REVIEW) only, as `review_row`. None for an item about no span."""
    span, document = item.span, item.document
    if span is None or document is None:
        return None
    pseudonym = ""
    if span.status == "accepted" and span.decision in ("pseudonymize", "invalidate"):
        pseudonym = pseudonym_of(document.text[span.start : span.end])
    return SpanState(span.status, span.label, span.decision, span.keep_reason, pseudonym)


def next_open_item(project: Project, after: ReviewItem) -> ReviewItem | None:
    """The open item the queue lists after `after` (oldest first), else the first open one;
    None when none is left."""
    items = review_items(project)
    later = items.filter(
        Q(created_at__gt=after.created_at) | Q(created_at=after.created_at, pk__gt=after.pk)
    ).first()
    return later or items.exclude(pk=after.pk).first()
