"""Issue 31, "see what is decided": at 1280 px the spans table keeps its columns with a long
pseudonym, and a "mark done" refused shows its banner where the page scrolls to (the first
proposal left, far below the top)."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.models import Document, DocumentStatus, Span, SpanSource, SpanStatus
from annotator.services.table import surface_decide
from tests.browser.test_workspace import CHROMIUM, browser, logged_in, no_sideways_scroll
from tests.conftest import Team

__all__ = ["browser"]  # fixtures: imported to be used here

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]

LONG = "margaret.thornbury-fairweather.family-office@btinternet-mailhost.co.uk"


@pytest.fixture
def long_letter(team: Team) -> Document:
    lines = [f"Line {n}: nothing to see here, only words." for n in range(80)]
    text = "Write to m.t@example.org today.\n" + "\n".join(lines) + "\nSigned, Oona Farrelly."
    document = Document.objects.create(
        project=team.project, language="en", external_id="long", text=text,
        assignee=team.annotator_en, status=DocumentStatus.IN_PROGRESS,
    )  # fmt: skip
    start = text.index("m.t@example.org")
    choice = surface_decide(project=team.project, surface="m.t@example.org", language="en",
                            label="EMAIL", decision="pseudonymize", replacement=LONG)  # fmt: skip
    Span.objects.create(document=document, start=start, end=start + len("m.t@example.org"),
                        label="EMAIL", source=SpanSource.HUMAN, status=SpanStatus.ACCEPTED,
                        entity_id=choice.entity_id)  # fmt: skip
    at = text.index("Oona Farrelly")
    Span.objects.create(document=document, start=at, end=at + len("Oona Farrelly"),
                        label="PER", source=SpanSource.NER, score=0.9)  # fmt: skip
    return document


def test_a_long_pseudonym_keeps_the_table_whole_and_a_refused_done_shows_where_one_looks(
    team: Team, long_letter: Document, browser: Any, live_server: Any
) -> None:
    page = logged_in(browser, live_server, team.annotator_en.username)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/projects/{team.project.slug}/documents/{long_letter.pk}/")
    assert LONG in page.inner_text("#workspace table.spans")
    assert no_sideways_scroll(page)

    with page.expect_navigation():
        page.keyboard.press("d")  # a proposal is left: refused, the page opens on it
    assert page.url.endswith(f"#span-{Span.objects.get(label='PER').pk}")
    page.wait_for_timeout(300)
    banner = page.locator(".messages .message-error")
    assert banner.count() == 1
    box = banner.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, box
    assert page.evaluate("window.scrollY") > 0  # the page did scroll down to the proposal
