"""Nothing of the keys or the review queue stays in a browser tab after its person signs out.

htmx keeps snapshots of the pages it navigates in `sessionStorage`, and Back shows a snapshot
without asking the server: the key table and the review list, originals decrypted, stayed
there past the sign-out, and were shown again unaudited. Cloak keeps no snapshot (its htmx
configuration), so Back asks the server again: audited while signed in, sent to sign in
after. The address htmx remembers is cleared at the sign-out too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotator.models import AuditAction, AuditEvent, ReviewItem, ReviewKind, Span
from annotator.services.table import surface_decide
from tests.browser.test_workspace import CHROMIUM, browser, document, logged_in
from tests.conftest import Team

__all__ = ["browser", "document"]  # fixtures: imported to be used here

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]

ORIGINALS = ("Moshe", "Chaya", "سارة")


def storage(page: Any) -> str:
    """Everything the tab's sessionStorage holds, as one string."""
    return str(page.evaluate("JSON.stringify(Object.entries(sessionStorage))"))


def holds_an_original(text: str) -> bool:
    decoded = json.loads(text) if text.startswith("[") else text
    return any(original in str(decoded) for original in ORIGINALS)


def key_reads(team: Team) -> int:
    return AuditEvent.objects.filter(
        project=team.project, action__in=[AuditAction.KEY_READ, AuditAction.KEY_SEARCH]
    ).count()


def test_back_after_sign_out_shows_no_original_and_asks_the_server(
    team: Team, document: Any, browser: Any, live_server: Any
) -> None:
    surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", replacement="Raj Avrom",
    )  # fmt: skip
    ReviewItem.objects.create(
        project=team.project, kind=ReviewKind.FLAG, document=document,
        span=Span.objects.filter(document=document).order_by("start").first(),
    )  # fmt: skip
    project = f"{live_server.url}/projects/{team.project.slug}"
    page = logged_in(browser, live_server, team.lead.username)

    # The review list, then a filter through htmx, which pushes its address.
    page.goto(f"{project}/review/")
    assert "Moshe Chaya" in page.content()
    with page.expect_response(lambda r: "/review/" in r.url and "status=all" in r.url):
        page.select_option("select[name=status]", "all")
    page.wait_for_function("location.search.includes('status=all')")

    # The key table, and a live search through htmx (it pushes a sealed address).
    page.goto(f"{project}/keys/")
    with page.expect_response(lambda r: r.request.method == "POST" and "/keys/" in r.url):
        page.fill("input[name=q]", "Moshe")
        page.keyboard.press("Enter")
    page.wait_for_function("location.search.includes('search=')")
    assert "Moshe Chaya" in page.inner_text("#key-table")
    searched = page.url
    assert not holds_an_original(storage(page))
    assert "htmx-history-cache" not in storage(page)

    # Back, still signed in: the page is asked again (and the read audited), not restored.
    reads = key_reads(team)
    with (
        page.expect_response(
            lambda r: r.request.resource_type == "document" and "/keys/" in r.url
        ) as answered,
        page.expect_event("load"),
    ):
        page.go_back()
    assert answered.value.status == 200
    assert key_reads(team) == reads + 1
    page.goto(searched)
    assert "Moshe Chaya" in page.inner_text("#key-table")

    # Sign out: nothing of the pages stays in the tab.
    with page.expect_navigation():
        page.click(".logout-form button[type=submit]")
    page.wait_for_url("**/accounts/login/**")
    assert not holds_an_original(storage(page))
    assert "htmx-history-cache" not in storage(page)

    # Back: the browser asks the server, which sends an anonymous person to sign in.
    reads = key_reads(team)
    with page.expect_response(
        lambda r: r.request.resource_type == "document" and "/keys/" in r.url
    ) as answered:
        page.go_back()
    assert answered.value.status == 302
    page.wait_for_url("**/accounts/login/**")
    assert not any(original in page.content() for original in ORIGINALS)
    assert not holds_an_original(storage(page))
    assert key_reads(team) == reads
