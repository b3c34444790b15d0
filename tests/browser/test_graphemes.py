"""Half a character never becomes a span: in a real browser (headless Chromium, driven by
Playwright), a selection that takes half of "👍🏽" or of a flag sends the whole character
when a label key is pressed, and the API refuses the half the page would not send.

Chromium is Debian's (`make test` installs it); Playwright drives it, it never downloads one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from annotator.models import Document, DocumentStatus, Span, SpanSource
from tests.browser.selection import select_in_text
from tests.conftest import PASSWORD, Team, client_for

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]

HAND = "\U0001f44d"  # 👍
TONE = "\U0001f3fd"  # 🏽, the skin tone that belongs to the hand before it
FRANCE = "\U0001f1eb\U0001f1f7"  # 🇫🇷: two regional indicators, one flag
TEXT = f"Merci {HAND}{TONE} Moshe Chaya !\r\nVive {FRANCE} et René."


@pytest.fixture
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are
    # plain synchronous ones all the same.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture
def document(team: Team) -> Document:
    return Document.objects.create(
        project=team.project, language="en", external_id="graphemes", text=TEXT,
        assignee=team.annotator_en, status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip


def logged_in(browser: Any, live_server: Any, username: str) -> Any:
    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page


def press(page: Any, key: str) -> None:
    with page.expect_response(lambda response: response.request.method == "POST"):
        page.keyboard.press(key)
    page.wait_for_load_state()
    page.wait_for_timeout(100)  # htmx settles the swap


def human_surfaces(document: Document) -> list[str]:
    spans = Span.objects.filter(document=document, source=SpanSource.HUMAN).order_by("start")
    return [TEXT[span.start : span.end] for span in spans]


@pytest.mark.parametrize(
    ("part", "whole"),
    [
        pytest.param(HAND, HAND + TONE, id="the-hand-without-its-tone"),
        pytest.param(TONE, HAND + TONE, id="the-tone-alone"),
        pytest.param(FRANCE[0], FRANCE, id="half-a-flag"),
        pytest.param(FRANCE[1], FRANCE, id="the-other-half"),
        pytest.param("Chaya !\r", "Chaya !\r\n", id="cr-without-its-lf"),
    ],
)
def test_a_label_key_on_half_a_character_sends_the_whole_of_it(
    team: Team, document: Document, browser: Any, live_server: Any, part: str, whole: str
) -> None:
    page = logged_in(browser, live_server, team.annotator_en.username)
    page.goto(f"{live_server.url}/projects/{team.project.slug}/documents/{document.pk}/")
    assert page.eval_on_selector("#workspace .doc-text", "box => box.textContent") == TEXT
    select_in_text(page, part)
    press(page, "1")
    assert human_surfaces(document) == [whole.rstrip("\r\n")]


@pytest.mark.parametrize(
    ("part", "whole"),
    [(HAND, HAND + TONE), (TONE, HAND + TONE), (FRANCE[:1], FRANCE), (FRANCE[1:], FRANCE)],
    ids=["hand", "tone", "first-indicator", "second-indicator"],
)
def test_the_api_refuses_the_half_the_page_would_not_send(
    team: Team, document: Document, part: str, whole: str
) -> None:
    start = TEXT.index(part)
    response = client_for(team.annotator_en).post(
        f"/api/projects/{team.project.slug}/documents/{document.pk}/spans/",
        {"start": start, "end": start + len(part), "label": team.project.labels[0]},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "cut a character in two" in response.json()["detail"]
    whole_start = TEXT.index(whole)
    assert f"[{whole_start}, {whole_start + len(whole)})" in response.json()["detail"]
    assert not Span.objects.filter(document=document).exists()
