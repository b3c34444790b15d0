"""Releases on the pages: cut one, follow it live, read its manifest or what refused it,
dismiss a finding judged harmless, download it.

Admins cut and download releases (Can.RELEASE); leads and admins follow them, read the report
of a refused one and dismiss a finding there, with a reason (Can.VIEW_RELEASES,
Can.DISMISS_HITS), as in the API (annotator.api.releases). An annotator gets 403, someone
outside the project 404. A download and a dismissal are audited.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from annotator.audit import client_ip
from annotator.downloads import release_file
from annotator.errors import ConflictError, DomainError, NotFoundError
from annotator.models import Release, ReleaseFormat
from annotator.permissions import Can
from annotator.selectors.release_pages import (
    MANIFEST,
    check_summary,
    leaking_documents,
    manifest_summary,
    release_leak_rows,
    release_row,
    releases_of,
)
from annotator.selectors.releases import release_progress
from annotator.services.releases import create, dismissals
from annotator.views.access import project_page
from annotator.views.forms import language_choices
from annotator.views.nav import HtmxProjectRequest, project_nav
from pseudonymizer.strategies import Strategy

RELEASES_PER_PAGE = 25
# Documents of a refused release's report on one page.
LEAKING_PER_PAGE = 25
# DESIGN.md's table: what each strategy makes of "Shoutout to Moshe Chaya! At Rue Alphonse
# Metayer.", so that an admin picks knowingly.
STRATEGY_EXAMPLES = {
    Strategy.S0: "Shoutout to ! At .",
    Strategy.S1: "Shoutout to placeholder! At placeholder.",
    Strategy.S2: "Shoutout to PER! At ADDRESS.",
    Strategy.S3: "Shoutout to PER_1! At ADDRESS_2.",
    Strategy.REALISTIC: "Shoutout to Raj Avrom! At Rue Hubert Couturier.",
}


class ReleaseForm(forms.Form):
    strategy = forms.ChoiceField(
        label="Strategy",
        choices=[
            (strategy.value, f"{strategy.label} — “{STRATEGY_EXAMPLES[strategy]}”")
            for strategy in Strategy
        ],
        help_text="“keep” spans are never replaced; “invalidate” spans are invalidated under "
        "every strategy but S0.",
    )
    format = forms.ChoiceField(label="Format", choices=ReleaseFormat.choices)
    language = forms.ChoiceField(label="Language", required=False)

    def __init__(self, *args: Any, languages: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        language = cast(forms.ChoiceField, self.fields["language"])
        language.choices = [("", "Every language"), *language_choices(languages)]


class DismissForm(forms.Form):
    """A finding of a refused release judged harmless: where it is, what found it, and why."""

    document_id = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    start = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    end = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    detector = forms.CharField(max_length=32, widget=forms.HiddenInput)
    reason = forms.CharField(
        label="Why it is harmless",
        max_length=dismissals.REASON_MAX,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )


def _list_page(request: HtmxProjectRequest, form: ReleaseForm, status: int) -> HttpResponse:
    releases = releases_of(request.project)
    page = Paginator(releases, RELEASES_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        **project_nav(request),
        "can_cut": request.access.can(Can.RELEASE),
        "release_form": form,
        "page": page,
        "release_rows": [release_row(release, release_progress(release)) for release in page],
    }
    return render(request, "annotator/release_list.html", context, status=status)


@project_page(Can.VIEW_RELEASES)
@require_safe
def release_list(request: HtmxProjectRequest) -> HttpResponse:
    """The project's releases, newest first, and the form that cuts a new one."""
    project = request.project
    form = ReleaseForm(initial={"strategy": project.strategy}, languages=project.languages)
    return _list_page(request, form, 200)


@project_page(Can.RELEASE)
@require_POST
def release_create(request: HtmxProjectRequest) -> HttpResponse:
    """Cut a release (a task builds it) and follow it on its page; a bad form changes nothing."""
    project = request.project
    form = ReleaseForm(request.POST, languages=project.languages)
    if form.is_valid():
        try:
            release = create.release_create(
                project=project,
                strategy=form.cleaned_data["strategy"],
                format=form.cleaned_data["format"],
                language=form.cleaned_data["language"],
                actor=request.user,
                ip_address=client_ip(request),
            )
        except DomainError as error:
            form.add_error(None, str(error))
        else:
            return redirect("release_detail", slug=project.slug, pk=release.pk)
    return _list_page(request, form, 400)


def _release(request: HtmxProjectRequest, pk: int) -> Release:
    return get_object_or_404(releases_of(request.project), pk=pk)


def _detail_context(
    request: HtmxProjectRequest, release: Release, dismiss_form: DismissForm | None = None
) -> dict[str, Any]:
    leaking = Paginator(release_leak_rows(release), LEAKING_PER_PAGE).get_page(
        request.GET.get("leaks")
    )
    return {
        **project_nav(request),
        "release": release,
        "row": release_row(release, release_progress(release)),
        "summary": manifest_summary(release),
        "check": check_summary(release),
        "leaking_page": leaking,
        "leaking": leaking_documents(request.project, leaking, release=release),
        "can_cut": request.access.can(Can.RELEASE),
        "can_dismiss": request.access.can(Can.DISMISS_HITS),
        "dismiss_form": dismiss_form,
    }


@project_page(Can.VIEW_RELEASES)
@require_safe
@vary_on_headers("HX-Request", "HX-Target")
def release_detail(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    release = _release(request, pk)
    context = _detail_context(request, release)
    if request.htmx and not request.htmx.history_restore_request:
        # A row of the release table polls for itself; the release's page for its panel.
        if request.htmx.target == f"release-{release.pk}":
            return render(request, "annotator/_release_row.html", context)
        return render(request, "annotator/release_detail.html#release-status", context)
    return render(request, "annotator/release_detail.html", context)


@project_page(Can.DISMISS_HITS)
@require_POST
def release_dismiss(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """Dismiss a finding of a refused release as harmless, with a reason (audited); back to the
    same page of the report. A bad form, or a finding the release did not list, changes
    nothing and says why."""
    release = _release(request, pk)
    form = DismissForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            dismissals.release_hit_dismiss(
                release=release,
                document_id=form.cleaned_data["document_id"],
                start=form.cleaned_data["start"],
                end=form.cleaned_data["end"],
                detector=form.cleaned_data["detector"],
                reason=form.cleaned_data["reason"],
                actor=request.user,
                ip_address=client_ip(request),
            )
        except NotFoundError as error:
            form.add_error(None, str(error))
            status = 404
        except ConflictError as error:
            form.add_error(None, str(error))
            status = 409
        except DomainError as error:
            form.add_error(None, str(error))
        else:
            target = reverse("release_detail", args=[request.project.slug, release.pk])
            page = request.GET.get("leaks")
            query = f"?leaks={page}" if page and page.isdigit() else ""
            return redirect(f"{target}{query}#leak-document-{form.cleaned_data['document_id']}")
    context = _detail_context(request, release, dismiss_form=form)
    return render(request, "annotator/release_detail.html", context, status=status)


def _download(request: HtmxProjectRequest, pk: int, what: str) -> HttpResponse:
    release = _release(request, pk)
    try:
        # project_page is typed for the pages' HttpResponse; this one streams a file.
        return cast(HttpResponse, release_file(request, release, what))
    except ConflictError as error:
        return HttpResponse(str(error), status=409, content_type="text/plain; charset=utf-8")


@project_page(Can.RELEASE)
@require_GET
def release_download(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    return _download(request, pk, "data")


@project_page(Can.RELEASE)
@require_GET
def release_manifest(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    return _download(request, pk, MANIFEST)
