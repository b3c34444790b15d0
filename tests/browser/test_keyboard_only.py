"""Issue 31: a whole document worked from the keyboard, in Chromium, without the mouse: `j`
to a proposal and `a`, `x` one that is wrong, `v` and Shift+arrows to select what the machine
missed and a number to label it, `[` `.` to move an edge of the focused span, `A` to accept
every proposal of a label, `d` to mark the document done; `?` lists the keys."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.models import Document, DocumentStatus, Span, SpanSource, SpanStatus
from tests.browser.test_workspace import CHROMIUM, browser, logged_in, open_workspace
from tests.conftest import Team

__all__ = ["browser"]  # fixtures: imported to be used here

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]

TEXT = "Dear Ms Okafor, Nadia Berrada from Lyon wrote to Karim Haddad about Marseille."


@pytest.fixture
def letter(team: Team) -> Document:
    document = Document.objects.create(
        project=team.project, language="en", external_id="keyboard", text=TEXT,
        assignee=team.annotator_en, status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip
    # The machine: "Okafor" short of its title, "Nadia" short of her surname, a wrong "Dear",
    # two places.
    for surface, label in [("Dear", "PER"), ("Okafor", "PER"), ("Nadia", "PER"),
                           ("Lyon", "LOC"), ("Marseille", "LOC")]:  # fmt: skip
        start = TEXT.index(surface)
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label=label, source=SpanSource.NER, score=0.8)  # fmt: skip
    return document


def press(page: Any, key: str) -> None:
    """A key whose action posts: its answer, then htmx's swap."""
    with page.expect_response(lambda response: response.request.method == "POST"):
        page.keyboard.press(key)
    page.wait_for_load_state()
    page.wait_for_timeout(150)
    assert page.eval_on_selector("#workspace .doc-text", "box => box.textContent") == TEXT


def focused(page: Any) -> str:
    return str(page.eval_on_selector("tr.is-focused", "row => row.dataset.spanId"))


def span_at(document: Document, surface: str) -> Span:
    return Span.objects.filter(document=document, start=TEXT.index(surface)).get()


def test_a_whole_document_worked_without_the_mouse(
    team: Team, letter: Document, browser: Any, live_server: Any
) -> None:
    labels = team.project.labels
    per = str(labels.index("PER") + 1)
    page = logged_in(browser, live_server, team.annotator_en.username)
    url = f"{live_server.url}/projects/{team.project.slug}/documents/{letter.pk}/"
    open_workspace(page, url)
    page.evaluate(
        "window.clicked = 0; document.addEventListener('mousedown', () => window.clicked++, true)"
    )

    page.keyboard.press("?")
    assert page.locator("#keys-legend").get_attribute("open") is not None
    assert "mark the document done" in page.inner_text("#keys-legend")
    page.keyboard.press("?")

    # "Dear" is no name: reject it.
    page.keyboard.press("j")
    assert focused(page) == str(span_at(letter, "Dear").pk)
    press(page, "x")
    assert span_at(letter, "Dear").status == SpanStatus.REJECTED

    # "Okafor": its start one word earlier takes in the title, then accept.
    page.keyboard.press("j")
    okafor = span_at(letter, "Okafor")
    assert focused(page) == str(okafor.pk)
    press(page, "[")
    okafor.refresh_from_db()
    assert TEXT[okafor.start : okafor.end] == "Ms Okafor"
    assert focused(page) == str(okafor.pk)  # the focus stays on the span
    press(page, "a")

    # "Nadia": its end one word later takes in her surname.
    page.keyboard.press("j")
    nadia = span_at(letter, "Nadia")
    assert focused(page) == str(nadia.pk)
    press(page, ".")
    nadia.refresh_from_db()
    assert TEXT[nadia.start : nadia.end] == "Nadia Berrada"
    press(page, "a")

    # What the machine missed: from Nadia, `v` selects the next words one by one; at
    # "Karim", Shift+Ctrl+→ takes in "Haddad", and the person's label adds it.
    for _ in range(5):  # from, Lyon, wrote, to, Karim
        page.keyboard.press("v")
    assert page.evaluate("String(window.getSelection())") == "Karim"
    page.keyboard.press("Control+Shift+ArrowRight")
    assert page.evaluate("String(window.getSelection())") == "Karim Haddad"
    page.keyboard.press("Shift+ArrowLeft")
    assert page.evaluate("String(window.getSelection())") == "Karim Hadda"
    page.keyboard.press("Shift+ArrowRight")
    press(page, per)
    karim = Span.objects.get(document=letter, source=SpanSource.HUMAN)
    assert TEXT[karim.start : karim.end] == "Karim Haddad" and karim.label == "PER"

    # The places: focus one, and `A` accepts every proposal labelled as it is.
    places = {str(span_at(letter, "Lyon").pk), str(span_at(letter, "Marseille").pk)}
    for _ in range(7):
        if focused(page) in places:
            break
        page.keyboard.press("j")
    assert focused(page) in places
    press(page, "A")
    for surface in ("Lyon", "Marseille", "Nadia", "Ms Okafor"):
        assert span_at(letter, surface).status == SpanStatus.ACCEPTED, surface

    assert page.evaluate("window.clicked") == 0  # no mouse button went down on this page
    # Done, with `d`: the page goes on (nothing left in the queue: the project's page).
    with page.expect_navigation():
        page.keyboard.press("d")
    letter.refresh_from_db()
    assert letter.status == DocumentStatus.DONE


def test_a_link_to_a_stretch_selects_it_for_a_label_key(
    team: Team, letter: Document, browser: Any, live_server: Any
) -> None:
    """A release's refusal links a hit no span holds as `#at-start-end`: the page opens with
    that stretch selected, and a label key adds the span there."""
    page = logged_in(browser, live_server, team.annotator_en.username)
    start = TEXT.index("Karim Haddad")
    url = f"{live_server.url}/projects/{team.project.slug}/documents/{letter.pk}/"
    page.goto(f"{url}#at-{start}-{start + len('Karim Haddad')}")
    page.wait_for_function("String(window.getSelection()) === 'Karim Haddad'")
    press(page, str(team.project.labels.index("PER") + 1))
    added = Span.objects.get(document=letter, source=SpanSource.HUMAN)
    assert (added.start, added.end) == (start, start + len("Karim Haddad"))
