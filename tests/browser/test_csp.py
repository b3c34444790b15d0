"""Every kind of page works under Cloak's Content-Security-Policy, in a real browser.

The policy allows only Cloak's own files: no inline script, style or event handler, no eval,
nothing from elsewhere. A page that breaks it does not fail loudly: the browser refuses the
part quietly (a style not applied, a handler that never runs) and reports a
`securitypolicyviolation` event and a console error. This test opens each kind of page as an
admin, who reaches them all, acts where the page acts (a span accepted from the keyboard, a
live key search, a filter), and fails on any report: the login page and the lockout page,
home, a project, its documents, a document's workspace, the keys, the review queue, runs,
imports, releases, the quality page with its SVG charts, and the API docs (Swagger UI).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from annotator.models import Document, ReviewItem, ReviewKind, Span, SpanStatus
from annotator.services.table import surface_decide
from tests.annotator.views.test_quality_pages import measured
from tests.browser.test_workspace import CHROMIUM, browser, document, logged_in, press
from tests.conftest import Team

__all__ = ["browser", "document", "measured"]  # fixtures: imported to be used here

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]

# Runs in every document before its own scripts, outside the page's policy.
WATCH = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations.push(
    `${event.effectiveDirective} refused ${event.blockedURI || "inline"} ` +
    `(${event.sourceFile}:${event.lineNumber})`
  );
});
"""


class Watched:
    """A page whose policy violations, reported by events or on the console, are collected."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.found: list[str] = []
        page.on("console", self._console)

    def _console(self, message: Any) -> None:
        if "Content Security Policy" in message.text:
            self.found.append(f"{self.page.url}: console: {message.text}")

    def collect(self) -> None:
        """The violations the current document reported; call before leaving it."""
        for violation in self.page.evaluate("window.cspViolations || []"):
            self.found.append(f"{self.page.url}: {violation}")

    def visit(self, url: str) -> None:
        response = self.page.goto(url)
        assert response is not None and response.status == 200, url
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, url
        self.page.wait_for_load_state("networkidle")
        self.collect()


@pytest.fixture
def watched_admin(browser: Any, live_server: Any, team: Team) -> Iterator[Watched]:
    page = logged_in(browser, live_server, team.admin.username)
    page.context.add_init_script(WATCH)
    watched = Watched(page)
    yield watched
    page.context.close()


def test_every_kind_of_page_runs_without_a_policy_violation(
    team: Team,
    document: Document,
    measured: dict[str, Any],
    watched_admin: Watched,
    live_server: Any,
) -> None:
    project = f"{live_server.url}/projects/{team.project.slug}"
    surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize",
    )  # fmt: skip
    ReviewItem.objects.create(
        project=team.project, kind=ReviewKind.FLAG, document=document,
        span=Span.objects.filter(document=document).first(),
    )  # fmt: skip
    page = watched_admin.page

    for path in (
        "",
        "/documents/",
        "/review/",
        "/runs/",
        "/imports/",
        "/releases/",
        "/audit/",
        "/double/",
        "/learned/",
    ):
        watched_admin.visit(f"{project}{path}")
    watched_admin.visit(f"{live_server.url}/")

    # The quality page draws its charts as inline SVG.
    watched_admin.visit(f"{project}/quality/")
    assert page.locator(".quality-chart svg").count() >= 1

    # The workspace, and an action from the keyboard (htmx patches the page).
    watched_admin.visit(f"{project}/documents/{document.pk}/")
    page.evaluate("window.patchedNotReloaded = true")  # press() checks the page was patched
    page.keyboard.press("j")
    press(page, "a")
    assert Span.objects.filter(document=document, status=SpanStatus.ACCEPTED).exists()
    watched_admin.collect()

    # The keys, and a live search (htmx posts it and swaps the table).
    watched_admin.visit(f"{project}/keys/")
    with page.expect_response(lambda response: response.request.method == "POST"):
        page.fill("input[name=q]", "moshe")
    page.wait_for_load_state("networkidle")
    assert "Moshe Chaya" in page.inner_text("#key-table")
    watched_admin.collect()

    # Swagger UI: its start-up script is a file, its schema fetched and drawn.
    watched_admin.visit(f"{live_server.url}/api/docs/")
    page.wait_for_selector("#swagger-ui .opblock", timeout=20_000)
    watched_admin.collect()

    assert watched_admin.found == []


def test_the_login_and_lockout_pages_run_without_a_policy_violation(
    browser: Any, live_server: Any, team: Team
) -> None:
    context = browser.new_context()
    context.add_init_script(WATCH)
    watched = Watched(context.new_page())
    watched.visit(f"{live_server.url}/accounts/login/")
    page = watched.page
    statuses = []
    for _ in range(5):
        page.fill("input[name=username]", team.lead.username)
        page.fill("input[name=password]", "not-the-password")
        with page.expect_response(lambda response: response.request.method == "POST") as answer:
            page.click("button[type=submit]")
        statuses.append(answer.value.status)
        page.wait_for_load_state()
        watched.collect()
    assert statuses == [200, 200, 200, 200, 429]
    assert "Sign-in paused" in page.inner_text("main")
    context.close()
    assert watched.found == []
