"""Issue 31: an administrator creates a project and its team from the pages, in Chromium,
never opening Django's admin: the preset's labels change with the preset, one is left out and
one added, then an annotator is added, made a lead, and removed after the page asks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from annotator.models import Membership, Project
from pseudonymizer.schemas import label_names
from tests.browser.test_workspace import CHROMIUM, browser, logged_in
from tests.conftest import PASSWORD

__all__ = ["browser"]  # fixtures: imported to be used here

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]


def _shot(page: Any, name: str) -> None:
    """With CLOAK_SCREENSHOTS set to a folder, the page as the README shows it."""
    folder = os.environ.get("CLOAK_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def test_an_administrator_creates_a_project_and_its_members_from_the_pages(
    browser: Any, live_server: Any
) -> None:
    users = get_user_model()
    users.objects.create_superuser("root", "root@example.org", PASSWORD)
    users.objects.create_user("amira", password=PASSWORD)
    page = logged_in(browser, live_server, "root")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.get_by_role("link", name="New project").click()
    page.fill("input[name=slug]", "essays")
    page.fill("input[name=name]", "Learner essays")
    page.check("input[name=languages][value=en]")
    page.check("input[name=languages][value=ar]")
    with page.expect_response(lambda r: "/projects/new/labels/" in r.url):
        page.select_option("select[name=preset]", "basic")
    page.wait_for_selector("#project-labels input[value=MISC]")
    assert page.locator("#project-labels input[value=NAME_PATIENT]").count() == 0
    page.uncheck("#project-labels input[value=MISC]")
    page.fill("textarea[name=custom_labels]", "SCHOOL: a school or a university")
    page.set_viewport_size({"width": 1280, "height": 900})
    _shot(page, "project-new")
    page.get_by_role("button", name="Create the project").click()
    page.wait_for_url(f"{live_server.url}/projects/essays/members/")

    project = Project.objects.get(slug="essays")
    assert project.languages == ["ar", "en"]  # in the order the form lists them
    assert label_names(project.label_schema) == ["PER", "LOC", "ORG", "SCHOOL"]

    form = page.locator("#member-add-form")
    form.locator("input[name=username]").fill("amira")
    form.locator("select[name=role]").select_option("annotator")
    form.locator("input[name=languages][value=ar]").check()
    form.get_by_role("button", name="Add").click()
    page.wait_for_selector("#members-table tr[data-username=amira]")
    assert Membership.objects.get(project=project, user__username="amira").languages == ["ar"]

    _shot(page, "members")
    row = page.locator("#members-table tr[data-username=amira]")
    row.locator("select[name=role]").select_option("lead")
    row.get_by_role("button", name="Save").click()
    page.wait_for_selector("#members-table tr[data-username=amira] .role-lead")
    assert Membership.objects.get(project=project, user__username="amira").role == "lead"

    page.locator("#members-table tr[data-username=amira]").get_by_role(
        "button", name="Remove…"
    ).click()
    page.wait_for_selector("#member-remove-confirm")
    page.get_by_role("button", name="Remove amira").click()
    page.wait_for_selector("#members-table tr[data-username=root]")
    assert page.locator("#members-table tr[data-username=amira]").count() == 0
    assert not Membership.objects.filter(project=project, user__username="amira").exists()
    assert errors == []
