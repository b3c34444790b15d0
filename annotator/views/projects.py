"""The home page (my projects) and a project's overview."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.permissions import Can, can_create_projects
from annotator.selectors.projects import project_overview, projects_of
from annotator.views.access import ProjectRequest, project_page
from annotator.views.imports import job_context
from annotator.views.nav import project_nav
from annotator.views.review import review_context
from annotator.views.runs import runs_context


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "annotator/home.html",
        {"rows": projects_of(request.user), "can_create": can_create_projects(request.user)},
    )


@project_page(Can.VIEW_PROJECT)
def project_detail(request: ProjectRequest) -> HttpResponse:
    overview = project_overview(request.user, request.project, request.access)
    return render(
        request,
        "annotator/project_detail.html",
        {
            **project_nav(request),
            "overview": overview,
            "can_view_members": request.access.can(Can.VIEW_MEMBERS),
            "job_rows": [job_context(job) for job in overview.imports],
            **runs_context(request),
            **review_context(request),
        },
    )
