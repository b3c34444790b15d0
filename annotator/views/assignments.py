"""Who works on what: the next document of one's queue, and an admin's reassignment."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from annotator.errors import DomainError
from annotator.permissions import Can
from annotator.selectors.assignments import member_names
from annotator.selectors.queues import next_document
from annotator.services.assignments import documents_assign
from annotator.views.access import ProjectRequest, project_page
from annotator.views.forms import AssignForm


@project_page(Can.ANNOTATE)
def next_document_view(request: ProjectRequest) -> HttpResponse:
    """To the next document of the caller's queue that is not done (after `?after=ID`)."""
    after = request.GET.get("after", "")
    document = next_document(
        request.user,
        request.project,
        after=int(after) if after.isascii() and after.isdigit() and len(after) < 19 else None,
    )
    if document is None:
        messages.info(request, "Nothing left in your queue for this project.")
        return redirect("project_detail", request.project.slug)
    return redirect("document_detail", request.project.slug, document.pk)


@require_POST
@project_page(Can.ASSIGN)
def documents_assign_view(request: ProjectRequest) -> HttpResponse:
    """Give the documents picked on the list to a member (or to nobody), then back to the list
    as it was filtered."""
    project = request.project
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}) or not back.startswith(
        reverse("document_list", args=[project.slug])
    ):
        back = reverse("document_list", args=[project.slug])
    form = AssignForm(request.POST, members=member_names(project))
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return HttpResponseRedirect(back)
    assignee = form.cleaned_data["assignee"] or None
    try:
        changed = documents_assign(
            project=project,
            actor=request.user,
            document_ids=form.cleaned_data["documents"],
            assignee=assignee,
        )
    except DomainError as error:
        messages.error(request, str(error))
        return HttpResponseRedirect(back)
    whom = assignee or "nobody"
    messages.success(request, f"{changed} document{'s' if changed != 1 else ''} now with {whom}.")
    return HttpResponseRedirect(back)
