"""The projects a person belongs to (the home page), and a project's overview as one member
sees it: documents by language and status, the queues, the members, the latest imports and
the label schema. Each read once, up front: the pages cost the same however much they list."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, JSONField, OuterRef, Subquery

from annotator.languages import language_label
from annotator.models import Document, DocumentStatus, ImportJob, Membership, Project, Role
from annotator.permissions import (
    Access,
    Can,
    access_from_membership,
    sees_every_language,
    visible_documents,
)
from annotator.selectors.imports import imports_of
from annotator.selectors.queues import Queue, project_queues, queues_of

GROUP_NAMES = {
    "identifier": "Identifiers",
    "ner": "Named entities",
    "phi": "Protected health information",
    "ipi": "Indirect identifiers",
}
ROLE_ORDER: dict[str, int] = {Role.ADMIN: 0, Role.LEAD: 1, Role.ANNOTATOR: 2}
# The imports the overview lists; the import page lists them all.
LATEST_IMPORTS = 5


@dataclass(frozen=True)
class LanguageCounts:
    language: str
    label: str
    by_status: list[tuple[str, int]]
    total: int


@dataclass(frozen=True)
class MemberRow:
    username: str
    role: str
    role_label: str
    # "all" for a role that works on every language, else the member's own, joined.
    languages: str


@dataclass(frozen=True)
class LabelGroup:
    name: str
    labels: list[dict[str, str]]


@dataclass(frozen=True)
class ProjectOverview:
    languages: list[str]  # the member's languages, named
    statuses: list[DocumentStatus]
    table: list[LanguageCounts]  # one row a language of the member's
    column_totals: list[int]
    grand_total: int
    members: list[MemberRow]  # empty for one who may not see them
    queues: list[Queue]  # every queue, for one who sees every document; else none
    own_queue: Queue
    imports: list[ImportJob]  # the latest, for one who imports
    schema: list[LabelGroup]


def _counts(user: Any, project: Project, access: Access) -> list[LanguageCounts]:
    grouped = (
        visible_documents(user, project)
        .values_list("language", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    cells: dict[tuple[str, str], int] = {(lang, status): n for lang, status, n in grouped}
    statuses = list(DocumentStatus)
    return [
        LanguageCounts(
            language=language,
            label=language_label(language),
            by_status=[(status.value, cells.get((language, status), 0)) for status in statuses],
            total=sum(cells.get((language, status), 0) for status in statuses),
        )
        for language in access.languages
    ]


def _memberships(project: Project) -> list[Membership]:
    """The project's memberships, admins first, then leads, then annotators, by name."""
    return sorted(
        project.memberships.select_related("user"),
        key=lambda m: (ROLE_ORDER.get(m.role, 9), m.user.get_username()),
    )


def _members(project: Project) -> list[MemberRow]:
    memberships = _memberships(project)
    return [
        MemberRow(
            username=m.user.get_username(),
            role=m.role,
            role_label=m.get_role_display(),
            languages="all" if sees_every_language(m.role) else ", ".join(m.languages),
        )
        for m in memberships
    ]


def _schema(project: Project) -> list[LabelGroup]:
    groups: dict[str, list[dict[str, str]]] = {}
    for label in project.label_schema.get("labels", []):
        groups.setdefault(label.get("group") or "other", []).append(label)
    return [
        LabelGroup(GROUP_NAMES.get(group, group.capitalize()), labels)
        for group, labels in groups.items()
    ]


def project_overview(user: Any, project: Project, access: Access) -> ProjectOverview:
    """What the overview shows `user` (whose `access` to `project` the caller checked)."""
    table = _counts(user, project, access)
    column_totals = [sum(row.by_status[i][1] for row in table) for i in range(len(DocumentStatus))]
    # Leads and admins see every queue; everyone sees their own.
    if access.can(Can.VIEW_ALL_DOCUMENTS):
        queues = project_queues(project)
        name = user.get_username()
        own = next((q for q in queues if q.assignee == name), Queue(name))
    else:
        queues = []
        own = queues_of([project], user)[project.pk]
    imports: list[ImportJob] = []
    if access.can(Can.IMPORT):
        imports = list(imports_of(project)[:LATEST_IMPORTS])
    return ProjectOverview(
        languages=[language_label(code) for code in access.languages],
        statuses=list(DocumentStatus),
        table=table,
        column_totals=column_totals,
        grand_total=sum(column_totals),
        members=_members(project) if access.can(Can.VIEW_MEMBERS) else [],
        queues=queues,
        own_queue=own,
        imports=imports,
        schema=_schema(project),
    )


@dataclass(frozen=True)
class ProjectRow:
    project: Project
    role: str
    role_label: str
    languages: list[str]
    documents: int
    queue: Queue  # the documents this person holds


def projects_of(user: Any) -> list[ProjectRow]:
    """The projects `user` belongs to, by name, each with their role, languages, the number
    of documents in them and their queue."""
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
    return rows


@dataclass(frozen=True)
class MemberDetail:
    """A member as the members page shows them: role, languages, and the documents they
    hold (assigned and not finished)."""

    username: str
    role: str
    role_label: str
    languages: list[str]
    sees_all: bool
    holding: int


def members_detail(project: Project) -> list[MemberDetail]:
    """The project's members, admins first, then leads, then annotators, by name; two
    queries whatever their number."""
    held = dict(
        Document.objects.filter(project=project, assignee__isnull=False)
        .exclude(status__in=[DocumentStatus.DONE, DocumentStatus.REVIEWED])
        .values("assignee")
        .annotate(count=Count("id"))
        .values_list("assignee", "count")
    )
    memberships = _memberships(project)
    return [
        MemberDetail(
            username=m.user.get_username(),
            role=m.role,
            role_label=m.get_role_display(),
            languages=list(m.languages),
            sees_all=sees_every_language(m.role),
            holding=int(held.get(m.user_id, 0)),
        )
        for m in memberships
    ]
