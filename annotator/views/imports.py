"""Uploading files to import, and watching an import job."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import reswap, retarget, trigger_client_event

from annotator.errors import DomainError
from annotator.models import ImportJob, JobStatus
from annotator.permissions import Can
from annotator.selectors.imports import import_job_progress, imports_of
from annotator.services.imports import import_job_create
from annotator.views.access import project_page
from annotator.views.forms import ImportForm
from annotator.views.nav import HtmxProjectRequest, project_nav

JOBS_PER_PAGE = 25
ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)


def job_context(job: ImportJob) -> dict[str, Any]:
    return {
        "job": job,
        "active": job.status in ACTIVE,
        "progress": import_job_progress(job),
    }


@project_page(Can.IMPORT)
@require_http_methods(["GET", "HEAD", "POST"])
def import_list(request: HtmxProjectRequest) -> HttpResponse:
    project = request.project
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES, languages=project.languages)
        if form.is_valid():
            try:
                job = import_job_create(
                    project=project,
                    upload=form.cleaned_data["file"],
                    fmt=form.cleaned_data["format"],
                    language=form.cleaned_data["language"] or None,
                    actor=request.user,
                )
            except DomainError as error:
                form.add_error(None, str(error))
            else:
                if request.htmx:
                    # The new row goes on top of the job list, and it follows its job.
                    response = render(
                        request,
                        "annotator/_import_job_row.html",
                        {**project_nav(request), **job_context(job)},
                        status=201,
                    )
                    return trigger_client_event(response, "cloak:import-created")
                return redirect("import_detail", slug=project.slug, pk=job.pk)
        status = 400
    else:
        form = ImportForm(languages=project.languages)
        status = 200

    if request.htmx and request.method == "POST":
        response = render(
            request,
            "annotator/import_list.html#import-form",
            {**project_nav(request), "form": form},
            status=status,
        )
        return reswap(retarget(response, "#import-form"), "outerHTML")

    page = Paginator(imports_of(project), JOBS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "annotator/import_list.html",
        {
            **project_nav(request),
            "form": form,
            "page": page,
            "rows": [job_context(job) for job in page],
        },
        status=status,
    )


@project_page(Can.IMPORT)
@vary_on_headers("HX-Request", "HX-Target")
def import_detail(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    project = request.project
    job = get_object_or_404(imports_of(project), pk=pk)
    context = {**project_nav(request), **job_context(job)}
    if request.htmx and not request.htmx.history_restore_request:
        # A row of the job list polls for itself; the job page polls for its status panel.
        if request.htmx.target == f"import-job-{job.pk}":
            return render(request, "annotator/_import_job_row.html", context)
        return render(request, "annotator/import_detail.html#job-status", context)
    return render(request, "annotator/import_detail.html", context)
