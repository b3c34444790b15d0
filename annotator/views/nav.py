"""What every project page gives its layout: the project, the user's role, which links to show."""

from __future__ import annotations

from typing import Any

from django_htmx.middleware import HtmxDetails

from annotator.models import Role
from annotator.permissions import Can
from annotator.views.access import ProjectRequest


class HtmxProjectRequest(ProjectRequest):
    """A project page's request, as django-htmx's middleware leaves it."""

    htmx: HtmxDetails


def project_nav(request: ProjectRequest) -> dict[str, Any]:
    access = request.access
    return {
        "project": request.project,
        "access": access,
        "role_label": Role(access.role).label if access.role else "",
        "nav_can_import": access.can(Can.IMPORT),
        "nav_can_review": access.can(Can.REVIEW),
        "nav_can_read_keys": access.can(Can.READ_KEYS),
        "nav_can_view_audit": access.can(Can.VIEW_AUDIT),
        "nav_can_export_keys": access.can(Can.EXPORT_KEYS),
        "nav_can_assign": access.can(Can.ASSIGN),
        "nav_can_release": access.can(Can.VIEW_RELEASES),
        "nav_can_preannotate": access.can(Can.PREANNOTATE),
        "nav_can_view_members": access.can(Can.VIEW_MEMBERS),
    }
