"""What the document page shows of a document's spans, read up front: a row for each span (its
place, label, state, surface and the pseudonym the table holds for it), the counts of the
status bar, and where every span lies, for the stretch of text an action re-renders.

A few queries, however many spans: the pages' presenters (annotator.views.workspace) add
colours and directions, and ask nothing more of the database. The table's pseudonyms come
from the Domain's read of the table (annotator.services.spans.surface_pseudonyms), which
the caller hands in: a selector does not reach the keys.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from django.db.models import Count, OuterRef, QuerySet, Subquery

from annotator.models import (
    DECISION_CHOICES,
    Comment,
    Document,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
    Span,
    SpanStatus,
)

# The table's pseudonym for each surface that has one (services.spans.surface_pseudonyms).
PseudonymsOf = Callable[[Document, set[str]], Mapping[str, str]]


DECISION_LABELS = {value: str(label) for value, label in DECISION_CHOICES}


@dataclass(frozen=True)
class SpanFlag:
    """The latest flag raised on a span, as its row shows it: the comment for the lead, and
    once resolved the lead's answer (their decision, or "left as it is") and rationale."""

    comment: str
    resolved: bool
    answer: str
    rationale: str


@dataclass(frozen=True)
class SpanRow:
    """One span as its row and its highlight show it."""

    pk: int
    start: int
    end: int
    label: str
    source: str
    status: str
    decision: str
    keep_reason: str
    score: float | None
    version: int
    surface: str
    # The pseudonym the table holds for the surface ("" for none, and on a replica).
    replacement: str
    # The latest flag on the span, if any.
    flag: SpanFlag | None = None


@dataclass(frozen=True)
class SpanPlace:
    """Where a span lies, and what its highlight needs: enough to cut the text."""

    pk: int
    start: int
    end: int
    label: str
    status: str
    decision: str  # the text marks a kept span (hl-kept)


@dataclass(frozen=True)
class SpanTally:
    """The status bar's counts: spans, proposals left, the labels present and those (and the
    sources) of the proposals left, sorted."""

    spans: int
    proposals: int
    labels: frozenset[str]
    proposal_labels: tuple[str, ...]
    proposal_sources: tuple[str, ...]


@dataclass(frozen=True)
class SpanNow:
    """What a span's row shows now, as far as the page's check of what changed compares it
    (annotator.views.workspace_sync): its version, offsets and the table's pseudonym for its
    surface ("" for none, and for a rejected span)."""

    pk: int
    version: int
    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class WorkspacePage:
    rows: tuple[SpanRow, ...]
    tally: SpanTally


# What a row reads of its span, then of its latest flag (`_with_flags`).
_ROW_COLUMNS = (
    "pk", "start", "end", "label", "source", "status", "decision", "keep_reason", "score",
    "version", "flag_status", "flag_resolution", "flag_rationale", "flag_comment",
)  # fmt: skip


def span_rows(
    document: Document, *, pseudonyms_of: PseudonymsOf, ids: Collection[int] | None = None
) -> tuple[SpanRow, ...]:
    """The rows of the document's spans (of `ids` alone when given), in the order of the page:
    by start, end and id. One query for the spans (with their latest flags), one for the
    pseudonyms the table holds for their surfaces, the same read as the page's check of what
    changed (`spans_now`), so that a row's stamp and the check's agree by construction."""
    spans = _with_flags(Span.objects.for_document(document))
    if ids is not None:
        spans = spans.filter(pk__in=ids)
    # Plain tuples: building a model instance a span cost more than the queries.
    found = list(spans.order_by("start", "end", "id").values_list(*_ROW_COLUMNS))
    text = document.text
    pseudonyms = pseudonyms_of(
        document,
        {text[row[1] : row[2]] for row in found if row[5] != SpanStatus.REJECTED},
    )
    rows = []
    for (pk, start, end, label, source, status, decision, keep_reason, score, version,
         *flag) in found:  # fmt: skip
        surface = text[start:end]
        rows.append(
            SpanRow(
                pk=pk, start=start, end=end, label=label, source=source, status=status,
                decision=decision, keep_reason=keep_reason, score=score, version=version,
                surface=surface,
                replacement=(
                    "" if status == SpanStatus.REJECTED else pseudonyms.get(surface, "")
                ),
                flag=_flag_of(*flag),
            )
        )  # fmt: skip
    return tuple(rows)


def _with_flags(spans: QuerySet[Span]) -> QuerySet[Span]:
    """The spans with their latest flag read in the same query (a subquery a column), not
    one query a row: its status, resolution and rationale, and its latest comment."""
    flags = ReviewItem.objects.filter(span=OuterRef("pk"), kind=ReviewKind.FLAG).order_by(
        "-created_at", "-pk"
    )
    comments = Comment.objects.filter(
        review_item__span=OuterRef("pk"), review_item__kind=ReviewKind.FLAG
    ).order_by("-review_item__created_at", "-review_item_id", "-created_at", "-pk")
    return spans.annotate(
        flag_status=Subquery(flags.values("status")[:1]),
        flag_resolution=Subquery(flags.values("resolution")[:1]),
        flag_rationale=Subquery(flags.values("rationale")[:1]),
        flag_comment=Subquery(comments.values("body")[:1]),
    )


def _flag_of(
    status: str | None, resolution: object, rationale: str | None, comment: str | None
) -> SpanFlag | None:
    if status is None:
        return None
    if isinstance(resolution, str):  # a JSON column read through a subquery, undecoded
        resolution = json.loads(resolution)
    resolution = resolution if isinstance(resolution, dict) else {}
    decision = str(resolution.get("decision", ""))
    if resolution.get("action") == "dismiss":
        answer = "left as it is"
    else:
        answer = DECISION_LABELS.get(decision, decision)
    return SpanFlag(
        comment=comment or "",
        resolved=status == ReviewStatus.RESOLVED,
        answer=answer,
        rationale=rationale or "",
    )


@dataclass(frozen=True)
class Undecided:
    """A proposal left undecided: where it is, and its text."""

    pk: int
    start: int
    end: int
    surface: str


def undecided_proposals(document: Document, limit: int = 21) -> tuple[Undecided, ...]:
    """The first `limit` proposals of the document left undecided, in the page's order: what
    keeps it from being done. One query."""
    text = document.text
    return tuple(
        Undecided(pk, start, end, text[start:end])
        for pk, start, end in Span.objects.for_document(document)
        .filter(status=SpanStatus.PROPOSED)
        .order_by("start", "end", "id")
        .values_list("pk", "start", "end")[:limit]
    )


def span_places(document: Document) -> tuple[SpanPlace, ...]:
    """Where each span of the document lies: one query of a few columns."""
    return tuple(
        SpanPlace(*values)
        for values in Span.objects.for_document(document)
        .order_by("start", "end", "id")
        .values_list("pk", "start", "end", "label", "status", "decision")
    )


def span_tally(document: Document) -> SpanTally:
    """The status bar's counts: one grouped query, however many spans."""
    return _tally(
        Span.objects.for_document(document)
        .order_by()
        .values_list("label", "status", "source")
        .annotate(n=Count("id"))
    )


def _tally(counts: Iterable[tuple[str, str, str, int]]) -> SpanTally:
    """The counts from (label, status, source, how many) groups."""
    spans = proposals = 0
    present: set[str] = set()
    proposal_labels: set[str] = set()
    proposal_sources: set[str] = set()
    for label, status, source, n in counts:
        spans += n
        present.add(label)
        if status == SpanStatus.PROPOSED:
            proposals += n
            proposal_labels.add(label)
            proposal_sources.add(source)
    return SpanTally(
        spans=spans,
        proposals=proposals,
        labels=frozenset(present),
        proposal_labels=tuple(sorted(proposal_labels)),
        proposal_sources=tuple(sorted(proposal_sources)),
    )


def workspace_page(document: Document, *, pseudonyms_of: PseudonymsOf) -> WorkspacePage:
    """Everything the document page reads of its spans, in two queries: its rows, and the
    status bar's counts from them."""
    rows = span_rows(document, pseudonyms_of=pseudonyms_of)
    return WorkspacePage(
        rows=rows, tally=_tally((row.label, row.status, row.source, 1) for row in rows)
    )


def spans_now(document: Document, *, pseudonyms_of: PseudonymsOf) -> tuple[SpanNow, ...]:
    """What each span's row shows now, in two indexed queries however many spans: the spans
    by document, and the pseudonyms of their surfaces in the table."""
    # Plain tuples: building 400 model instances would cost more than both queries.
    spans = list(
        Span.objects.for_document(document)
        .order_by()
        .values_list("pk", "version", "start", "end", "status")
    )
    text = document.text
    pseudonyms = pseudonyms_of(
        document,
        {text[start:end] for _, _, start, end, status in spans if status != SpanStatus.REJECTED},
    )
    return tuple(
        SpanNow(
            pk,
            version,
            start,
            end,
            "" if status == SpanStatus.REJECTED else pseudonyms.get(text[start:end], ""),
        )  # fmt: skip
        for pk, version, start, end, status in spans
    )
