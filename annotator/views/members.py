"""Creating a project and managing its members from the pages, not Django's admin (which
stays for emergencies). Creating a project is for Cloak's administrators
(`can_create_projects`); a project's members are for its admins (Can.MANAGE_PROJECT), and
its leads see them (Can.VIEW_MEMBERS). Every write goes through annotator.services.projects,
which audits it."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotator.audit import client_ip
from annotator.errors import DomainError
from annotator.permissions import Can, can_create_projects
from annotator.selectors.projects import members_detail
from annotator.services.projects import (
    membership_remove,
    membership_set,
    project_create,
    schema_compose,
)
from annotator.views.access import ProjectRequest, project_page
from annotator.views.forms import form_errors
from annotator.views.nav import project_nav
from annotator.views.project_forms import MemberForm, MemberRemoveForm, ProjectCreateForm


@login_required
def project_new(request: HttpRequest) -> HttpResponse:
    """The new-project form; on success, the new project's members page (its creator is its
    admin, and adds the team next)."""
    if not can_create_projects(request.user):
        raise PermissionDenied("Only Cloak's administrators create projects.")
    if request.method == "POST":
        form = ProjectCreateForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                schema = schema_compose(data["preset"], data["labels"], data["custom"])
                project = project_create(
                    slug=data["slug"],
                    languages=data["all_languages"],
                    schema=schema,
                    name=data["name"],
                    description=data["description"],
                    created_by=request.user,
                )
            except DomainError as error:
                form.add_error(None, str(error))
            else:
                messages.success(request, f"Project {project.slug} created. Add its members next.")
                return redirect("members", project.slug)
    else:
        form = ProjectCreateForm()
    return render(request, "annotator/project_new.html", {"form": form})


@login_required
def project_new_labels(request: HttpRequest) -> HttpResponse:
    """The labels fieldset for the preset chosen (htmx, when the preset changes)."""
    if not can_create_projects(request.user):
        raise PermissionDenied("Only Cloak's administrators create projects.")
    form = ProjectCreateForm(initial={"preset": request.GET.get("preset", "cloaked")})
    return render(request, "annotator/_project_labels.html", {"form": form})


def _members_context(request: ProjectRequest, form: MemberForm | None = None) -> dict[str, Any]:
    project = request.project
    manage = request.access.can(Can.MANAGE_PROJECT)
    return {
        **project_nav(request),
        "page": "members",
        "members": members_detail(project),
        "can_manage": manage,
        "form": form or MemberForm(languages=project.languages),
        "languages": project.languages,
    }


@project_page(Can.VIEW_MEMBERS)
def members(request: ProjectRequest) -> HttpResponse:
    return render(request, "annotator/members.html", _members_context(request))


@require_POST
@project_page(Can.MANAGE_PROJECT)
def member_set(request: ProjectRequest) -> HttpResponse:
    """Add a person, or change a member's role and languages (the same form, per row)."""
    form = MemberForm(request.POST, languages=request.project.languages)
    if not form.is_valid():
        messages.error(request, form_errors(form))
        return render(request, "annotator/members.html", _members_context(request, form),
                      status=400)  # fmt: skip
    data = form.cleaned_data
    try:
        membership_set(
            project=request.project,
            username=data["username"],
            role=data["role"],
            languages=data["languages"],
            password=data["password"] or None,
            email=data["email"],
            actor=request.user,
            via="page",
            ip_address=client_ip(request),
        )
    except DomainError as error:
        messages.error(request, str(error))
        return render(request, "annotator/members.html", _members_context(request, form),
                      status=400)  # fmt: skip
    messages.success(request, f"{data['username']} is {data['role']} in {request.project.slug}.")
    return redirect("members", request.project.slug)


@require_POST
@project_page(Can.MANAGE_PROJECT)
def member_remove(request: ProjectRequest) -> HttpResponse:
    form = MemberRemoveForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_errors(form))
        return redirect("members", request.project.slug)
    username = form.cleaned_data["username"]
    if not form.cleaned_data["confirm"]:
        member = next((m for m in members_detail(request.project) if m.username == username), None)
        if member is None:
            messages.error(request, f"{username!r} is not a member of {request.project.slug}")
            return redirect("members", request.project.slug)
        context = {**_members_context(request), "removing": member}
        return render(request, "annotator/members.html", context)
    try:
        released = membership_remove(
            project=request.project, username=username, actor=request.user,
            ip_address=client_ip(request),
        )  # fmt: skip
    except DomainError as error:
        messages.error(request, str(error))
        return redirect("members", request.project.slug)
    tail = f"; {released} unfinished document(s) they held are back in the pool" if released else ""
    messages.success(request, f"{username} left {request.project.slug}{tail}.")
    return redirect("members", request.project.slug)
