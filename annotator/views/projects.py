"""The home page (my projects) and a project's overview."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Count, JSONField, OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.languages import language_label
from annotator.models import Document, DocumentStatus, Membership, Project, Role
from annotator.permissions import (
    Can,
    access_from_membership,
    sees_every_language,
    visible_documents,
)
from annotator.selectors.queues import Queue, project_queues, queues_of
from annotator.views.access import ProjectRequest, project_page
from annotator.views.imports import job_context
from annotator.views.nav import project_nav
from annotator.views.review import review_context
from annotator.views.runs import runs_context

GROUP_NAMES = {
    "identifier": "Identifiers",
    "ner": "Named entities",
    "phi": "Protected health information",
    "ipi": "Indirect identifiers",
}
ROLE_ORDER: dict[str, int] = {Role.ADMIN: 0, Role.LEAD: 1, Role.ANNOTATOR: 2}


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


@dataclass(frozen=True)
class LanguageCounts:
    language: str
    label: str
    by_status: list[tuple[str, int]]
    total: int


@project_page(Can.VIEW_PROJECT)
def project_detail(request: ProjectRequest) -> HttpResponse:
    project, access = request.project, request.access
    grouped = (
        visible_documents(request.user, project)
        .values_list("language", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    cells: dict[tuple[str, str], int] = {(lang, status): n for lang, status, n in grouped}
    statuses = list(DocumentStatus)
    table = [
        LanguageCounts(
            language=language,
            label=language_label(language),
            by_status=[(status.value, cells.get((language, status), 0)) for status in statuses],
            total=sum(cells.get((language, status), 0) for status in statuses),
        )
        for language in access.languages
    ]
    column_totals = [sum(row.by_status[i][1] for row in table) for i in range(len(statuses))]

    members: list[tuple[Membership, str]] = []
    if access.can(Can.VIEW_MEMBERS):
        members = [
            (m, "all" if sees_every_language(m.role) else ", ".join(m.languages))
            for m in sorted(
                project.memberships.select_related("user"),
                key=lambda m: (ROLE_ORDER.get(m.role, 9), m.user.get_username()),
            )
        ]
    # Leads and admins see every queue; everyone sees their own.
    if access.can(Can.VIEW_ALL_DOCUMENTS):
        queues = project_queues(project)
        name = request.user.get_username()
        own = next((q for q in queues if q.assignee == name), Queue(name))
    else:
        queues = []
        own = queues_of([project], request.user)[project.pk]
    jobs: list[dict[str, Any]] = []
    if access.can(Can.IMPORT):
        jobs = [job_context(job) for job in project.import_jobs.select_related("created_by")[:5]]

    groups: dict[str, list[dict[str, str]]] = {}
    for label in project.label_schema.get("labels", []):
        group = label.get("group") or "other"
        groups.setdefault(group, []).append(label)
    schema = [
        (GROUP_NAMES.get(group, group.capitalize()), labels) for group, labels in groups.items()
    ]

    return render(
        request,
        "annotator/project_detail.html",
        {
            **project_nav(request),
            "languages": [language_label(code) for code in access.languages],
            "statuses": statuses,
            "table": table,
            "column_totals": column_totals,
            "grand_total": sum(column_totals),
            "members": members,
            "queues": queues,
            "own_queue": own,
            "can_view_members": access.can(Can.VIEW_MEMBERS),
            "job_rows": jobs,
            "schema": schema,
            **runs_context(request),
            **review_context(request),
        },
    )
