"""Who may be given documents: the members of a project, and each language's annotator, who
gets the documents that nobody holds."""

from __future__ import annotations

from typing import Any

from annotator.models import Membership, Project, Role


def annotators_by_language(project: Project) -> dict[str, Any]:
    """Each language of the project with an annotator: that annotator (the earliest member)."""
    chosen: dict[str, Any] = {}
    memberships = (
        Membership.objects.filter(project=project, role=Role.ANNOTATOR)
        .select_related("user")
        .order_by("created_at", "id")
    )
    for membership in memberships:
        for language in membership.languages:
            chosen.setdefault(language, membership.user)
    return chosen


def member_names(project: Project) -> list[str]:
    """The usernames of the project's members, sorted: whom a document may be given to."""
    return sorted(
        Membership.objects.filter(project=project).values_list("user__username", flat=True)
    )
