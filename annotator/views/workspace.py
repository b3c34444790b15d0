"""The document page, where an annotator works: the text with its spans, and what it shows
after each action.

The page renders whole once. After an action (annotator.views.span_actions) an htmx request
gets a patch back, not the page: the rows of the spans that changed, the stretch of text
around them (cut where no span crosses, so it replaces whole elements), and the status bar
(counts, notice, undo). The page's script puts each piece in place. An action that touched
many spans (accept all) gets the workspace whole instead.

The document also changes behind the page (propagation, a run, another tab or person, a
lead, undo): each action's answer brings what changed meanwhile as well, and the page asks
while it is open (`document_changes`), getting 204 when nothing did
(annotator.views.workspace_sync compares what the page shows with the document now).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.cache import caches
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_POST

from annotator.caching import never_store
from annotator.languages import language_label
from annotator.models import DECISION_CHOICES, STRATEGY_CHOICES, Document
from annotator.permissions import Can, document_or_404
from annotator.selectors.rendering import document_rendered
from annotator.selectors.review import document_resolutions
from annotator.selectors.workspace import (
    DocumentSpans,
    SpanRow,
    SpanTally,
    document_spans,
    workspace_page,
)
from annotator.services.draw_ahead import draw_ahead_ask
from annotator.services.spans import span_choices, surface_pseudonyms
from annotator.services.undo import undo_label
from annotator.views.access import ProjectRequest, project_page
from annotator.views.nav import HtmxProjectRequest, project_nav
from annotator.views.segments import SpanLike, closed_window, segment_text
from annotator.views.workspace_html import (
    SOURCE_LABELS,
    in_word,
    released_html,
    rows_html,
    text_html,
)
from annotator.views.workspace_sync import (
    BadPageState,
    Changes,
    changes_since,
    document_stamp,
    page_state,
)

RTL_LANGUAGES = frozenset({"ar", "fa", "he", "ur"})
# Highlight colours cycle through this many classes (c0 … c35 in cloak.css): more than any
# preset schema has labels, so each of its labels has a colour of its own.
PALETTE_SIZE = 36
# An action that changed more spans than this, and than half the document's, re-renders the
# whole workspace.
PATCH_LIMIT = 40
# The open page asks what changed this often (and at once when it is shown again).
POLL_SECONDS = 15
# A document's text with its marks is rendered once for what its spans are and kept this
# long (annotator.views.workspace.whole_text). Bump MARKUP when text_html's markup changes:
# a page must not get the marks an older release of the code rendered.
TEXT_CACHE_SECONDS = 60 * 60
MARKUP = "1"


def text_direction(language: str) -> str:
    return "rtl" if language.split("-")[0].lower() in RTL_LANGUAGES else "ltr"


def label_colour(labels: Sequence[str], label: str) -> str:
    """A label's highlight class, by its place in the project's schema: the same label has
    the same colour on every page and after every change (a label the schema lost still
    gets a stable one)."""
    index = labels.index(label) if label in labels else zlib.crc32(label.encode())
    return f"c{index % PALETTE_SIZE}"


def word_window(text: str, low: int, high: int, places: Sequence[SpanLike]) -> tuple[int, int]:
    """[low, high) widened until no span crosses its edges and neither edge is inside a word:
    a label that waits for the end of a word (workspace_html.text_html) is then rendered
    with the stretch that holds its span."""
    while True:
        start, end = low, high
        while 0 < start < len(text) and in_word(text[start - 1]) and in_word(text[start]):
            start -= 1
        while 0 < end < len(text) and in_word(text[end - 1]) and in_word(text[end]):
            end += 1
        start, end = closed_window(start, end, places)
        if (start, end) == (low, high):
            return low, high
        low, high = start, end


def text_windows(
    text: str, ranges: Iterable[tuple[int, int]], places: Sequence[SpanLike]
) -> list[tuple[int, int, list[SpanLike]]]:
    """The stretches of the text a patch renders again for `ranges`: the ranges merged where
    they meet, each widened as `word_window` widens one (no word cut, no span crossing an
    edge), those that then meet merged, in order, each with the spans it shows. What changed
    at both ends of a long document is two short stretches, not the whole text.

    A document that propagation keeps adding to holds thousands of spans, and an answer may
    carry hundreds of changes: the spans are sorted once, and a stretch looks only at those
    that start within the longest span's length of it (the only ones that can cross it)."""
    ordered = sorted(places, key=lambda place: (place.start, place.end))
    starts = [place.start for place in ordered]
    longest = max((place.end - place.start for place in ordered), default=0)

    def near(low: int, high: int) -> list[SpanLike]:
        return ordered[bisect_left(starts, low - longest) : bisect_left(starts, high)]

    def widened(low: int, high: int) -> tuple[int, int]:
        while True:
            start, end = low, high
            while 0 < start < len(text) and in_word(text[start - 1]) and in_word(text[start]):
                start -= 1
            while 0 < end < len(text) and in_word(text[end - 1]) and in_word(text[end]):
                end += 1
            for place in near(start, end):
                if place.end > start:  # it overlaps the stretch: none may cross an edge
                    start, end = min(start, place.start), max(end, place.end)
            if (start, end) == (low, high):
                return low, high
            low, high = start, end

    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(high, merged[-1][1]))
        else:
            merged.append((low, high))
    windows: list[tuple[int, int]] = []
    for low, high in merged:
        low, high = widened(low, high)
        while windows and low <= windows[-1][1]:
            before = windows.pop()
            low, high = widened(min(low, before[0]), max(high, before[1]))
        windows.append((low, high))
    return [
        (low, high, [place for place in near(low, high) if place.end > low])
        for low, high in windows
    ]


def open_document(request: ProjectRequest, pk: int, *, for_update: bool = False) -> Document:
    """The project's document `pk`; 404 when the caller may not see its language.

    `for_update`: its row locked until the caller's transaction ends, as the span service
    locks it (`annotator.services.spans.document_locked`), read in the same query: a page that
    writes reads it once. The lock is taken as the row is read, before the 404 (a member's
    request for a document they may not open holds it until that answer, a moment)."""
    documents = Document.objects.select_related("assignee").defer("search_text")
    if for_update:
        documents = documents.select_for_update(of=("self",))
    return document_or_404(request.user, request.project, pk, documents)


def _text(request: ProjectRequest, document: Document, spans: Iterable[SpanLike],
          window: tuple[int, int] | None = None) -> str:  # fmt: skip
    following = document.text[window[1] : window[1] + 1] if window else ""
    labels = request.project.labels
    direction = text_direction(document.language)
    segments = (
        (
            segment,
            label_colour(labels, segment.spans[0].label) if segment.spans else "",
            segment.direction_in(direction) if segment.spans else "",
        )
        for segment in segment_text(document.text, spans, window)
    )
    return text_html(segments, following)


def text_cache_key(request: ProjectRequest, document: Document, spans: Iterable[SpanLike]) -> str:
    """Where the whole text of `document` with the marks of `spans` is kept: the document's id
    and a digest of everything its rendering reads (the text, its direction, the schema's
    labels that give the colours, and each span's id, offsets, label, status and whether it
    is kept). Every span write that changes what the text shows (an accept, a reject, a
    label, a keep, an edge moved, a span added or removed, by anyone or any task) changes the
    digest, so a page never gets marks that are not the spans' now, whether or not the
    writer thought of this cache; a write the text does not show (a pseudonym, a decision
    other than keeping) keeps it."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(document.text.encode("utf-8", "surrogatepass"))
    shape = [MARKUP, document.language, request.project.labels]
    digest.update(json.dumps(shape).encode())
    for span in spans:
        # The text shows a span's status (hl-proposed, hl-accepted, hl-rejected) and whether
        # it is kept (hl-kept): segments.Segment.state.
        kept = "k" if span.decision == "keep" else ""
        digest.update(
            f"\n{span.pk} {span.start} {span.end} {span.status}{kept} {span.label}".encode()
        )
    return f"workspace-text:{document.pk}:{digest.hexdigest()}"


def whole_text(
    request: ProjectRequest, document: Document, spans: Sequence[SpanLike]
) -> SafeString:
    """The document's whole text with the marks of `spans`, rendered once for what they are.

    The text holds originals, so it is kept in the process's own memory (the `rendered`
    cache: each web worker keeps its last CLOAK_RENDERED_TEXTS documents for an hour at
    most), never in the shared cache, which is Redis or a folder on disk. It is rendered
    markup, no CSRF token and nothing of the person asking: every member who may open the
    document gets the same."""
    key = text_cache_key(request, document, spans)
    kept = caches["rendered"]
    html = kept.get(key)
    if not isinstance(html, str):
        html = str(_text(request, document, spans))
        kept.set(key, html, TEXT_CACHE_SECONDS)
    return mark_safe(html)


def _rows(request: ProjectRequest, document: Document, rows: Sequence[SpanRow]) -> str:
    labels = request.project.labels
    return rows_html(
        rows,
        language=document.language,
        direction=text_direction(document.language),
        colour=lambda label: label_colour(labels, label),
        can_annotate=request.access.can(Can.ANNOTATE),
    )


def status_context(
    request: ProjectRequest, document: Document, tally: SpanTally, *, notice: str = "",
    error: bool = False, undo: str = "", confirm: dict[str, Any] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """What the status bar shows: counts, the labels present, the bulk choices, the notice
    of the last action and what `u` would undo."""
    labels = request.project.labels
    descriptions = {
        label["name"]: label.get("description", "")
        for label in request.project.label_schema.get("labels", [])
    }
    order = {label: n for n, label in enumerate(labels)}
    legend = [
        (label, label_colour(labels, label), descriptions.get(label, ""))
        for label in sorted(tally.labels, key=lambda label: (order.get(label, len(order)), label))
    ]
    return {
        "project": request.project,
        "document": document,
        "span_count": tally.spans,
        "characters": len(document.text),
        "language_label": language_label(document.language),
        "legend": legend,
        "can_annotate": request.access.can(Can.ANNOTATE),
        "open_proposals": tally.proposals,
        "proposal_labels": list(tally.proposal_labels),
        "proposal_sources": [(s, SOURCE_LABELS.get(s, s)) for s in tally.proposal_sources],
        "notice": notice,
        "notice_is_error": error,
        # A refused action that a person may confirm: sent again from the notice.
        "confirm": confirm,
        "undo": undo,
        "document_stamp": document_stamp(document),
    }


def label_choices(request: ProjectRequest) -> list[dict[str, str]]:
    """Every label of the project's schema, in its order, as the keys' legend and the label
    picker show it: its name, description, colour and digit key (the first nine have one)."""
    labels = request.project.labels
    return [
        {
            "name": label["name"],
            "description": label.get("description", ""),
            "colour": label_colour(labels, label["name"]),
            "key": str(n + 1) if n < 9 else "",
        }
        for n, label in enumerate(request.project.label_schema.get("labels", []))
    ]


def workspace_context(
    request: ProjectRequest, document: Document, *, notice: str = "", error: bool = False,
    undo: str = "", confirm: dict[str, Any] | None = None,
) -> dict[str, Any]:  # fmt: skip
    page = workspace_page(document, pseudonyms_of=surface_pseudonyms)
    return {
        **project_nav(request),
        **status_context(
            request, document, page.tally, notice=notice, error=error, undo=undo, confirm=confirm
        ),  # fmt: skip
        "text_html": whole_text(request, document, page.rows),
        "rows_html": _rows(request, document, page.rows),
        "direction": text_direction(document.language),
        "spans": page.rows,
        "labels": request.project.labels,
        "label_choices": label_choices(request),
        "decisions": DECISION_CHOICES,
        "strategies": STRATEGY_CHOICES,
        "poll_seconds": POLL_SECONDS,
    }


@project_page(Can.VIEW_PROJECT)
def document_detail(request: ProjectRequest, pk: int) -> HttpResponse:
    document = open_document(request, pk)
    # Opened to be worked: the worker draws its proposals' pseudonyms ahead.
    draw_ahead_ask(document)
    context = workspace_context(request, document, undo=undo_label(document, request.user))
    # The lead's resolutions of flags and conflicts on this document: decision and rationale.
    context["resolutions"] = document_resolutions(document)
    return never_store(render(request, "annotator/document_detail.html", context))


def render_workspace(request: ProjectRequest, document: Document, **status: Any) -> HttpResponse:
    """The whole workspace, as a fragment that replaces the page's."""
    context = workspace_context(request, document, **status)
    response = render(request, "annotator/document_detail.html#workspace", context)
    response["HX-Retarget"] = "#workspace"
    response["HX-Reswap"] = "outerHTML"
    return never_store(response)


def patch_reads(document: Document) -> DocumentSpans:
    """What a patch reads: every span of the document, and the table's pseudonyms once
    (`render_patch`, `changes_since`)."""
    return document_spans(document, pseudonyms_of=surface_pseudonyms)


def render_patch(
    request: ProjectRequest,
    document: Document,
    *,
    changed: Sequence[int],
    ranges: Iterable[tuple[int, int]],
    meanwhile: Changes | None = None,
    spans: DocumentSpans | None = None,
    **status: Any,
) -> HttpResponse:
    """What an action changed: the rows of the spans `changed` (a row whose span is gone is
    removed), the text over `ranges` widened until no span crosses its edges, the status.
    With what changed `meanwhile` besides (since the page was last patched), that too, and
    the notice says so. All from `spans` (`patch_reads`) when the caller has them: every
    span of the document, read once the action was written."""
    if meanwhile is not None:
        note = meanwhile.without(set(changed)).notice()
        if note:
            status["notice"] = f"{status.get('notice', '')} {note}".strip()
        changed = list(dict.fromkeys([*changed, *meanwhile.spans]))
        ranges = [*ranges, *meanwhile.ranges]
    if spans is None:
        spans = patch_reads(document)
    places = spans.places()
    if len(changed) > max(PATCH_LIMIT, len(places) // 2):
        # Most of the document changed: the whole workspace costs less than its patch.
        return render_workspace(request, document, **status)
    rows = spans.rows(changed)
    removed = sorted(set(changed) - {span.pk for span in rows})
    ranges = list(ranges) + [(span.start, span.end) for span in rows]
    # Every span's place at once: each stretch widens over them without asking again.
    texts = [
        (low, high, _text(request, document, shown, (low, high)))
        for low, high, shown in text_windows(document.text, ranges, places)
    ]
    context = {
        **status_context(request, document, spans.tally(), **status),
        "rows_html": _rows(request, document, rows),
        "removed": removed,
        "texts": texts,
    }
    return never_store(render(request, "annotator/_workspace_patch.html", context))


@require_POST
@project_page(Can.VIEW_PROJECT)
def document_changes(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """What changed in the document since the page showed what it says it shows (`known`,
    `known_document`, see annotator.views.workspace_sync): 204 when nothing did, else the
    patch an action answers with. A POST, though it writes nothing: the rows of a long
    document would not fit in an address."""
    document = open_document(request, pk)
    try:
        state = page_state(request.POST)
    except BadPageState as bad:
        return never_store(HttpResponse(str(bad), status=400, content_type="text/plain"))
    if state is None:
        return never_store(
            HttpResponse(
                "Say what the page shows: known (its rows) and known_document.",
                status=400,
                content_type="text/plain",
            )
        )
    spans = patch_reads(document)
    changes = changes_since(document, state, spans=spans)
    if not changes:
        return never_store(HttpResponse(status=204))
    return render_patch(
        request, document, changed=[], ranges=[], meanwhile=changes, spans=spans,
        undo=undo_label(document, request.user),
    )  # fmt: skip


@project_page(Can.VIEW_PROJECT)
def document_preview(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """The document as a release would render it now, under the project's strategy or the
    one asked for (`?strategy=`): what its decisions so far put in place of each original."""
    document = open_document(request, pk)
    strategies = [value for value, _ in STRATEGY_CHOICES]
    strategy = request.GET.get("strategy") or request.project.strategy
    if strategy not in strategies:
        return HttpResponse(
            f"Unknown strategy; the strategies are {', '.join(strategies)}.", status=400
        )
    rendered = document_rendered(document, strategy, choices_of=span_choices)
    labels = request.project.labels
    context = {
        **project_nav(request),
        "document": document,
        "strategy": strategy,
        "strategy_label": dict(STRATEGY_CHOICES)[strategy],
        "strategies": STRATEGY_CHOICES,
        "rendered": rendered,
        "released_html": released_html(
            rendered.text, rendered.spans, lambda label: label_colour(labels, label)
        ),
        "direction": text_direction(document.language),
    }
    template = "annotator/document_preview.html"
    return never_store(
        render(request, f"{template}#preview" if request.htmx else template, context)
    )
