"""The document page, where an annotator works: the text with its spans, and each decision.

Every change goes through annotator.services.spans, as the API's do. A form posts one action
on one span with the span's `version` as the page read it; the answer is the workspace again
(the fragment alone for htmx, else a redirect back to the page), with a notice when the span
changed meanwhile (its state now is shown, nothing is overwritten) or the action was refused.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotator.keys.services import suggestions_for
from annotator.models import DECISION_CHOICES, Document, DocumentStatus, Span, SpanStatus
from annotator.permissions import Can, access_for, can_view_document
from annotator.selectors.queues import next_document
from annotator.services.errors import DomainError, StaleVersion
from annotator.services.spans import (
    SpanChange,
    document_status_set,
    span_choices,
    span_create,
    span_update,
    spans_decide_all,
)
from annotator.views.access import ProjectRequest, project_page
from annotator.views.forms import (
    BulkForm,
    SpanActionForm,
    SpanAddForm,
    form_errors,
    language_label,
)
from annotator.views.nav import HtmxProjectRequest, project_nav
from annotator.views.segments import first_strong_direction, segment_text
from annotator.views.workspace_html import SOURCE_LABELS, rows_html, text_html
from pseudonymizer.edges import move_edge
from pseudonymizer.vocabulary import Decision

# The editor's boundary buttons: (edge, unit, extend, what the button says).
EDGE_MOVES = [
    ("start", "char", True, "Start: one more character"),
    ("start", "char", False, "Start: one fewer character"),
    ("start", "word", True, "Start: one more word"),
    ("start", "word", False, "Start: one fewer word"),
    ("end", "char", True, "End: one more character"),
    ("end", "char", False, "End: one fewer character"),
    ("end", "word", True, "End: one more word"),
    ("end", "word", False, "End: one fewer word"),
]
# Suggestions offered at once: keys 1-5 pick one.
SUGGESTION_KEYS = 5
RTL_LANGUAGES = frozenset({"ar", "fa", "he", "ur"})
# Highlight colours cycle through this many classes (c0 … c7 in cloak.css).
PALETTE_SIZE = 8


def text_direction(language: str) -> str:
    return "rtl" if language.split("-")[0].lower() in RTL_LANGUAGES else "ltr"


def open_document(request: ProjectRequest, pk: int) -> Document:
    """The project's document `pk`; 404 when the caller may not see its language."""
    document = get_object_or_404(
        Document.objects.select_related("assignee").defer("search_text"),
        project=request.project,
        pk=pk,
    )
    document.project = request.project
    # A document in a language the user may not see does not exist for them.
    if not can_view_document(request.user, document):
        raise Http404("No such document.")
    return document


def workspace_context(
    request: ProjectRequest, document: Document, *, notice: str = "", error: bool = False
) -> dict[str, Any]:
    project = request.project
    spans = list(Span.objects.for_document(document).order_by("start", "end", "id"))
    text = document.text
    direction = text_direction(document.language)
    choices = span_choices(document, spans)
    # Colours by first appearance here: a schema has more labels than a palette has colours,
    # but one document rarely shows more than eight, and then no two of them look alike.
    # The spans' own URLs, built from their common prefix: one reverse, not four per span.
    spans_url = reverse("span_add", args=[project.slug, document.pk])
    colour: dict[str, str] = {}
    for span in spans:
        span.action_url = f"{spans_url}{span.pk}/"  # type: ignore[attr-defined]
        colour.setdefault(span.label, f"c{len(colour) % PALETTE_SIZE}")
        surface = text[span.start : span.end]
        span.surface = surface  # type: ignore[attr-defined]
        span.colour = colour[span.label]  # type: ignore[attr-defined]
        # A surface with no letters (a phone number) reads in the document's direction.
        span.direction = first_strong_direction(surface) or direction  # type: ignore[attr-defined]
        choice = choices.get(span.pk)
        replacement = choice.replacement if choice else ""
        span.replacement = replacement  # type: ignore[attr-defined]
        span.replacement_direction = (  # type: ignore[attr-defined]
            first_strong_direction(replacement) or direction
        )

    proposals = [span for span in spans if span.status == SpanStatus.PROPOSED]
    descriptions = {
        label["name"]: label.get("description", "")
        for label in project.label_schema.get("labels", [])
    }
    legend = [(label, css, descriptions.get(label, "")) for label, css in colour.items()]
    segments = [
        (
            segment,
            colour[segment.spans[0].label] if segment.spans else "",
            segment.direction_in(direction) if segment.spans else "",
        )
        for segment in segment_text(text, spans)
    ]
    can_annotate = access_for(request.user, project).can(Can.ANNOTATE)
    return {
        **project_nav(request),
        "text_html": text_html(segments),
        "rows_html": rows_html(
            spans,
            language=document.language,
            can_annotate=can_annotate,
            csrf_token=get_token(request),
        ),
        "document": document,
        "language_label": language_label(document.language),
        "direction": direction,
        "segments": segments,
        "spans": spans,
        "legend": legend,
        "rejected": SpanStatus.REJECTED,
        "characters": len(text),
        "can_annotate": can_annotate,
        "labels": project.labels,
        "decisions": DECISION_CHOICES,
        "open_proposals": len(proposals),
        "proposal_labels": sorted({span.label for span in proposals}),
        "proposal_sources": sorted(
            {(span.source, SOURCE_LABELS.get(span.source, span.source)) for span in proposals}
        ),
        "notice": notice,
        "notice_is_error": error,
    }


@project_page(Can.VIEW_PROJECT)
def document_detail(request: ProjectRequest, pk: int) -> HttpResponse:
    document = open_document(request, pk)
    return render(request, "annotator/document_detail.html", workspace_context(request, document))


def _change(form: SpanActionForm, document: Document, span_id: int) -> SpanChange:
    data = form.cleaned_data
    action = data["action"]
    if action == "move":
        span = get_object_or_404(Span, document=document, pk=span_id)
        start, end = move_edge(
            document.text, span.start, span.end,
            edge=data["edge"], unit=data["unit"], extend=data["extend"],
        )  # fmt: skip
        return SpanChange(start=start, end=end)
    if action == "accept":
        return SpanChange(status=SpanStatus.ACCEPTED)
    if action == "reject":
        return SpanChange(status=SpanStatus.REJECTED)
    if action == "label":
        return SpanChange(label=data["label"])
    if action == "flag":
        return SpanChange(flag=data["comment"])
    return SpanChange(
        decision=data["decision"],
        keep_reason=data["keep_reason"] if data["decision"] == Decision.KEEP else None,
        replacement=data["replacement"] or None,
    )


@require_POST
@project_page(Can.ANNOTATE)
def span_action(request: HtmxProjectRequest, pk: int, span_id: int) -> HttpResponse:
    """One action on one span (accept, reject, label, decide, flag) with the version read."""
    document = open_document(request, pk)
    form = SpanActionForm(request.POST, labels=request.project.labels)
    notice, error = "", False
    if not form.is_valid():
        notice = form_errors(form)
        error = True
    else:
        try:
            span_update(
                document=document,
                span_id=span_id,
                actor=request.user,
                version=form.cleaned_data["version"],
                change=_change(form, document, span_id),
            )
        except StaleVersion:
            notice = "This span changed since you opened it: here it is as it is now."
            error = True
        except DomainError as refused:
            notice, error = str(refused), True
    return _answer(request, document, notice, error, anchor=f"#span-{span_id}")


def _answer(
    request: HtmxProjectRequest, document: Document, notice: str, error: bool, anchor: str = ""
) -> HttpResponse:
    """The workspace fragment for htmx; else back to the page, the notice as a message."""
    if request.htmx:
        document.refresh_from_db()
        context = workspace_context(request, document, notice=notice, error=error)
        return render(request, "annotator/document_detail.html#workspace", context)
    if notice:
        (messages.error if error else messages.info)(request, notice)
    url = reverse("document_detail", args=[request.project.slug, document.pk])
    return redirect(f"{url}{anchor}")


@project_page(Can.ANNOTATE)
def span_editor(request: ProjectRequest, pk: int, span_id: int) -> HttpResponse:
    """One span's editor (label, decision and pseudonym with suggestions, a flag), loaded
    when asked for: the page itself stays light however many spans it holds."""
    document = open_document(request, pk)
    span = get_object_or_404(Span, document=document, pk=span_id)
    choice = span_choices(document, [span]).get(span.pk)
    surface = document.text[span.start : span.end]
    return render(
        request,
        "annotator/_span_editor.html",
        {
            "project": request.project,
            "document": document,
            "span": span,
            "labels": request.project.labels,
            "decisions": DECISION_CHOICES,
            "replacement": choice.replacement if choice else "",
            "moves": EDGE_MOVES,
            "suggestions": suggestions_for(
                request.project, surface, span.label, document.language, count=SUGGESTION_KEYS
            ),
        },
    )


@project_page(Can.ANNOTATE)
def span_suggestions(request: ProjectRequest, pk: int, span_id: int) -> HttpResponse:
    """Up to five pseudonyms for the span's surface (the one already chosen first), each a
    button that saves it as the span's pseudonym: the fragment `s` then 1-5 picks from."""
    document = open_document(request, pk)
    span = get_object_or_404(Span, document=document, pk=span_id)
    surface = document.text[span.start : span.end]
    suggestions = suggestions_for(
        request.project, surface, span.label, document.language, count=SUGGESTION_KEYS
    )
    return render(
        request,
        "annotator/_span_suggestions.html",
        {"project": request.project, "document": document, "span": span,
         "suggestions": suggestions},
    )  # fmt: skip


@require_POST
@project_page(Can.ANNOTATE)
def span_add(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """A span the machine missed, from a selection on the page (accepted, source `human`)."""
    document = open_document(request, pk)
    form = SpanAddForm(request.POST)
    if not form.is_valid():
        notice = form_errors(form)
        return _answer(request, document, notice, True)
    try:
        span = span_create(
            document=document,
            actor=request.user,
            start=form.cleaned_data["start"],
            end=form.cleaned_data["end"],
            label=form.cleaned_data["label"],
        )
    except DomainError as refused:
        return _answer(request, document, str(refused), True)
    return _answer(request, document, "", False, anchor=f"#span-{span.pk}")


@require_POST
@project_page(Can.ANNOTATE)
def spans_bulk(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """Accept every proposal of a label, or reject every proposal of a source."""
    document = open_document(request, pk)
    form = BulkForm(request.POST)
    if not form.is_valid():
        notice = form_errors(form)
        return _answer(request, document, notice, True)
    status = form.cleaned_data["status"]
    outcome = spans_decide_all(
        document=document,
        actor=request.user,
        status=status,
        label=form.cleaned_data["label"] or None,
        source=form.cleaned_data["source"] or None,
    )
    verb = "accepted" if status == SpanStatus.ACCEPTED else "rejected"
    notice = f"{outcome.changed} proposal{'s' if outcome.changed != 1 else ''} {verb}."
    if outcome.conflicts:
        notice += (
            f" {outcome.conflicts} left: their surface is decided otherwise in the project;"
            " decide them one by one."
        )
    return _answer(request, document, notice, bool(outcome.conflicts))


@require_POST
@project_page(Can.ANNOTATE)
def document_done(request: ProjectRequest, pk: int) -> HttpResponse:
    """Mark the document done (no proposal left), then on to the next of one's queue."""
    document = open_document(request, pk)
    slug = request.project.slug
    try:
        document_status_set(document=document, actor=request.user, status=DocumentStatus.DONE)
    except DomainError as refused:
        messages.error(request, str(refused))
        return redirect("document_detail", slug, document.pk)
    following = next_document(request.user, request.project, after=document.pk)
    if following is None:
        messages.success(request, "Done. Nothing is left in your queue for this project.")
        return redirect("project_detail", slug)
    messages.success(request, f"{document.external_id} is done.")
    return redirect("document_detail", slug, following.pk)
