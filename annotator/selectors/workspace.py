"""What the document page shows of a document's spans, read up front: a row for each span (its
place, label, state, surface and the pseudonym the table holds for it), the counts of the
status bar, and where every span lies, for the stretch of text an action re-renders.

A few queries, however many spans: the pages' presenters (annotator.views.workspace) add
colours and directions, and ask nothing more of the database. The table's pseudonyms come
from the Domain's read of the table (annotator.services.spans.surface_pseudonyms), which
the caller hands in: a selector does not reach the keys.

What an action's answer shows (its rows, the stretch of text, the counts, the check of what
changed meanwhile) comes from one read of every span of the document (`document_spans`),
made once the action is written, and one read of the table (`PseudonymsRead`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from django.db.models import Case, Count, OuterRef, Q, QuerySet, Subquery, When

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
class SpanState:
    """One span as a read of the document's spans found it: all that its row shows, its
    flag apart (`SpanRow` adds its surface, pseudonym and flag)."""

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


@dataclass(frozen=True)
class SpanRow(SpanState):
    """One span as its row and its highlight show it."""

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


# What a row reads of its span (`SpanState`), then of its latest flag (`_with_flags`).
_STATE_COLUMNS = (
    "pk", "start", "end", "label", "source", "status", "decision", "keep_reason", "score",
    "version",
)  # fmt: skip
_FLAG_COLUMNS = ("flag_status", "flag_resolution", "flag_rationale", "flag_comment")
_ROW_COLUMNS = (*_STATE_COLUMNS, *_FLAG_COLUMNS)


def span_rows(
    document: Document, *, pseudonyms_of: PseudonymsOf, ids: Collection[int] | None = None
) -> tuple[SpanRow, ...]:
    """The rows of the document's spans (of `ids` alone when given), in the order of the page:
    by start, end and id. One query for the spans (with their latest flags), one for the
    pseudonyms the table holds for their surfaces, the same read as the page's check of what
    changed (`spans_now`), so that a row's stamp and the check's agree by construction."""
    spans = _with_flags(Span.objects.for_document(document), document)
    if ids is not None:
        spans = spans.filter(pk__in=ids)
    # Plain tuples: building a model instance a span cost more than the queries.
    found = list(spans.order_by("start", "end", "id").values_list(*_ROW_COLUMNS))
    text = document.text
    pseudonyms = pseudonyms_of(
        document,
        {text[row[1] : row[2]] for row in found if row[5] != SpanStatus.REJECTED},
    )
    width = len(_STATE_COLUMNS)
    return tuple(
        _row(SpanState(*values[:width]), text, pseudonyms, _flag_of(*values[width:]))
        for values in found
    )


def _row(
    span: SpanState, text: str, pseudonyms: Mapping[str, str], flag: SpanFlag | None
) -> SpanRow:
    surface = text[span.start : span.end]
    return SpanRow(
        **vars(span),
        surface=surface,
        replacement="" if span.status == SpanStatus.REJECTED else pseudonyms.get(surface, ""),
        flag=flag,
    )


def _with_flags(spans: QuerySet[Span], document: Document) -> QuerySet[Span]:
    """The spans of `document` with their latest flag read in the same query (a subquery a
    column), not one query a row: its status, resolution and rationale, and its latest
    comment. Only for the spans flagged: the document's flags are found once, by the
    document (a flag is raised on a span of its document: `services.spans._flag`), and a
    span without one costs no subquery."""
    flags = ReviewItem.objects.filter(span=OuterRef("pk"), kind=ReviewKind.FLAG).order_by(
        "-created_at", "-pk"
    )
    comments = Comment.objects.filter(
        review_item__span=OuterRef("pk"), review_item__kind=ReviewKind.FLAG
    ).order_by("-review_item__created_at", "-review_item_id", "-created_at", "-pk")
    flagged = Q(
        pk__in=ReviewItem.objects.filter(kind=ReviewKind.FLAG, document_id=document.pk)
        .exclude(span=None)
        .values("span_id")
    )
    columns: dict[str, Subquery] = {
        "flag_status": Subquery(flags.values("status")[:1]),
        "flag_resolution": Subquery(flags.values("resolution")[:1]),
        "flag_rationale": Subquery(flags.values("rationale")[:1]),
        "flag_comment": Subquery(comments.values("body")[:1]),
    }
    return spans.annotate(
        **{
            name: Case(When(flagged, then=column), output_field=column.output_field)
            for name, column in columns.items()
        }
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


# --- One read for an action's answer --------------------------------------------------------


class PseudonymsRead:
    """The table's pseudonyms for one document's surfaces (`PseudonymsOf`), each surface asked
    of the table once: the check of what changed asks for every surface, the rows after it
    for some of them, and the table is read once."""

    def __init__(self, read: PseudonymsOf) -> None:
        self._read = read
        self._asked: set[str] = set()
        self._found: dict[str, str] = {}

    def __call__(self, document: Document, surfaces: set[str]) -> Mapping[str, str]:
        new = surfaces - self._asked
        if new:
            self._found.update(self._read(document, new))
            self._asked |= new
        return {surface: self._found[surface] for surface in surfaces if surface in self._found}


class DocumentSpans:
    """Every span of a document as one read found it (`document_spans`), in the page's order,
    each with its latest flag (`flags`, by id; None: none): what an action's answer shows,
    its rows, places, counts and the check of what changed. The table is read once for all
    the surfaces they ask about (`PseudonymsRead`)."""

    def __init__(
        self,
        document: Document,
        spans: Iterable[tuple[SpanState, SpanFlag | None]],
        *,
        pseudonyms_of: PseudonymsOf,
    ) -> None:
        self.document = document
        read = tuple(spans)
        self.spans = tuple(span for span, _ in read)
        self.flags = {span.pk: flag for span, flag in read}
        self._pseudonyms = PseudonymsRead(pseudonyms_of)

    def tally(self) -> SpanTally:
        return _tally((span.label, span.status, span.source, 1) for span in self.spans)

    def places(self) -> tuple[SpanPlace, ...]:
        return tuple(
            SpanPlace(span.pk, span.start, span.end, span.label, span.status, span.decision)
            for span in self.spans
        )

    def surfaces(self, ids: Collection[int] | None = None) -> set[str]:
        """The surfaces of the spans (of `ids`) not rejected: those a row shows a pseudonym
        of."""
        text = self.document.text
        return {
            text[span.start : span.end]
            for span in self.spans
            if span.status != SpanStatus.REJECTED and (ids is None or span.pk in ids)
        }

    def now(self) -> tuple[SpanNow, ...]:
        """What `spans_now` reads, from this read and one read of the table."""
        text = self.document.text
        pseudonyms = self._pseudonyms(self.document, self.surfaces())
        now = []
        for span in self.spans:
            shown = span.status != SpanStatus.REJECTED
            replacement = pseudonyms.get(text[span.start : span.end], "") if shown else ""
            now.append(SpanNow(span.pk, span.version, span.start, span.end, replacement))
        return tuple(now)

    def rows(self, ids: Collection[int]) -> tuple[SpanRow, ...]:
        """The rows of the spans `ids` that the read found, as `span_rows` gives them."""
        wanted = set(ids)
        found = [span for span in self.spans if span.pk in wanted]
        pseudonyms = self._pseudonyms(self.document, self.surfaces(wanted))
        text = self.document.text
        return tuple(_row(span, text, pseudonyms, self.flags[span.pk]) for span in found)


def document_spans(document: Document, *, pseudonyms_of: PseudonymsOf) -> DocumentSpans:
    """Every span of `document` with its latest flag, in one query however many: what each
    row, the highlights, the counts and the check of what changed read of it."""
    spans = Span.objects.for_document(document).order_by("start", "end", "id")
    width = len(_STATE_COLUMNS)
    return DocumentSpans(
        document,
        (
            (SpanState(*values[:width]), _flag_of(*values[width:]))
            for values in _with_flags(spans, document).values_list(*_ROW_COLUMNS)
        ),
        pseudonyms_of=pseudonyms_of,
    )
