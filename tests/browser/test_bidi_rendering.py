"""Highlights in right-to-left text are drawn as the same text without them (a screenshot
test, in headless Chromium).

The document page draws an Arabic text as flat pieces: a plain `<span>` for text, a `<mark>`
for a highlight. A highlight is isolated (it has `dir`) only where its letters run against
the paragraph, as "@cloak_ar" does in Arabic. Isolating every highlight, as `dir="auto"` on
each once did, drew two things wrong, and this test catches both:

- a phone number in Arabic digits, "+٤٤ ٧٧٠٠ ٩٠٠٤٤٨", has no letter, so `dir="auto"` made
  it left-to-right: its "+" went to the other end, and its groups of digits swapped places;
- the proclitic "ل" before the highlighted "مخبز" no longer joined the word: an isolated
  highlight is shaped apart from the text around it.

The test takes away what a highlight adds to the eye (background, border, padding, outline,
label) and nothing that bears on the bidirectional algorithm or on shaping, then compares,
pixel for pixel, the document's text with a reference: the same text as one text node, in a
box of the same size, font and place, where only "@cloak_ar" is isolated (by the Unicode
controls LRI and PDI, which do what `dir="ltr"` does). Each of three wrong renderings (the
old `dir="auto"` on the phone number, the same on "مخبز", and "@cloak_ar" not isolated) must
then differ from the reference, which shows that the comparison can fail.

The font is DejaVu Sans at 32px: with its 2048 units to the em, every advance is then a
whole number of 1/64 px, Chromium's unit of layout. At another size Chromium rounds the
width of each piece to that unit, so the glyphs after a highlight can move by 1/64 px and be
antialiased differently from the reference's, although nothing is wrong.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest

from annotator.models import Document, DocumentStatus, Span, SpanSource
from tests.browser.test_workspace import CHROMIUM, browser, logged_in
from tests.conftest import Team

__all__ = ["browser"]  # a fixture: imported for pytest to find, not used by name

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]

PHONE = "+٤٤ ٧٧٠٠ ٩٠٠٤٤٨"
BAKERY = "مخبز"  # after the proclitic "ل", which stays out of the span
HANDLE = "@cloak_ar"
TEXT = f"ذهبت ل{BAKERY} واتصلت على {PHONE} وكتبت إلى {HANDLE}"

# Both boxes: the same font, size and place on the screen, in whole pixels, on one line.
BOX = """
    position: absolute !important; left: 16px !important; margin: 0 !important;
    z-index: 1000 !important; box-sizing: content-box !important;
    width: 960px !important; max-width: none !important; height: 56px !important;
    padding: 10px 20px !important; border: 0 !important; border-radius: 0 !important;
    background: #ffffff !important; color: #1d2430 !important;
    font: 32px/56px "DejaVu Sans" !important; white-space: pre !important;
"""
# What a highlight adds to the eye, and nothing else: `dir`, `unicode-bidi` and the pieces
# themselves stay as the page has them.
PLAIN_MARKS = """
    .doc-text mark {
        background: none !important; color: inherit !important; font: inherit !important;
        padding: 0 !important; margin: 0 !important; border: 0 !important;
        border-radius: 0 !important; box-shadow: none !important; outline: none !important;
    }
    .doc-text mark::before, .doc-text mark::after { content: none !important; }
"""
STYLE = (
    f"#workspace .doc-text {{ {BOX} top: 16px !important; }}\n"
    f"#reference {{ {BOX} top: 112px !important; }}\n"
    f"{PLAIN_MARKS}"
)
SIZE = "box => [box.scrollWidth, box.scrollHeight, box.clientWidth, box.clientHeight]"
SET_DIR = "(mark, dir) => dir ? mark.setAttribute('dir', dir) : mark.removeAttribute('dir')"


@pytest.fixture
def document(team: Team) -> Document:
    document = Document.objects.create(
        project=team.project, language="ar", external_id="bidi", text=TEXT,
        assignee=team.lead, status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip
    for surface, label in [(BAKERY, "LOC"), (PHONE, "PHONE"), (HANDLE, "PER")]:
        start = TEXT.index(surface)
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label=label, source=SpanSource.NER, score=0.9)  # fmt: skip
    return document


def pixels(png: bytes) -> tuple[int, int, bytes]:
    """The width, height and RGBA bytes of a PNG as Chromium writes them: 8 bits a channel,
    RGB or RGBA, not interlaced."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, data = 8, b""
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at : at + 8])
        chunk = png[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += chunk
    raw, stride = zlib.decompress(data), width * channels
    out, above = bytearray(), bytearray(stride)
    for y in range(height):
        line = y * (stride + 1)
        method, row = raw[line], bytearray(raw[line + 1 : line + 1 + stride])
        for x in range(stride):
            left = row[x - channels] if x >= channels else 0
            up, corner = above[x], (above[x - channels] if x >= channels else 0)
            if method == 1:
                row[x] = (row[x] + left) & 0xFF
            elif method == 2:
                row[x] = (row[x] + up) & 0xFF
            elif method == 3:
                row[x] = (row[x] + (left + up) // 2) & 0xFF
            elif method == 4:  # Paeth: the neighbour nearest to left + up - corner
                guess = left + up - corner
                nearest = min((abs(guess - left), 0, left), (abs(guess - up), 1, up),
                              (abs(guess - corner), 2, corner))  # fmt: skip
                row[x] = (row[x] + nearest[2]) & 0xFF
        above = row
        for x in range(0, stride, channels):
            out += row[x : x + 3] + (row[x + 3 : x + 4] if channels == 4 else b"\xff")
    return width, height, bytes(out)


def differing_pixels(png: bytes, expected: tuple[int, int, bytes]) -> int:
    """How many pixels of a screenshot differ from those `expected` (a decoded screenshot of
    the same size)."""
    width, height, actual = pixels(png)
    assert (width, height) == expected[:2]
    return sum(actual[i : i + 4] != expected[2][i : i + 4] for i in range(0, len(actual), 4))


def test_highlights_draw_arabic_text_as_it_is_drawn_without_them(
    team: Team, document: Document, browser: Any, live_server: Any
) -> None:
    page = logged_in(browser, live_server, team.lead.username)
    page.set_viewport_size({"width": 1100, "height": 700})
    page.goto(f"{live_server.url}/projects/{team.project.slug}/documents/{document.pk}/")
    text = page.locator("#workspace .doc-text")
    assert text.get_attribute("dir") == "rtl"
    marks = page.eval_on_selector_all(
        "#workspace .doc-text mark", "marks => marks.map(m => [m.textContent, m.dir])"
    )
    # Only the Latin handle runs against the paragraph; "ل" ends the plain piece before
    # "مخبز".
    assert marks == [[BAKERY, ""], [PHONE, ""], [HANDLE, "ltr"]]
    before = text.locator("mark", has_text=BAKERY).evaluate(
        "mark => [mark.previousElementSibling.localName, mark.previousElementSibling.textContent]"
    )
    assert before == ["span", "ذهبت ل"]

    # A constructed stylesheet: the page's Content-Security-Policy refuses a <style> element.
    page.evaluate(
        """(css) => {
            const sheet = new CSSStyleSheet();
            sheet.replaceSync(css);
            document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
        }""",
        STYLE,
    )
    page.evaluate(
        """(text) => {
            const reference = document.createElement("div");
            reference.id = "reference";
            reference.className = "doc-text";
            reference.dir = "rtl";
            reference.lang = "ar";
            reference.textContent = text;
            document.body.append(reference);
        }""",
        TEXT.replace(HANDLE, f"\u2066{HANDLE}\u2069"),  # LRI, PDI
    )
    page.evaluate("document.fonts.ready")
    reference = page.locator("#reference")
    # One line each, in boxes of one size, so that nothing but the drawing can differ.
    for box in (text, reference):
        assert box.evaluate(SIZE) == [1000, 76, 1000, 76]
    expected = pixels(reference.screenshot(animations="disabled"))
    assert differing_pixels(text.screenshot(animations="disabled"), expected) == 0

    # Each wrong rendering differs from the reference: the comparison above can fail.
    for surface, wrong in [(PHONE, "auto"), (BAKERY, "auto"), (HANDLE, None)]:
        mark = text.locator("mark", has_text=surface)
        right = mark.get_attribute("dir")
        mark.evaluate(SET_DIR, wrong)
        assert differing_pixels(text.screenshot(animations="disabled"), expected) > 500, surface
        mark.evaluate(SET_DIR, right)
    assert differing_pixels(text.screenshot(animations="disabled"), expected) == 0
