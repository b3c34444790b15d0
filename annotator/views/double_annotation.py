"""Blind double annotation on the pages: give a sample of a language's documents to a second
annotator, and follow the pairs (original, replica) with both annotators and statuses.

Admins (Can.ASSIGN) only, as in the API (annotator.api.double_annotation); the service is
annotator.services.double_annotation.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotator.errors import DomainError
from annotator.languages import language_label
from annotator.permissions import Can
from annotator.selectors.assignments import member_names
from annotator.selectors.documents import replica_pairs
from annotator.services.double_annotation import double_assign
from annotator.views.access import project_page
from annotator.views.forms import language_choices
from annotator.views.nav import HtmxProjectRequest, project_nav

PAIRS_PER_PAGE = 50


class DoubleAssignForm(forms.Form):
    language = forms.ChoiceField(label="Language")
    percentage = forms.DecimalField(
        label="Percentage of the documents",
        min_value=Decimal("0.001"),
        max_value=Decimal(100),
        max_digits=6,
        decimal_places=3,
        initial=10,
        help_text="Of the documents of that language someone else holds and that have no "
        "second annotation yet; rounded up, at least one.",
    )
    annotator = forms.ChoiceField(label="Second annotator")

    def __init__(self, *args: Any, languages: list[str], members: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["language"]).choices = language_choices(languages)
        cast(forms.ChoiceField, self.fields["annotator"]).choices = [
            (name, name) for name in members
        ]


def _form_page(request: HtmxProjectRequest, form: DoubleAssignForm, status: int) -> HttpResponse:
    return render(
        request,
        "annotator/double_assign.html",
        {**project_nav(request), "form": form},
        status=status,
    )


@project_page(Can.ASSIGN)
@require_http_methods(["GET", "HEAD", "POST"])
def double_assign_view(request: HtmxProjectRequest) -> HttpResponse:
    """GET: the form; POST: give the sample to the second annotator, then to the pairs."""
    project = request.project
    arguments = {"languages": project.languages, "members": member_names(project)}
    if request.method != "POST":
        return _form_page(request, DoubleAssignForm(**arguments), 200)
    form = DoubleAssignForm(request.POST, **arguments)
    if not form.is_valid():
        return _form_page(request, form, 400)
    language = form.cleaned_data["language"]
    annotator = form.cleaned_data["annotator"]
    try:
        outcome = double_assign(
            project=project,
            language=language,
            percentage=form.cleaned_data["percentage"],
            annotator=annotator,
            actor=request.user,
        )
    except DomainError as refused:
        form.add_error(None, str(refused))
        return _form_page(request, form, 400)
    count = outcome.documents
    messages.success(
        request,
        f"{count} document{'s' if count != 1 else ''} in {language_label(language)} given to "
        f"{annotator} for a blind second annotation.",
    )
    return redirect("double_list", project.slug)


@project_page(Can.ASSIGN)
def double_list(request: HtmxProjectRequest) -> HttpResponse:
    """The pairs of a double annotation: each original beside its replica, with both
    annotators and both statuses (`?language=` narrows them)."""
    project = request.project
    language = request.GET.get("language", "")
    if language not in project.languages:
        language = ""
    pairs = replica_pairs(project, language=language or None)
    page = Paginator(pairs, PAIRS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "annotator/double_list.html",
        {
            **project_nav(request),
            "page": page,
            "language": language,
            "languages": language_choices(project.languages),
        },
    )
