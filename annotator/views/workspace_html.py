"""The two loops of the document page that grow with the document: its text, cut into
segments, and its list of spans, one row each.

They are built here with escaped f-strings rather than in the template: for 6,000 words and
400 spans the template language spent some 370 ms on them (bench/workspace_bench.py), this
a few. Every value goes through the standard library's `html.escape` (what Django's `escape`
does, without its lazy-string wrapper, which cost a third of the page's time); the markup
is the one the page's script and tests read (data-start/data-end in code points,
data-span-id, data-version, data-stamp, data-order, data-action-url).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from html import escape
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from annotator.models import DECISION_CHOICES, SOURCE_CHOICES, SpanStatus
from annotator.selectors.workspace import SpanRow
from annotator.views.segments import Segment, first_strong_direction
from annotator.views.workspace_sync import row_stamp

# Labels of the choices, read once: Model.get_FOO_display() rebuilds its map on every call.
SOURCE_LABELS = {value: str(label) for value, label in SOURCE_CHOICES}
STATUS_LABELS = {value: str(label) for value, label in SpanStatus.choices}
DECISION_LABELS = {value: str(label) for value, label in DECISION_CHOICES}


def _text(text: str) -> str:
    """A piece of the text escaped, carriage returns as character references: a browser's
    parser turns a raw CRLF into LF, which would shift every offset after it."""
    return escape(text).replace("\r", "&#13;")


def text_html(segments: Iterable[tuple[Segment, str, str]]) -> SafeString:
    """The segments as one run of elements, with nothing between them (white space there
    would be part of the text)."""
    parts: list[str] = []
    for segment, colour, isolate in segments:
        if not segment.spans:
            parts.append(
                f'<span data-start="{segment.start}" data-end="{segment.end}">'
                f"{_text(segment.text)}</span>"
            )
            continue
        classes = f"hl {colour}"
        if segment.is_overlap:
            classes += " hl-overlap"
        if segment.all_rejected:
            classes += " hl-rejected"
        direction = f' dir="{isolate}"' if isolate else ""
        ending = segment.ending_labels
        label = f' data-label="{escape(ending)}"' if ending else ""
        parts.append(
            f'<mark{direction} class="{classes}" data-start="{segment.start}" '
            f'data-end="{segment.end}" data-spans="{segment.span_ids}"{label} '
            f'title="{escape(segment.label_text)}">{_text(segment.text)}</mark>'
        )
    return mark_safe("".join(parts))


def rows_html(
    spans: Sequence[SpanRow],
    *,
    language: str,
    direction: str,
    colour: Callable[[str], str],
    spans_url: str,
    can_annotate: bool,
    csrf_token: str,
) -> SafeString:
    """One table row a span: where, what, who proposed it, its state and decision, and (for
    those who annotate) one light form: accept, reject, and the editor on demand.

    `direction` is the document's: a surface or pseudonym with no letters (a phone number)
    reads in it. A span's own URL is `spans_url` and its id: one reverse, not four a span."""
    token = escape(csrf_token)
    rows: list[str] = []
    for span in spans:
        pk, url = span.pk, escape(f"{spans_url}{span.pk}/")
        surface_direction = first_strong_direction(span.surface) or direction
        replacement_direction = first_strong_direction(span.replacement) or direction
        rejected = ' class="is-rejected"' if span.status == SpanStatus.REJECTED else ""
        reason = (
            f' <span class="muted small">({escape(span.keep_reason)})</span>'
            if span.keep_reason
            else ""
        )
        score = "—" if span.score is None else f"{span.score:.2f}"
        cells = [
            f'<td class="num">{span.start}</td>',
            f'<td class="num">{span.end}</td>',
            f'<td class="surface" dir="{surface_direction}" lang="{escape(language)}">'
            f"{escape(span.surface)}</td>",
            f'<td><mark class="hl {colour(span.label)}">{escape(span.label)}</mark></td>',
            f"<td>{escape(SOURCE_LABELS.get(span.source, span.source))}</td>",
            f'<td><span class="status status-{escape(span.status)}">'
            f"{escape(STATUS_LABELS.get(span.status, span.status))}</span></td>",
            f"<td>{escape(DECISION_LABELS.get(span.decision, span.decision))}{reason}</td>",
            f'<td dir="{replacement_direction}">{escape(span.replacement) or "—"}</td>',
            f'<td class="num">{score}</td>',
        ]
        if can_annotate:
            buttons = []
            if span.status != SpanStatus.ACCEPTED:
                buttons.append(
                    '<button type="submit" name="action" value="accept" '
                    'class="button button-small">Accept</button>'
                )
            if span.status != SpanStatus.REJECTED:
                buttons.append(
                    '<button type="submit" name="action" value="reject" '
                    'class="button button-small button-secondary">Reject</button>'
                )
            cells.append(
                '<td class="span-actions">'
                f'<form method="post" action="{url}" hx-post="{url}" class="inline-form">'
                f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">'
                f'<input type="hidden" name="version" value="{span.version}">'
                + "".join(buttons)
                + f'<button type="button" class="button-link small" hx-get="{url}editor/" '
                f'hx-target="#slot-{pk}" hx-swap="innerHTML">Change…</button></form>'
                f'<div class="span-slot" id="slot-{pk}" data-editor-url="{url}editor/" '
                f'data-suggest-url="{url}suggestions/"></div></td>'
            )
        rows.append(
            f'<tr id="span-{pk}" data-span-id="{pk}" data-version="{span.version}" '
            f'data-order="{span.start} {span.end} {pk}" data-action-url="{url}" '
            f'data-stamp="{row_stamp(span.version, span.replacement)}" '
            f'tabindex="-1"{rejected}>{"".join(cells)}</tr>'
        )
    return mark_safe("\n".join(rows))


def released_html(text: str, spans: Sequence[Any], colour: Callable[[str], str]) -> SafeString:
    """A rendered document (annotator.selectors.rendering): its text, with what stands for
    each original marked by its label's colour and its label after it, as on the page."""
    parts: list[str] = []
    position = 0
    for span in spans:
        parts.append(_text(text[position : span.start]))
        label = escape(span.label)
        decision = escape(DECISION_LABELS.get(span.decision or "", span.decision or ""))
        parts.append(
            f'<mark class="hl {colour(span.label)}" data-label="{label}" '
            f'title="{label}: {decision}">{_text(text[span.start : span.end])}</mark>'
        )
        position = span.end
    parts.append(_text(text[position:]))
    return mark_safe("".join(parts))
