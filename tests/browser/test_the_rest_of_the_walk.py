"""What the walk through the demo found outside the workspace, in a real browser: Enter in the
key search sends one search (one audited read, no htmx error on the console), and the entity
page shows a long pseudonym whole in its field."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.models import AuditAction, AuditEvent
from annotator.services.table import surface_decide
from tests.browser.test_workspace import CHROMIUM, browser, logged_in
from tests.conftest import Team

__all__ = ["browser"]  # fixtures: imported to be used here

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]

LONG_PSEUDONYM = "paper.maker@example.org"


@pytest.fixture
def entity(team: Team) -> int:
    choice = surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", replacement=LONG_PSEUDONYM,
    )  # fmt: skip
    return int(choice.entity_id)


def searches(team: Team) -> int:
    return AuditEvent.objects.filter(project=team.project, action=AuditAction.KEY_SEARCH).count()


@pytest.mark.parametrize("how", ["fill", "type"])
def test_enter_in_the_key_search_sends_one_search_without_a_console_error(
    team: Team, entity: int, browser: Any, live_server: Any, how: str
) -> None:
    page = logged_in(browser, live_server, team.lead.username)
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    posts: list[str] = []
    page.on(
        "request",
        lambda request: request.method == "POST" and "/keys/" in request.url and posts.append(""),
    )
    page.goto(f"{live_server.url}/projects/{team.project.slug}/keys/")
    before = searches(team)
    field = page.locator("input[name=q]")
    with page.expect_response(lambda r: r.request.method == "POST" and "/keys/" in r.url):
        if how == "fill":
            field.fill("Moshe")
        else:
            field.press_sequentially("Moshe")  # a person typing, then Enter at once
        field.press("Enter")
    page.wait_for_function("location.search.includes('search=')")
    page.wait_for_timeout(900)  # past the search field's 400 ms pause: nothing more is sent
    assert "Moshe Chaya" in page.inner_text("#key-table")
    assert len(posts) == 1
    assert searches(team) == before + 1
    assert errors == []


def test_the_entity_page_shows_a_long_pseudonym_whole(
    team: Team, entity: int, browser: Any, live_server: Any
) -> None:
    page = logged_in(browser, live_server, team.lead.username)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/projects/{team.project.slug}/keys/{entity}/")
    field = page.locator(f'input[value="{LONG_PSEUDONYM}"]')
    assert field.input_value() == LONG_PSEUDONYM
    widths = field.evaluate("(input) => [input.scrollWidth, input.clientWidth]")
    assert widths[0] <= widths[1], widths
    # The page itself does not scroll sideways for it.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
