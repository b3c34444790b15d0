"""The documents of a project: a filtered list, and one document to read with its spans."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.vary import vary_on_headers

from annotator import selectors
from annotator.models import Document, Span, SpanStatus
from annotator.permissions import Can, can_view_document
from annotator.views.access import ProjectRequest, project_page
from annotator.views.assignments import assignable_members
from annotator.views.forms import DocumentFilterForm, language_label
from annotator.views.nav import HtmxProjectRequest, project_nav
from annotator.views.segments import first_strong_direction, segment_text

PAGE_SIZE = 50
RTL_LANGUAGES = frozenset({"ar", "fa", "he", "ur"})
# Highlight colours cycle through this many classes (c0 … c7 in cloak.css).
PALETTE_SIZE = 8


def text_direction(language: str) -> str:
    return "rtl" if language.split("-")[0].lower() in RTL_LANGUAGES else "ltr"


@project_page(Can.VIEW_PROJECT)
@vary_on_headers("HX-Request")
def document_list(request: HtmxProjectRequest) -> HttpResponse:
    project, access = request.project, request.access
    form = DocumentFilterForm(request.GET, languages=access.languages)
    filters = form.filters()
    documents = selectors.document_list(request.user, project, **filters)

    page = Paginator(documents, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        **project_nav(request),
        "assign_members": assignable_members(request) if access.can(Can.ASSIGN) else None,
        "form": form,
        "page": page,
        "filtered": bool(filters),
        "language_labels": {code: language_label(code) for code in access.languages},
    }
    template = "annotator/document_list.html"
    if request.htmx and not request.htmx.history_restore_request:
        template += "#document-table"
    return render(request, template, context)


@project_page(Can.VIEW_PROJECT)
def document_detail(request: ProjectRequest, pk: int) -> HttpResponse:
    project = request.project
    document = get_object_or_404(
        Document.objects.select_related("assignee"), project=project, pk=pk
    )
    document.project = project
    # A document in a language the user may not see does not exist for them.
    if not can_view_document(request.user, document):
        raise Http404("No such document.")

    spans = list(Span.objects.for_document(document).order_by("start", "end", "id"))
    text = document.text
    direction = text_direction(document.language)
    # Colours by first appearance here: a schema has more labels than a palette has colours,
    # but one document rarely shows more than eight, and then no two of them look alike.
    colour: dict[str, str] = {}
    for span in spans:
        colour.setdefault(span.label, f"c{len(colour) % PALETTE_SIZE}")
        surface = text[span.start : span.end]
        span.surface = surface  # type: ignore[attr-defined]
        span.colour = colour[span.label]  # type: ignore[attr-defined]
        # A surface with no letters (a phone number) reads in the document's direction.
        span.direction = first_strong_direction(surface) or direction  # type: ignore[attr-defined]

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
    return render(
        request,
        "annotator/document_detail.html",
        {
            **project_nav(request),
            "document": document,
            "language_label": language_label(document.language),
            "direction": direction,
            "segments": segments,
            "spans": spans,
            "legend": legend,
            "rejected": SpanStatus.REJECTED,
            "characters": len(text),
        },
    )
