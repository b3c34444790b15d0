"""The annotator's document page, driven in Chromium as a person uses it: a selection and a
key, a click on a highlight, a suggestion picked with `s` then a digit, a flag with `f`, an
edge moved from the span's editor, undo with `u`, and "Mark done". Each action waits for the
server's answer and for htmx to put it in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.browser.selection import select_in_text
from tests.e2e.conftest import PROJECT, Api

# htmx swaps the answer after the response arrives; the page's own script then patches rows.
SETTLE_MS = 150


@dataclass
class Workspace:
    page: Any
    api: Api
    document_id: int

    @property
    def path(self) -> str:
        return f"/projects/{PROJECT}/documents/{self.document_id}/"

    def open(self) -> Workspace:
        self.page.goto(self.path)
        self.page.wait_for_selector("#workspace .doc-text")
        return self

    def text(self) -> str:
        return str(self.page.eval_on_selector("#workspace .doc-text", "box => box.textContent"))

    # --- What the server holds (the API, as the same person) -----------------------------------

    def spans(self) -> list[dict[str, Any]]:
        return list(self.api.get(f"documents/{self.document_id}/spans/?limit=1000")["results"])

    def span_at(self, start: int, end: int) -> dict[str, Any] | None:
        found = [s for s in self.spans() if (s["start"], s["end"]) == (start, end)]
        live = [s for s in found if s["status"] != "rejected"] or found
        return live[0] if live else None

    def span(self, span_id: int) -> dict[str, Any]:
        return dict(self.api.get(f"documents/{self.document_id}/spans/{span_id}/"))

    # --- Acting -----------------------------------------------------------------------------

    def select(self, surface: str) -> None:
        """Select the first occurrence of `surface` in the text, as a mouse would."""
        select_in_text(self.page, surface)

    def press(self, key: str) -> None:
        """A key whose action posts: wait for the answer and its swap."""
        with self.page.expect_response(lambda r: r.request.method == "POST") as answer:
            self.page.keyboard.press(key)
        assert answer.value.status < 500, f"{key}: {answer.value.status}"
        self.page.wait_for_timeout(SETTLE_MS)

    def press_confirming(self, key: str) -> None:
        """A key whose action the page may ask to confirm (a relabel that spans elsewhere
        follow): press it, and confirm when asked."""
        self.press(key)
        button = self.page.locator("#workspace .confirm-form button")
        if button.count():
            with self.page.expect_response(lambda r: r.request.method == "POST"):
                button.first.click()
            self.page.wait_for_timeout(SETTLE_MS)

    def focus(self, span_id: int) -> None:
        """Click the span's highlight, which focuses the first span under it; where spans
        overlap (a proposal a person's span pushed aside), `j` moves on to this one."""
        self.page.evaluate("() => window.getSelection().removeAllRanges()")
        self.page.click(f'#workspace .doc-text mark[data-spans~="{span_id}"]')
        focused = f'tr[data-span-id="{span_id}"].is-focused'
        for _ in range(self.page.locator("#workspace tr[data-span-id]").count()):
            if self.page.locator(focused).count():
                return
            self.page.keyboard.press("j")
        self.page.wait_for_selector(focused, timeout=2000)

    def editor(self, span_id: int) -> Any:
        """Open the span's editor from its row; the editor's element."""
        row = self.page.locator(f'tr[data-span-id="{span_id}"]')
        with self.page.expect_response(lambda r: "/editor/" in r.url):
            row.get_by_role("button", name="Change…").click()
        return self.page.wait_for_selector(f"#editor-{span_id}")

    def click_in_editor(self, span_id: int, button: str) -> None:
        editor = self.page.locator(f"#editor-{span_id}")
        with self.page.expect_response(lambda r: r.request.method == "POST") as answer:
            editor.get_by_role("button", name=button, exact=True).click()
        assert answer.value.status < 500, f"{button}: {answer.value.status}"
        self.page.wait_for_timeout(SETTLE_MS)

    def pick_suggestion(self, span_id: int, number: int = 1) -> None:
        """`s` shows the span's suggestions; the digit picks one."""
        self.focus(span_id)
        with self.page.expect_response(lambda r: "/suggestions/" in r.url):
            self.page.keyboard.press("s")
        self.page.wait_for_selector(f'tr[data-span-id="{span_id}"] [data-suggestion="{number}"]')
        self.press(str(number))

    def flag(self, span_id: int, comment: str) -> None:
        """`f` opens the editor at the comment for the lead; the button sends it."""
        self.focus(span_id)
        with self.page.expect_response(lambda r: "/editor/" in r.url):
            self.page.keyboard.press("f")
        self.page.wait_for_selector(f"#editor-{span_id} textarea[name=comment]")
        self.page.fill(f"#editor-{span_id} textarea[name=comment]", comment)
        self.click_in_editor(span_id, "Flag for review")

    def accept_all(self) -> None:
        """The page's "Accept every proposal labelled …": once for each label it offers."""
        for _ in range(20):
            select = self.page.locator("#bulk-label")
            if not select.count():
                return
            label = select.locator("option").first.get_attribute("value")
            select.select_option(label)
            with self.page.expect_response(lambda r: "/spans/bulk/" in r.url) as answer:
                self.page.get_by_role("button", name="Accept all").click()
            assert answer.value.status == 200, answer.value.status
            self.page.wait_for_timeout(SETTLE_MS)
        raise AssertionError("the page still offers proposals to accept after 20 labels")

    def mark_done(self) -> None:
        """The page's "Mark done" (a plain form: the page moves on to the next document)."""
        with self.page.expect_navigation():
            self.page.get_by_role("button", name="Mark done, next document").click()
        assert "/documents/" in self.page.url or self.page.url.endswith("/"), self.page.url
