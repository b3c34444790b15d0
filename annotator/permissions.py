"""Who may do what: the one place roles are decided, used by the pages and by the API.

A person's rights in a project come from their Membership (annotator, lead or admin; an
annotator's rights are limited to their languages). Superusers act as admins everywhere.
Non-members are told a project does not exist rather than that they may not see it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from django.db.models import Exists, OuterRef, QuerySet, Subquery
from django.http import Http404
from rest_framework.permissions import BasePermission

from annotator.models import Document, DocumentQuerySet, Membership, Project, Role

if TYPE_CHECKING:
    from rest_framework.request import Request
    from rest_framework.views import APIView


class Can(StrEnum):
    VIEW_PROJECT = "view_project"
    ANNOTATE = "annotate"  # documents of one's own languages
    VIEW_ALL_DOCUMENTS = "view_all_documents"
    REVIEW = "review"
    READ_KEYS = "read_keys"
    EDIT_KEYS = "edit_keys"  # merge, split, link, change a decision or a pseudonym, audited
    VIEW_MEMBERS = "view_members"
    MANAGE_PROJECT = "manage_project"  # members, schema
    IMPORT = "import"
    ASSIGN = "assign"  # give documents to members
    PREANNOTATE = "preannotate"
    RELEASE = "release"  # cut releases and download them
    VIEW_RELEASES = "view_releases"  # follow releases and read what refused one
    DISMISS_HITS = "dismiss_hits"  # judge a finding that refused a release harmless, audited
    EXPORT_KEYS = "export_keys"
    VIEW_AUDIT = "view_audit"


_ANNOTATOR = {Can.VIEW_PROJECT, Can.ANNOTATE}
_LEAD = _ANNOTATOR | {
    Can.VIEW_ALL_DOCUMENTS,
    Can.REVIEW,
    Can.READ_KEYS,
    Can.EDIT_KEYS,
    Can.VIEW_MEMBERS,
    Can.VIEW_RELEASES,
    Can.DISMISS_HITS,
}
_ADMIN = set(Can)

ROLE_CAPABILITIES: dict[str, frozenset[Can]] = {
    Role.ANNOTATOR: frozenset(_ANNOTATOR),
    Role.LEAD: frozenset(_LEAD),
    Role.ADMIN: frozenset(_ADMIN),
}


@dataclass(frozen=True)
class Access:
    """What one user may do in one project."""

    role: str | None
    languages: tuple[str, ...]
    all_languages: bool

    @property
    def is_member(self) -> bool:
        return self.role is not None

    def can(self, capability: Can) -> bool:
        return self.role is not None and capability in ROLE_CAPABILITIES[self.role]

    def can_see_language(self, language: str) -> bool:
        return self.is_member and (self.all_languages or language in self.languages)


NO_ACCESS = Access(role=None, languages=(), all_languages=False)


def acting_user(actor: Any) -> Any:
    """The person `actor` is, to record as who acted: the user, or None for no one (a task,
    a management command, an anonymous request)."""
    return actor if actor is not None and getattr(actor, "is_authenticated", False) else None


def acting_user_id(actor: Any) -> int | None:
    """The id of the person `actor` is (`acting_user`); None for no one."""
    pk = getattr(acting_user(actor), "pk", None)
    return int(pk) if pk is not None else None


def sees_every_language(role: str) -> bool:
    """Whether `role` works on every language of a project, not only a member's own."""
    return Can.VIEW_ALL_DOCUMENTS in ROLE_CAPABILITIES[role]


def access_from_membership(
    user: Any, project: Project, role: str | None, languages: Sequence[str]
) -> Access:
    """The access that a membership's `role` and `languages` (None: no membership) give `user`.

    For pages that load memberships in bulk; `access_for` builds its answer here too.
    """
    if user.is_superuser:
        return Access(role=Role.ADMIN, languages=tuple(project.languages), all_languages=True)
    if role is None:
        return NO_ACCESS
    sees_all = sees_every_language(role)
    return Access(
        role=role,
        languages=tuple(project.languages if sees_all else languages),
        all_languages=sees_all,
    )


def _accesses(user: Any) -> dict[int, Access]:
    """The accesses worked out for `user` in this request, by project id: the user object
    lives as long as the request."""
    cache: dict[int, Access] = user.__dict__.setdefault("_cloak_access", {})
    return cache


def access_for(user: Any, project: Project) -> Access:
    """The user's access to the project (memoised on the user object for one request)."""
    if user is None or not user.is_authenticated:
        return NO_ACCESS
    cache = _accesses(user)
    if project.pk in cache:
        return cache[project.pk]
    membership = None
    if not user.is_superuser:
        membership = Membership.objects.filter(user=user, project=project).first()
    access = access_from_membership(
        user,
        project,
        role=membership.role if membership else None,
        languages=membership.languages if membership else (),
    )
    cache[project.pk] = access
    return access


def project_access(user: Any, slug: str) -> tuple[Project, Access] | None:
    """The project `slug` and the user's access to it (`access_for`, and memoised as it is),
    read in one query: the user's membership comes with the project. None when no project
    has that slug."""
    projects = Project.objects.filter(slug=slug)
    member = user is not None and user.is_authenticated and not user.is_superuser
    if member:
        membership = Membership.objects.filter(project=OuterRef("pk"), user=user)
        projects = projects.annotate(
            member_role=Subquery(membership.values("role")[:1]),
            member_languages=Subquery(membership.values("languages")[:1]),
        )
    project = projects.first()
    if project is None:
        return None
    if member and project.pk not in _accesses(user):
        role = getattr(project, "member_role", None)
        languages = getattr(project, "member_languages", None) or []
        if isinstance(languages, str):  # a JSON column read through a subquery, undecoded
            languages = json.loads(languages)
        access = access_from_membership(user, project, role=role, languages=languages)
        _accesses(user)[project.pk] = access
    return project, access_for(user, project)


def can_create_projects(user: Any) -> bool:
    """Creating a project is outside any project: Cloak's administrators (superusers) and
    whoever holds Django's `annotator.add_project` permission. The creator becomes the new
    project's admin."""
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_superuser or user.has_perm("annotator.add_project"))


def can(user: Any, project: Project, capability: Can) -> bool:
    return access_for(user, project).can(capability)


def can_view_document(user: Any, document: Document) -> bool:
    access = access_for(user, document.project)
    if not access.can_see_language(document.language):
        return False
    if access.can(Can.VIEW_ALL_DOCUMENTS):
        return True
    # Blind double annotation: an annotator opens a replica only when it is theirs, and never
    # the original of one they hold.
    if document.is_blind:
        return bool(document.assignee_id == user.pk)
    read = document.__dict__.get(_REPLICA_HELD)
    if read is not None and read[0] == user.pk:  # read with the document (document_or_404)
        return not read[1]
    return not _replicas_held(document.pk, user).exists()


# Where document_or_404 keeps what it read with the document of whether the user who opened
# it holds a replica of it: (user id, whether they do).
_REPLICA_HELD = "_cloak_replica_held"


def _replicas_held(document: Any, user: Any) -> QuerySet[Document]:
    return Document.objects.filter(replica_of=document, assignee=user)


def document_or_404(
    user: Any, project: Project, pk: Any, documents: QuerySet[Document] | None = None
) -> Document:
    """The document `pk` of `project` (read from `documents`, which may select, defer or
    lock), when `user` may open it (`can_view_document`). Http404 otherwise, the same for a
    document that does not exist and one the user may not see, so that nobody learns which
    documents exist in languages they do not work on; pages and the API alike.

    One query: whether the user holds a replica of it, which decides for an annotator, is
    read with the document."""
    queryset = Document.objects.all() if documents is None else documents
    queryset = queryset.filter(project=project, pk=pk)
    access = access_for(user, project)
    asks = access.is_member and not access.can(Can.VIEW_ALL_DOCUMENTS)
    if asks:
        queryset = queryset.annotate(replica_held=Exists(_replicas_held(OuterRef("pk"), user)))
    document = queryset.first()
    if document is None:
        raise Http404("No such document.")
    document.project = project
    if asks:
        document.__dict__[_REPLICA_HELD] = (user.pk, document.__dict__.pop("replica_held"))
    if not can_view_document(user, document):
        raise Http404("No such document.")
    return document


def visible_documents(user: Any, project: Project) -> DocumentQuerySet:
    """The documents of `project` that `user` may open."""
    access = access_for(user, project)
    documents = Document.objects.for_project(project)
    if not access.is_member:
        return documents.none()
    documents = documents.listed_for(user, blind=not access.can(Can.VIEW_ALL_DOCUMENTS))
    if access.all_languages:
        return documents
    return documents.in_languages(list(access.languages))


# --- The API's side of the same rules -----------------------------------------------------


class ProjectPermission(BasePermission):
    """DRF permission for views under /api/projects/{slug}/: the view names its capability.

    The view sets `required_capability` (or `capability_by_method`) and exposes
    `get_project()`; a non-member gets 404, a member without the capability 403.
    """

    def has_permission(self, request: Request, view: APIView) -> bool:
        project: Project = view.get_project()  # type: ignore[attr-defined]
        access = access_for(request.user, project)
        if not access.is_member:
            raise Http404("No such project.")
        by_method: dict[str, Can] = getattr(view, "capability_by_method", {})
        default: Can = view.required_capability  # type: ignore[attr-defined]
        return access.can(by_method.get(request.method or "GET", default))
