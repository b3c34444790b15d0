"""The pages' side of annotator.permissions: one decorator that loads the project and checks."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse

from annotator.models import Project
from annotator.permissions import Access, Can, project_access

View = Callable[..., HttpResponse]


class ProjectRequest(HttpRequest):
    project: Project
    access: Access


def project_page(capability: Can) -> Callable[[View], View]:
    """Require a logged-in member of `slug` holding `capability`.

    Non-members get 404 (a project's existence is not disclosed), members without the
    capability 403. The view receives `request.project` and `request.access`.
    """

    def decorate(view: View) -> View:
        @login_required
        @wraps(view)
        def wrapper(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
            found = project_access(request.user, slug)
            if found is None:
                raise Http404("No such project.")
            project, access = found
            if not access.is_member:
                raise Http404("No such project.")
            if not access.can(capability):
                raise PermissionDenied(f"Your role in {project.slug} does not allow this.")
            request.project = project  # type: ignore[attr-defined]
            request.access = access  # type: ignore[attr-defined]
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
