"""The home page (my projects) and a project's overview."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Count, JSONField, OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.models import Document, Membership, Project, Role
from annotator.permissions import Can, access_from_membership
from annotator.selectors.projects import project_overview
from annotator.selectors.queues import Queue, queues_of
from annotator.views.access import ProjectRequest, project_page
from annotator.views.imports import job_context
from annotator.views.nav import project_nav
from annotator.views.review import review_context
from annotator.views.runs import runs_context


@dataclass(frozen=True)
class ProjectRow:
    project: Project
    role: str
    role_label: str
    languages: list[str]
    documents: int
    queue: Queue  # the documents this person holds


@login_required
def home(request: HttpRequest) -> HttpResponse:
    user: Any = request.user
    # Role and languages come with the projects, and the document counts in one grouped
    # query, so the page costs the same for one project as for fifty.
    mine = Membership.objects.filter(project=OuterRef("pk"), user=user)
    projects = list(
        Project.objects.for_user(user)
        .annotate(
            my_role=Subquery(mine.values("role")[:1]),
            my_languages=Subquery(mine.values("languages")[:1], output_field=JSONField()),
        )
        .order_by("name", "slug")
    )
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    by_language = (
        Document.objects.filter(project__in=projects)
        .originals()
        .values_list("project_id", "language")
        .annotate(n=Count("id"))
        .order_by()
    )
    for project_id, language, n in by_language:
        counts[project_id][language] = n
    queues = queues_of(projects, user)

    rows = []
    for project in projects:
        access = access_from_membership(
            user,
            project,
            role=project.my_role,  # type: ignore[attr-defined]
            languages=project.my_languages or [],  # type: ignore[attr-defined]
        )
        if access.role is None:  # for_user() lists only projects the user belongs to
            continue
        languages = list(access.languages)
        documents = sum(counts[project.pk].get(language, 0) for language in languages)
        rows.append(
            ProjectRow(
                project,
                access.role,
                Role(access.role).label,
                languages,
                documents,
                queues[project.pk],
            )
        )
    return render(request, "annotator/home.html", {"rows": rows})


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
