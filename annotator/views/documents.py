"""The documents of a project: a filtered list (one document is annotator.views.workspace)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.vary import vary_on_headers

from annotator import selectors
from annotator.languages import language_label
from annotator.permissions import Can
from annotator.selectors.assignments import member_names
from annotator.views.access import project_page
from annotator.views.forms import DocumentFilterForm
from annotator.views.nav import HtmxProjectRequest, project_nav

PAGE_SIZE = 50


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
        "assign_members": member_names(request.project) if access.can(Can.ASSIGN) else None,
        "form": form,
        "page": page,
        "filtered": bool(filters),
        "language_labels": {code: language_label(code) for code in access.languages},
    }
    template = "annotator/document_list.html"
    if request.htmx and not request.htmx.history_restore_request:
        template += "#document-table"
    return render(request, template, context)
