"""Small charts drawn on the server as inline SVG: no script, no library, no CDN.

Each chart is an image to assistive technology (`role="img"`, an `aria-label` and a
`<title>`), with its numbers also in a table beside it on the page. Every piece of text that
comes from data (a label, a week) is escaped here; the result is safe to put in a page as is.
Text is the page's text colour on a white ground (AA contrast), bars the accent colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from django.utils.safestring import SafeString, mark_safe

TEXT = "#1d2430"  # --text in cloak.css: 15.6:1 on white
MUTED = "#566172"  # --muted: 6.2:1 on white
BAR = "#1f5f8b"  # --accent
GRID = "#d5dae1"  # --border
TRACK = "#eef1f4"
FONT = 'font-family="system-ui, sans-serif" font-size="12"'
LABEL_CHARS = 18  # about 150 px of capitals at 12 px: the width left of the bars


@dataclass(frozen=True)
class Datum:
    """One bar or one point: what it is, its value, and how to print the value."""

    label: str
    value: float
    text: str = ""

    @property
    def shown(self) -> str:
        return self.text or f"{self.value:.2f}"


def _attr(value: str) -> str:
    return escape(value, quote=True)


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def _clamp(value: float, low: float, high: float) -> float:
    return min(high, max(low, value))


def _open(width: int, height: int, title: str, description: str) -> list[str]:
    label = f"{title}. {description}" if description else title
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img"'
        f' viewBox="0 0 {width} {height}" width="{width}" height="{height}"'
        f' aria-label="{_attr(label)}" {FONT}>',
        f"<title>{escape(title)}</title>",
    ]
    if description:
        parts.append(f"<desc>{escape(description)}</desc>")
    parts.append(f'<rect width="{width}" height="{height}" fill="#ffffff"/>')
    return parts


def bar_chart(
    data: Sequence[Datum], *, title: str, description: str = "", width: int = 560
) -> SafeString:
    """Horizontal bars, one a row, for values from 0 to 1 (a longer bar is a higher value);
    the label on the left, the value printed at the end of each bar."""
    row, gap, top, left, right = 22, 6, 8, 170, 56
    height = top * 2 + max(1, len(data)) * (row + gap)
    span = width - left - right
    parts = _open(width, height, title, description)
    if not data:
        parts.append(f'<text x="{left}" y="{top + row - 6}" fill="{MUTED}">No data yet</text>')
    for index, datum in enumerate(data):
        y = top + index * (row + gap)
        length = round(span * _clamp(datum.value, 0.0, 1.0), 1)
        middle = y + row / 2 + 4
        parts.append(f"<g><title>{escape(datum.label)}: {escape(datum.shown)}</title>")
        parts.append(
            f'<text x="{left - 8}" y="{middle}" text-anchor="end" fill="{TEXT}">'
            f"{escape(_short(datum.label))}</text>"
        )
        parts.append(f'<rect x="{left}" y="{y}" width="{span}" height="{row}" fill="{TRACK}"/>')
        parts.append(f'<rect x="{left}" y="{y}" width="{length}" height="{row}" fill="{BAR}"/>')
        parts.append(
            f'<text x="{left + span + 6}" y="{middle}" fill="{TEXT}">{escape(datum.shown)}</text>'
        )
        parts.append("</g>")
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every piece of data above is escaped


def line_chart(
    data: Sequence[Datum],
    *,
    title: str,
    description: str = "",
    low: float = 0.0,
    high: float = 1.0,
    width: int = 560,
    height: int = 200,
) -> SafeString:
    """Points joined by a line, left to right in the order given, on a scale from `low` to
    `high` (values outside are drawn at the edge); each point's value printed above it and
    its label below the axis."""
    top, bottom, left, right = 24, 30, 40, 24
    plot_w, plot_h = width - left - right, height - top - bottom
    parts = _open(width, height, title, description)

    def y_of(value: float) -> float:
        share = (_clamp(value, low, high) - low) / (high - low) if high > low else 0.0
        return round(top + plot_h * (1 - share), 1)

    for tick in (low, (low + high) / 2, high):
        y = y_of(tick)
        parts.append(
            f'<line x1="{left}" y1="{y}" x2="{width - right}" y2="{y}" stroke="{GRID}"/>'
            f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" fill="{MUTED}">{tick:.1f}</text>'
        )
    if not data:
        parts.append(
            f'<text x="{left + 8}" y="{top + plot_h / 2}" fill="{MUTED}">No data yet</text>'
        )
    step = plot_w / len(data) if data else 0.0
    points = [
        (round(left + step * (index + 0.5), 1), y_of(datum.value), datum)
        for index, datum in enumerate(data)
    ]
    if len(points) > 1:
        path = " ".join(f"{x},{y}" for x, y, _ in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{BAR}" stroke-width="2"/>')
    for x, y, datum in points:
        parts.append(f"<g><title>{escape(datum.label)}: {escape(datum.shown)}</title>")
        parts.append(f'<circle cx="{x}" cy="{y}" r="4" fill="{BAR}"/>')
        parts.append(
            f'<text x="{x}" y="{y - 8}" text-anchor="middle" fill="{TEXT}">'
            f"{escape(datum.shown)}</text>"
        )
        parts.append(
            f'<text x="{x}" y="{height - 10}" text-anchor="middle" fill="{TEXT}">'
            f"{escape(_short(datum.label))}</text>"
        )
        parts.append("</g>")
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every piece of data above is escaped
