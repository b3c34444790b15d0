"""Pre-annotation runs on the pages: start one, follow it live, resume it.

Admins start and resume runs (Can.PREANNOTATE); leads and admins, who see every document,
follow them (Can.VIEW_ALL_DOCUMENTS), as in the API (annotator.api.runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from annotator.errors import DomainError
from annotator.languages import language_label
from annotator.models import JobStatus, PreannotationRun
from annotator.permissions import Can
from annotator.selectors.runs import BatchCounts, batch_counts, run_source_counts, runs_of
from annotator.services import runs as service
from annotator.services.runs import ACTIVE, LEARNED_PREFIX
from annotator.views.access import ProjectRequest, project_page
from annotator.views.forms import language_choices
from annotator.views.nav import HtmxProjectRequest, project_nav
from pseudonymizer.vocabulary import DEFAULT_PROFILE, PROFILES

RUNS_PER_PAGE = 25
RECENT_RUNS = 5
VIEW_RUNS = Can.VIEW_ALL_DOCUMENTS
PROFILE_HELP = {
    "recall": "Recall (the default): propose everything that may identify someone.",
    "precise": "Precise: fewer proposals to reject, more left for people to add.",
}


class RunForm(forms.Form):
    language = forms.ChoiceField(label="Language", required=False)
    profile = forms.ChoiceField(
        label="Profile",
        initial=DEFAULT_PROFILE,
        choices=[(profile, PROFILE_HELP.get(profile, profile)) for profile in PROFILES],
    )

    def __init__(self, *args: Any, languages: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        language = cast(forms.ChoiceField, self.fields["language"])
        language.choices = [("", "Every language"), *language_choices(languages)]


@dataclass(frozen=True)
class RunRow:
    """What a page shows of one run."""

    run: PreannotationRun
    active: bool
    percent: int
    batches: BatchCounts
    language: str
    models: list[tuple[str, str]]
    can_resume: bool


def _models(models_used: dict[str, str]) -> list[tuple[str, str]]:
    """Each language's NER model, then the learned model version it used, if any:
    "Arabic (ar): none", "Arabic (ar), learned from decisions: v3"."""
    rows = []
    for code, spec in sorted(models_used.items()):
        if code.startswith(LEARNED_PREFIX):
            language = language_label(code.removeprefix(LEARNED_PREFIX))
            rows.append((f"{language}, learned from decisions", spec))
        else:
            rows.append((language_label(code), spec))
    return rows


def run_row(run: PreannotationRun, *, can_start: bool) -> RunRow:
    total = run.documents_total
    return RunRow(
        run=run,
        active=run.status in ACTIVE,
        percent=100 if not total else int(100 * run.documents_done / total),
        batches=batch_counts(run),
        language=language_label(run.language) if run.language else "Every language",
        models=_models(run.models_used),
        can_resume=can_start and run.status != JobStatus.DONE,
    )


def runs_context(request: ProjectRequest) -> dict[str, Any]:
    """The runs part of the project's overview: the start button and the latest runs."""
    access = request.access
    can_view, can_start = access.can(VIEW_RUNS), access.can(Can.PREANNOTATE)
    recent = runs_of(request.project)[:RECENT_RUNS] if can_view else []
    return {
        "can_view_runs": can_view,
        "can_preannotate": can_start,
        "run_form": RunForm(languages=request.project.languages) if can_start else None,
        "run_rows": [run_row(run, can_start=can_start) for run in recent],
    }


def _run_page(request: HtmxProjectRequest, form: RunForm | None, status: int) -> HttpResponse:
    can_start = request.access.can(Can.PREANNOTATE)
    page = Paginator(runs_of(request.project), RUNS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "annotator/run_list.html",
        {
            **project_nav(request),
            "run_form": form,
            "can_preannotate": can_start,
            "page": page,
            "run_rows": [run_row(run, can_start=can_start) for run in page],
        },
        status=status,
    )


@project_page(VIEW_RUNS)
def _run_index(request: HtmxProjectRequest) -> HttpResponse:
    can_start = request.access.can(Can.PREANNOTATE)
    form = RunForm(languages=request.project.languages) if can_start else None
    return _run_page(request, form, 200)


@project_page(Can.PREANNOTATE)
def _run_start(request: HtmxProjectRequest) -> HttpResponse:
    project = request.project
    form = RunForm(request.POST, languages=project.languages)
    if form.is_valid():
        try:
            run = service.run_create(
                project=project,
                actor=request.user,
                language=form.cleaned_data["language"] or None,
                profile=form.cleaned_data["profile"],
            )
        except DomainError as error:
            form.add_error(None, str(error))
        else:
            return redirect("run_detail", slug=project.slug, pk=run.pk)
    return _run_page(request, form, 400)


@require_http_methods(["GET", "HEAD", "POST"])
def run_list(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the project's runs (leads and admins); POST: start one (admins)."""
    if request.method == "POST":
        return _run_start(request, slug)
    return _run_index(request, slug)


def _detail_context(request: HtmxProjectRequest, run: PreannotationRun) -> dict[str, Any]:
    return {
        **project_nav(request),
        "row": run_row(run, can_start=request.access.can(Can.PREANNOTATE)),
        "run": run,
        "source_counts": run_source_counts(run),
    }


@project_page(VIEW_RUNS)
@vary_on_headers("HX-Request", "HX-Target")
def run_detail(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(runs_of(request.project), pk=pk)
    context = _detail_context(request, run)
    if request.htmx and not request.htmx.history_restore_request:
        # A row of a run table polls for itself; the run's page polls for its status panel.
        if request.htmx.target == f"run-{run.pk}":
            return render(request, "annotator/_run_row.html", context)
        return render(request, "annotator/run_detail.html#run-status", context)
    return render(request, "annotator/run_detail.html", context)


@project_page(Can.PREANNOTATE)
@require_POST
def run_resume(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    project = request.project
    run = get_object_or_404(PreannotationRun, project=project, pk=pk)
    error = ""
    try:
        service.run_resume(run=run, actor=request.user)
    except DomainError as refused:
        error = str(refused)
    if request.htmx:
        run = get_object_or_404(runs_of(project), pk=pk)
        context = {**_detail_context(request, run), "resume_error": error}
        return render(
            request, "annotator/run_detail.html#run-status", context, status=400 if error else 200
        )
    if error:
        messages.error(request, error)
    else:
        messages.success(request, f"Run {run.pk} resumed: its unfinished batches are queued.")
    return redirect("run_detail", slug=project.slug, pk=pk)
