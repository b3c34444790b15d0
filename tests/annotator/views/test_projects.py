"""The home page, the project overview, logging in and out."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.models import DocumentStatus, ImportJob, Role
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, MembershipFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def documents(team: Team, **by_language: int) -> None:
    for language, n in by_language.items():
        DocumentFactory.create_batch(n, project=team.project, language=language)


def test_the_login_page_renders_and_logs_in(team: Team) -> None:
    client = Client()
    assert client.get(reverse("home")).url.startswith(reverse("login"))
    page = client.get(reverse("login"))
    assert page.status_code == 200
    assert b'name="password"' in page.content
    response = client.post(
        reverse("login"), {"username": team.lead.username, "password": "correct-horse-battery"}
    )
    assert response.status_code == 302
    assert response.url == reverse("home")


def test_logout_is_a_post(team: Team) -> None:
    client = client_for(team.lead)
    assert client.get(reverse("logout")).status_code == 405
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert client.get(reverse("home")).status_code == 302


def test_home_lists_my_projects_with_role_and_the_documents_i_may_see(team: Team) -> None:
    documents(team, en=3, fr=2, ar=1)
    page = client_for(team.annotator_fr).get(reverse("home")).content.decode()
    assert team.project.name in page
    assert "Annotator" in page
    # Only the two French documents count for a French annotator.
    assert '<td class="num">2</td>' in page
    assert "elsewhere" not in page.lower()

    page = client_for(team.lead).get(reverse("home")).content.decode()
    assert '<td class="num">6</td>' in page
    assert "Lead" in page


def test_home_shows_a_superuser_every_project_as_admin_of_every_language(
    team: Team, make_user: Any
) -> None:
    documents(team, en=3, fr=2, ar=1)
    boss = make_user(username="boss")
    boss.is_superuser = True
    boss.save(update_fields=["is_superuser"])
    page = client_for(boss).get(reverse("home")).content.decode()
    assert team.project.name in page and "Elsewhere" in page
    assert "Admin" in page
    assert '<td class="num">6</td>' in page


def test_home_has_a_friendly_empty_state(make_user: Any) -> None:
    page = client_for(make_user(username="loner")).get(reverse("home")).content.decode()
    assert "You are not in any project yet" in page


def test_home_costs_the_same_queries_for_one_project_as_for_many(team: Team) -> None:
    client = client_for(team.admin)
    client.get(reverse("home"))
    with CaptureQueriesContext(connection) as one:
        client.get(reverse("home"))
    for _ in range(4):
        project = ProjectFactory()
        MembershipFactory(project=project, user=team.admin, role=Role.ANNOTATOR)
        DocumentFactory.create_batch(2, project=project)
    with CaptureQueriesContext(connection) as five:
        page = client.get(reverse("home")).content.decode()
    assert page.count("/projects/") >= 5
    assert len(five) == len(one)


def test_the_overview_counts_documents_by_language_and_status(team: Team) -> None:
    documents(team, en=2, fr=1)
    DocumentFactory(project=team.project, language="fr", status=DocumentStatus.REVIEWED)
    page = client_for(team.lead).get(reverse("project_detail", args=["radical"])).content.decode()
    assert "English (en)" in page and "French (fr)" in page and "Arabic (ar)" in page
    assert "language=fr&amp;status=reviewed" in page
    assert "Members" in page
    assert "Latest imports" not in page  # a lead does not import
    # The label schema, by group.
    assert "Identifiers" in page and "USERNAME" in page and "@handles and account names" in page


def test_an_annotator_sees_only_their_languages_and_no_members(team: Team) -> None:
    documents(team, en=2, fr=1)
    page = client_for(team.annotator_fr).get(reverse("project_detail", args=["radical"]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "French (fr)" in text
    assert "English (en)" not in text
    assert "Members" not in text
    assert team.annotator_en.username not in text


def test_an_admin_sees_the_latest_imports_and_the_import_link(team: Team) -> None:
    for n in range(7):
        ImportJob.objects.create(project=team.project, filename=f"batch-{n}.jsonl", status="done")
    page = client_for(team.admin).get(reverse("project_detail", args=["radical"])).content.decode()
    assert reverse("import_list", args=["radical"]) in page
    assert page.count('class="job-row"') == 5


def test_a_non_member_is_told_the_project_does_not_exist(team: Team) -> None:
    assert (
        client_for(team.outsider).get(reverse("project_detail", args=["radical"])).status_code
        == 404
    )
    assert (
        client_for(team.outsider).get(reverse("project_detail", args=["nope"])).status_code == 404
    )


def test_the_layout_names_the_user_and_their_role(team: Team) -> None:
    page = client_for(team.annotator_fr).get(reverse("project_detail", args=["radical"]))
    text = page.content.decode()
    assert '<html lang="en' in text
    assert 'hx-headers=\'{"X-CSRFToken": "' in text
    assert team.annotator_fr.username in text
    assert "Annotator · fr" in text
    assert f'action="{reverse("logout")}"' in text
    assert "vendor/htmx.min.js" in text


def test_every_page_names_an_icon_that_is_served(team: Team) -> None:
    page = client_for(team.annotator_en).get("/").content.decode()
    match = re.search(r'<link rel="icon" href="([^"]+)"', page)
    assert match is not None and match.group(1).endswith("/favicon.svg")
    # Served from STATIC_ROOT after collectstatic; here, found where collectstatic looks.
    found = finders.find("favicon.svg")
    assert found is not None and "<svg" in Path(str(found)).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("role", "links"),
    [
        ("annotator_en", set()),
        ("lead", {"review_list", "quality", "key_list"}),
        (
            "admin",
            {"review_list", "quality", "key_list", "audit_list", "key_export", "double_list"},
        ),
    ],
)
def test_each_role_is_linked_to_the_pages_it_may_open(
    team: Team, role: str, links: set[str]
) -> None:
    everything = {"review_list", "quality", "key_list", "audit_list", "key_export", "double_list"}
    client = client_for(team.by_role()[role])
    pages = [reverse("project_detail", args=[team.project.slug])]
    if "key_list" in links:
        pages.append(reverse("key_list", args=[team.project.slug]))
    html = "".join(client.get(page).content.decode() for page in pages)

    shown = {
        name for name in everything if f'href="{reverse(name, args=[team.project.slug])}"' in html
    }

    assert shown == links
