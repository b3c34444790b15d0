"""Accessibility of Cloak's pages, measured in a real browser (headless Chromium, driven
by Playwright): the login page, home, a project's overview and document list (as an
annotator and as an admin, who also sees the run, import and assignment forms), the imports
page, and a document's workspace with spans of nine labels, in all eight highlight colours
and every span status.

On each page, as rendered:

- contrast: every visible element with text of its own (and every form field, and its
  placeholder) has a text colour whose WCAG contrast ratio with the background behind it
  is at least 4.5:1, or 3:1 for large text (24px, or 18.66px and bold); the background is
  found by walking up the ancestors and compositing each translucent one over the next,
  opacity included; disabled controls are exempt, as WCAG has them;
- labels: every input, select and textarea that is not hidden has a label with text (a
  <label>, aria-label or aria-labelledby);
- keyboard: Tab reaches every visible link, button, field and summary, and each one it
  stops on shows a focus indicator of our own (an outline at least 2px wide, or a box
  shadow) whose colour contrasts 3:1 with what is around it, not cut off by a scrolling box;
- highlights: each one is underlined in a colour that contrasts 3:1 with the text's
  background, a rejected one in another line style; one where a span ends carries the
  span's label in data-label, and its ::after shows it, in AA contrast.

The workspace is measured again with a span focused from the keyboard (j): the row has
focus, with an indicator; then with its editor open and the focus in the editor, where the
row and the highlight of the focused span must still differ from the others by more than
a colour. Last, a sheet of samples of every status badge, role badge, alert, button,
highlight class (c0 to c35, rejected, focused, overlapping), kbd and muted text, in the
contexts the pages put them in, is added to the page and measured the same way (buttons,
links and a row also under the pointer), so that a class no fixture renders is still
checked.

Chromium is Debian's (`make test` installs it); Playwright drives it, it never downloads one.
"""

from __future__ import annotations

from html import escape
from typing import Any

import pytest

from annotator.models import (
    Document,
    DocumentStatus,
    JobStatus,
    ReviewItem,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.views.workspace import PALETTE_SIZE
from tests.browser.selection import select_in_text
from tests.browser.test_workspace import CHROMIUM, browser, logged_in
from tests.conftest import PASSWORD, Team

__all__ = ["browser"]  # a fixture: imported to be used here

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]

TEXT = (
    "Moshe Chaya (@moshe_c) wrote from moshe@example.org and https://example.org/m "
    "or +33 6 12 34 56 78 about #lyon2024.\n"
    "He lives at 12 rue Victor Hugo, Lyon and works for Acme."
)
# Surface, label (its place in the "cloaked" schema gives c0 to c8), status.
SPANS = [
    ("Moshe Chaya", "PER", SpanStatus.ACCEPTED),  # c0
    ("@moshe_c", "USERNAME", SpanStatus.PROPOSED),  # c1
    ("https://example.org/m", "URL", SpanStatus.PROPOSED),  # c2
    ("moshe@example.org", "EMAIL", SpanStatus.REJECTED),  # c3
    ("+33 6 12 34 56 78", "PHONE", SpanStatus.ACCEPTED),  # c4
    ("#lyon2024", "HASHTAG", SpanStatus.PROPOSED),  # c5
    ("12 rue Victor Hugo, Lyon", "ADDRESS", SpanStatus.PROPOSED),  # c6, around LOC
    ("Lyon", "LOC", SpanStatus.PROPOSED),  # c7
    ("Acme", "ORG", SpanStatus.REJECTED),  # c8
]

# The measures, defined once in each page as `window.a11y`.
AUDIT_JS = r"""
() => {
  if (window.a11y) return;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const parsed = new Map();
  // Any CSS colour as [r, g, b, alpha], painted on a pixel and read back.
  const rgba = (css) => {
    if (!parsed.has(css)) {
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = "rgba(0, 0, 0, 0)";
      context.fillStyle = css;
      context.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data;
      parsed.set(css, [r, g, b, a / 255]);
    }
    return parsed.get(css);
  };
  const over = ([r, g, b, a], [R, G, B]) =>
    [r * a + R * (1 - a), g * a + G * (1 - a), b * a + B * (1 - a), 1];
  const luminance = ([r, g, b]) => {
    const linear = (c) => (c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  };
  const ratio = (x, y) => {
    const [high, low] = [luminance(x), luminance(y)].sort((p, q) => q - p);
    return (high + 0.05) / (low + 0.05);
  };
  const hex = (colour) =>
    "#" + colour.slice(0, 3).map((c) => Math.round(c).toString(16).padStart(2, "0")).join("");
  const opacity = (element) => {
    let product = 1;
    for (let e = element; e; e = e.parentElement) product *= +getComputedStyle(e).opacity;
    return product;
  };
  // What is painted behind `element`: its and its ancestors' background colours, the
  // innermost opaque one and every translucent one above it, over a white canvas.
  const background = (element) => {
    const layers = [];
    for (let e = element; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.backgroundImage !== "none") return null;
      const [r, g, b, a] = rgba(style.backgroundColor);
      if (a === 0) continue;
      const alpha = a * opacity(e);
      layers.push([r, g, b, alpha]);
      if (alpha >= 1) break;
    }
    return layers.reverse().reduce((below, layer) => over(layer, below), [255, 255, 255, 1]);
  };
  const ownText = (element) =>
    ["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName)
      ? element.value || element.placeholder || " "
      : [...element.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE)
          .map((n) => n.data).join("").trim();
  const describe = (element) => {
    const parts = [];
    for (let e = element; e && e !== document.body && parts.length < 4; e = e.parentElement) {
      parts.unshift(e.localName + (e.id ? "#" + e.id : "")
        + [...e.classList].map((c) => "." + c).join(""));
    }
    return parts.join(" > ") + ' "' + ownText(element).trim().slice(0, 24) + '"';
  };
  const visible = (element) => {
    if (!element.checkVisibility({ checkVisibilityCSS: true })) return false;
    const box = element.getBoundingClientRect();
    return box.width > 1 || box.height > 1;  // not .visually-hidden
  };
  // One text's contrast: null when it passes, else what failed.
  const measure = (where, style, foreground, behind) => {
    if (behind === null) return { where, problem: "text on a background image" };
    const text = over(foreground, behind);
    const size = parseFloat(style.fontSize), bold = +style.fontWeight >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    const measured = ratio(text, behind);
    if (measured >= need) return null;
    return { where, ratio: +measured.toFixed(2), need, text: hex(text), background: hex(behind),
             size: style.fontSize, weight: style.fontWeight };
  };
  const FIELDS = "input:not([type=hidden]), select, textarea";
  window.a11y = {
    contrast(rootSelector) {
      const root = document.querySelector(rootSelector);
      const failures = [];
      const check = (where, element, style) => {
        const [r, g, b, a] = rgba(style.color);
        const failure = measure(where, style, [r, g, b, a * opacity(element)],
                                background(element));
        if (failure) failures.push(failure);
      };
      for (const element of [root, ...root.querySelectorAll("*")]) {
        if (["SCRIPT", "STYLE", "TEMPLATE", "OPTION"].includes(element.tagName)) continue;
        // An inactive control is exempt from the contrast minimum (WCAG 1.4.3).
        if (element.closest(":disabled") || !ownText(element) || !visible(element)) continue;
        check(describe(element), element, getComputedStyle(element));
        if (element.placeholder) {
          check(describe(element) + "::placeholder", element,
                getComputedStyle(element, "::placeholder"));
        }
      }
      return failures;
    },
    // The highlights of the text: where each ends, its spans, its label and its ::after.
    highlights(rootSelector) {
      return [...document.querySelectorAll(rootSelector + " mark.hl")].map((mark) => {
        const after = getComputedStyle(mark, "::after");
        const behind = background(mark);
        const contrast = after.content === "none" ? null : measure(
          describe(mark) + "::after", after, rgba(after.color),
          behind && over(rgba(after.backgroundColor), behind));
        const style = getComputedStyle(mark);
        const around = background(mark.parentElement);
        const underline = style.borderBottomStyle === "none" ? null
          : +ratio(over(rgba(style.borderBottomColor), around), around).toFixed(2);
        return { where: describe(mark), end: +mark.dataset.end,
                 spans: (mark.dataset.spans || "").split(" "), label: mark.dataset.label ?? null,
                 content: after.content, display: after.display, contrast,
                 rejected: mark.classList.contains("hl-rejected"),
                 underline: style.borderBottomStyle, underlineRatio: underline };
      });
    },
    unlabelled() {
      const named = (ids) => (ids || "").split(/\s+/)
        .some((id) => id && document.getElementById(id)?.textContent.trim());
      return [...document.querySelectorAll(FIELDS)].filter((field) =>
        ![...(field.labels || [])].some((label) => label.textContent.trim())
        && !(field.getAttribute("aria-label") || "").trim()
        && !named(field.getAttribute("aria-labelledby"))
      ).map(describe);
    },
    // The focused element and its focus indicator; `seen` once Tab has come round again.
    focused() {
      const element = document.activeElement;
      if (!element || element === document.body) return null;
      window.a11yTabbed = window.a11yTabbed || [];
      // A date field takes one Tab for each of its parts: only the first control seen again
      // means Tab has come round.
      const seen = window.a11yTabbed.length > 0 && window.a11yTabbed[0] === element;
      if (window.a11yTabbed.includes(element) && !seen) return { again: true };
      if (!seen) window.a11yTabbed.push(element);
      const style = getComputedStyle(element);
      const width = style.outlineStyle === "none" ? 0 : parseFloat(style.outlineWidth);
      const shadow = style.boxShadow !== "none";
      let ratioAround = null;
      if (width > 0) {
        // An outline outside the element is seen against its parent, one inside against it.
        const behind = background(
          parseFloat(style.outlineOffset) >= 0 ? element.parentElement : element);
        ratioAround = behind && +ratio(over(rgba(style.outlineColor), behind), behind).toFixed(2);
      }
      // The indicator must not be cut off by a box that clips what overflows it: up to the
      // nearest box fixed to the window (a panel), as the boxes around that one do not.
      let clipped = null;
      const grow = Math.max(width + parseFloat(style.outlineOffset), 0);
      const box = element.getBoundingClientRect();
      let fixed = style.position === "fixed";
      for (let e = element.parentElement; e && !clipped && !fixed; e = e.parentElement) {
        const clip = getComputedStyle(e);
        fixed = clip.position === "fixed";
        if (clip.overflowX === "visible" && clip.overflowY === "visible") continue;
        const edge = e.getBoundingClientRect();
        if (box.left - grow < edge.left - 0.5 || box.right + grow > edge.right + 0.5
            || box.top - grow < edge.top - 0.5 || box.bottom + grow > edge.bottom + 0.5) {
          clipped = describe(e);
        }
      }
      return { where: describe(element), seen, outline: style.outlineStyle, width, shadow,
               ratio: ratioAround, clipped };
    },
    // How an element looks apart from its colours: outline, shadow, borders, type.
    shape(selector) {
      const element = document.querySelector(selector);
      return [element, element.firstElementChild].filter(Boolean).map((e) => {
        const s = getComputedStyle(e);
        return [s.outlineStyle, s.outlineWidth, s.boxShadow.replace(/rgba?\([^)]*\)/g, ""),
                s.borderStyle, s.borderWidth, s.fontWeight, s.fontStyle,
                s.textDecorationLine].join(" ");
      }).join(" | ");
    },
    // Visible controls that Tab should reach and did not.
    unreached() {
      const tabbed = window.a11yTabbed || [];
      const controls = "a[href], button, " + FIELDS + ", details > summary, [tabindex]";
      return [...document.querySelectorAll(controls)].filter((control) =>
        control.tabIndex >= 0 && !control.disabled && visible(control)
        && !tabbed.includes(control)
      ).map(describe);
    },
  };
}
"""


def audit(page: Any) -> list[str]:
    """Every failure on the page as it is now, one line each: contrast, then fields
    without a label."""
    failures = contrast(page, "body")
    failures += [f"no label: {where}" for where in page.evaluate("window.a11y.unlabelled()")]
    return failures


def contrast(page: Any, root: str) -> list[str]:
    """Each text under `root` whose contrast is below AA, one line each."""
    page.evaluate(AUDIT_JS)
    return [
        f"contrast {f.get('ratio', '?')} < {f.get('need', '?')}: {f['where']} "
        f"({f.get('text', '')} on {f.get('background', '')}, {f.get('size', '')} "
        f"{f.get('weight', '')}) {f.get('problem', '')}".rstrip()
        for f in page.evaluate("root => window.a11y.contrast(root)", root)
    ]


def tab_through(page: Any, presses: int = 120) -> list[str]:
    """Tab until focus comes round to where it started; each stop must show a focus
    indicator, and no visible control may be left out."""
    page.evaluate(AUDIT_JS)
    page.evaluate("window.a11yTabbed = []; document.activeElement.blur()")
    failures: list[str] = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        focused = page.evaluate("window.a11y.focused()")
        if focused is None or focused.get("again"):  # past the last control, or in a field
            continue
        if focused["seen"]:
            break
        failures += focus_failures(focused)
    else:
        failures.append(f"Tab did not come round in {presses} presses")
    failures += [
        f"not reached by Tab: {where}" for where in page.evaluate("window.a11y.unreached()")
    ]
    return failures


def focus_failures(focused: dict[str, Any]) -> list[str]:
    if focused["shadow"]:
        return []
    if focused["width"] < 2:
        return [f"no focus outline of 2px: {focused['where']} ({focused['outline']}, "
                f"{focused['width']}px)"]  # fmt: skip
    if focused["ratio"] is not None and focused["ratio"] < 3:
        return [f"focus outline contrast {focused['ratio']} < 3: {focused['where']}"]
    if focused["clipped"]:
        return [f"focus outline cut off by {focused['clipped']}: {focused['where']}"]
    return []


def highlight_failures(page: Any, root: str, spans: dict[str, Span]) -> list[str]:
    """Each highlight under `root` stands out from the text around it by an underline that
    contrasts 3:1 with it (WCAG 1.4.11), a rejected one by an underline of another style,
    not only another colour; one where a span ends carries the span's label in data-label
    and shows it after itself, in AA contrast."""
    page.evaluate(AUDIT_JS)
    marks = page.evaluate("root => window.a11y.highlights(root)", root)
    assert marks, f"no highlight under {root}"
    failures: list[str] = []
    kept = {mark["underline"] for mark in marks if not mark["rejected"]}
    for mark in marks:
        where = mark["where"]
        if mark["underlineRatio"] is None or mark["underlineRatio"] < 3:
            failures.append(f"underline contrast {mark['underlineRatio']} < 3: {where}")
        if mark["rejected"] and mark["underline"] in kept:
            failures.append(f"rejected, yet underlined as the others: {where}")
        ending = [spans[i] for i in mark["spans"] if i in spans and spans[i].end == mark["end"]]
        if not ending and mark["label"] is None:
            continue
        if mark["label"] is None or any(span.label not in mark["label"] for span in ending):
            failures.append(f"a span ends here, its label is missing: {where} {mark['label']}")
        elif mark["content"] in ("none", "normal", "") or mark["display"] == "none":
            failures.append(f"label not shown after: {where} ({mark['content']})")
        elif mark["contrast"]:
            failures.append(f"label after a highlight: {mark['contrast']}")
    return failures


def swatches() -> str:
    """Samples of each class the issue names, in the contexts the pages put them in."""
    statuses = sorted(
        {value for choices in (DocumentStatus, SpanStatus, JobStatus, JobStatus)
         for value in choices.values}
    )  # fmt: skip
    badges = " ".join(f'<span class="status status-{s}">{escape(s)}</span>' for s in statuses)
    roles = " ".join(
        f'<span class="role-badge role-{r}">{r}</span>' for r in ("admin", "lead", "annotator")
    )
    inline = (
        'Text, <span class="muted">muted</span>, <span class="muted small">small muted</span>, '
        '<a href="#a11y-swatches">a link</a>, <kbd>k</kbd>, <code>code</code>, <b>bold</b>'
    )
    buttons = (
        '<a class="button" href="#a11y-swatches">Button</a> '
        '<button type="button" class="button button-secondary">Secondary <kbd>u</kbd></button> '
        '<button type="button" class="button button-small">Small</button> '
        '<button type="button" class="button button-small button-secondary">'
        "<kbd>1</kbd> <span>Small secondary</span></button> "
        '<button type="button" class="button-link">Link button</button> '
        '<button type="button" class="button-link small">Change…</button>'
    )
    marks = "".join(
        f'<mark class="hl c{i}" data-label="L{i}">text {i}</mark> ' for i in range(PALETTE_SIZE)
    ) + (
        '<mark class="hl c0 hl-rejected" data-label="REJ">rejected</mark> '
        '<mark class="hl c1 is-focused" data-label="FOC">focused</mark> '
        '<mark class="hl c2 hl-overlap" data-label="OVR">overlap</mark> '
        '<mark class="hl c3 hl-rejected is-focused" data-label="BOTH">both</mark>'
    )
    legend = "".join(
        f'<li><mark class="hl c{i}">L{i}</mark> <span class="muted small">about</span></li>'
        for i in range(PALETTE_SIZE)
    )
    rows = "".join(
        f'<tr class="{state}"><td class="num">{i}</td><td class="surface">surface</td>'
        f'<td><mark class="hl c{i}">L{i}</mark></td><td>{badges}</td>'
        f'<td><span class="muted small">(reason)</span> <a href="#a11y-swatches">link</a></td>'
        f"<td>{buttons}</td></tr>"
        for i, state in enumerate(["", "is-focused", "is-rejected", "is-rejected is-focused"])
    )
    alerts = "".join(
        f'<div class="{kind}"><p>{inline}</p></div>'
        for kind in (
            "alert", "alert alert-error", "alert alert-info", "message message-info",
            "message message-success", "message message-warning", "message message-error",
        )
    )  # fmt: skip
    sheet = (
        f"<p>{inline}</p><p>{badges}</p><p>{roles}</p><p class='actions'>{buttons}</p>{alerts}"
        f'<p class="help">Help</p><p class="field-error">Error</p>'
        f'<dl class="facts"><div><dt>Fact</dt><dd>{inline}</dd></div></dl>'
        f'<div class="empty-state"><p><strong>Empty.</strong> {inline}</p></div>'
        f'<ul class="legend">{legend}</ul><div class="doc-text">{marks}</div>'
        f'<div class="table-scroll"><table class="table"><thead><tr><th>Head</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )
    return f'<section id="a11y-swatches">{sheet}<div class="card">{sheet}</div></section>'


@pytest.fixture
def document(team: Team) -> Document:
    document = Document.objects.create(
        project=team.project, language="en", external_id="a11y-sample", text=TEXT,
        assignee=team.annotator_en, status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip
    for surface, label, status in SPANS:
        start = TEXT.rindex(surface) if label == "LOC" else TEXT.index(surface)
        Span.objects.create(
            document=document, start=start, end=start + len(surface), label=label,
            source=SpanSource.NER, score=0.9, status=status,
        )  # fmt: skip
    return document


def test_pages_meet_wcag_aa_for_contrast_labels_and_focus(
    team: Team, document: Document, browser: Any, live_server: Any
) -> None:
    failures: dict[str, list[str]] = {}
    # The login page, after a wrong password (its alert).
    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", team.annotator_en.username)
    page.fill("input[name=password]", PASSWORD + "-wrong")
    page.click("button[type=submit]")
    page.wait_for_selector(".alert-error")
    failures["login"] = audit(page) + tab_through(page)

    # What an admin sees besides: the run form, the import form, the assignment form.
    project = f"{live_server.url}/projects/{team.project.slug}/"
    page = logged_in(browser, live_server, team.admin.username)
    for name in ["", "documents/", "imports/"]:
        page.goto(project + name)
        failures[f"admin: {project + name}"] = audit(page) + tab_through(page)

    page = logged_in(browser, live_server, team.annotator_en.username)
    for url in [f"{live_server.url}/", project, project + "documents/"]:
        page.goto(url)
        failures[url] = audit(page) + tab_through(page)

    url = f"{project}documents/{document.pk}/"
    page.goto(url)
    spans = {str(span.pk): span for span in Span.objects.filter(document=document)}
    page.keyboard.press("?")  # the keys legend, open
    page.wait_for_selector("#keys-legend[open]")
    failures[url] = (
        audit(page) + highlight_failures(page, "#workspace .doc-text", spans) + tab_through(page)
    )

    # A span focused from the keyboard: the row has focus, with a focus indicator.
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("j")
    row = "#workspace tr.is-focused"
    page.wait_for_selector(row)
    page.evaluate(AUDIT_JS)
    focused = page.evaluate("window.a11y.focused()")
    assert focused and "> tr#span-" in focused["where"], focused
    found = focus_failures(focused)
    # Its editor open (with its suggestions) and the focus in it: the row and the highlight
    # still show they are the focused span, by more than a colour.
    page.click(f"{row} .span-actions > button[value=edit]")
    page.wait_for_selector(f"{row} .span-editor")
    page.hover(f"{row} .span-editor button.button")
    page.focus(f"{row} .span-editor select")
    for focused_one, other in [
        (row, "#workspace tbody tr:not(.is-focused)"),
        ("#workspace .doc-text mark.is-focused", "#workspace .doc-text mark:not(.is-focused)"),
    ]:
        shapes = [page.evaluate("s => window.a11y.shape(s)", s) for s in (focused_one, other)]
        if shapes[0] == shapes[1]:
            found.append(f"{focused_one} differs from {other} only in colour: {shapes[0]}")
    failures[url + ", a span focused and edited"] = (
        found
        + audit(page)
        + highlight_failures(page, "#workspace .doc-text", spans)
        + tab_through(page)
    )

    # The editor closed (Escape), text selected: the button beside the selection, then the
    # label picker that `/` opens, filtered, an option active; each measured as above.
    page.focus(f"{row} .span-editor select")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{row} .span-editor", state="detached")
    select_in_text(page, "Victor Hugo")
    page.wait_for_selector("#selection-label:not([hidden])")
    found = audit(page)
    page.evaluate("document.activeElement.blur()")
    select_in_text(page, "Victor Hugo")
    page.keyboard.press("/")
    page.wait_for_selector("#label-picker:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "label-picker-input"
    page.keyboard.type("o")
    page.keyboard.press("ArrowDown")
    active = page.get_attribute("#label-picker-input", "aria-activedescendant")
    assert active and page.get_attribute(f"#{active}", "aria-selected") == "true"
    assert page.get_attribute("#label-picker", "role") == "dialog"
    assert page.get_attribute("#label-picker-list", "role") == "listbox"
    found += audit(page) + contrast(page, "#label-picker") + tab_through(page)
    failures[url + ", the label picker"] = found

    # Every class the issue names, whether or not the pages above rendered it.
    page.evaluate("html => document.querySelector('main').insertAdjacentHTML('beforeend', html)",
                  swatches())  # fmt: skip
    found = contrast(page, "#a11y-swatches") + highlight_failures(
        page, "#a11y-swatches .doc-text", {}
    )
    for selector in [".button", ".button-secondary", ".button-link", "a:not(.button)", "tbody tr"]:
        page.hover(f"#a11y-swatches .card {selector} >> nth=0")
        found += [
            f"hovered: {failure}" for failure in contrast(page, f"#a11y-swatches .card {selector}")
        ]
    failures["samples of each class"] = found

    failures = {name: found for name, found in failures.items() if found}
    assert not failures, "\n".join(
        f"{name}:\n  " + "\n  ".join(found) for name, found in failures.items()
    )


def test_the_lead_and_admin_pages_meet_wcag_aa(
    team: Team, document: Document, browser: Any, live_server: Any
) -> None:
    """The pages leads and admins work in: the keys (a table with an entity, its page, the
    suggested links, export and import), the review queue and an item, quality, the audit
    log and double annotation, each measured as the pages above are."""
    from annotator.services.spans import SpanChange, span_update
    from annotator.services.table import surface_decide

    accepted = Span.objects.filter(document=document, status=SpanStatus.ACCEPTED).first()
    assert accepted is not None
    choice = surface_decide(
        project=team.project, surface=document.text[accepted.start : accepted.end],
        language="en", label=accepted.label, decision="pseudonymize", actor=team.annotator_en,
    )  # fmt: skip
    proposed = Span.objects.filter(document=document, status=SpanStatus.PROPOSED).first()
    assert proposed is not None
    span_update(
        document=document, span_id=proposed.pk, version=proposed.version,
        actor=team.annotator_en, change=SpanChange(flag="Is this a public figure?"),
    )  # fmt: skip
    item = ReviewItem.objects.get(span=proposed)
    project = f"{live_server.url}/projects/{team.project.slug}/"
    pages = [
        "keys/", f"keys/{choice.entity_id}/", "keys/candidates/", "keys/export/", "keys/import/",
        "review/", f"review/{item.pk}/", "quality/", "audit/", "double/", "double/assign/",
    ]  # fmt: skip
    failures: dict[str, list[str]] = {}
    page = logged_in(browser, live_server, team.admin.username)
    for name in pages:
        response = page.goto(project + name)
        assert response is not None and response.status == 200, name
        failures[f"admin: {name}"] = audit(page) + tab_through(page)

    failures = {name: found for name, found in failures.items() if found}
    assert not failures, "\n".join(
        f"{name}:\n  " + "\n  ".join(found) for name, found in failures.items()
    )
