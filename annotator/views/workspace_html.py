"""The two loops of the document page that grow with the document: its text, cut into
segments, and its list of spans, one row each.

They are built here with escaped f-strings rather than in the template: for 6,000 words and
400 spans the template language spent some 370 ms on them (bench/workspace_bench.py), this
a few. Every value goes through the standard library's `html.escape` (what Django's `escape`
does, without its lazy-string wrapper, which cost a third of the page's time); the markup
is the one the page's script and tests read (data-start/data-end in code points,
data-span-id, data-version, data-stamp, data-order).
"""

from __future__ import annotations

import unicodedata
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
ACCEPT_BUTTON = '<button value="accept">Accept</button>'
REJECT_BUTTON = '<button value="reject">Reject</button>'


def _text(text: str) -> str:
    """A piece of the text escaped, carriage returns as character references: a browser's
    parser turns a raw CRLF into LF, which would shift every offset after it."""
    return escape(text).replace("\r", "&#13;")


def in_word(char: str) -> bool:
    """Whether `char` is part of a word, where a label put before the next character would
    cut it: a letter or digit, a mark on one, a joiner (tatweel, ZWJ, ZWNJ)."""
    return bool(char) and (
        char.isalnum()
        or unicodedata.category(char) in ("Mn", "Mc", "Me")
        or char in "\u0640\u200c\u200d"
    )


def _labels(*groups: str) -> str:
    seen: dict[str, None] = {}
    for group in groups:
        for label in filter(None, group.split(", ")):
            seen.setdefault(label, None)
    return ", ".join(seen)


def text_html(segments: Iterable[tuple[Segment, str, str]], following: str = "") -> SafeString:
    """The segments as one run of elements, with nothing between them (white space there
    would be part of the text).

    The labels of the spans that end with a piece are its data-label, which the page shows
    after it (cloak.css). Where a span ends inside a word ("مكتب" of "مكتبة"), its label
    waits for the end of the word, cutting the piece there if need be: a box between two
    letters would break their joining. `following` is the character after the last segment
    (none at the end of the text)."""
    items = list(segments)
    pieces: list[tuple[Segment, str, str, int, int, str]] = []
    pending = ""  # labels of spans that ended inside the word now being written
    for n, (segment, colour, isolate) in enumerate(items):
        text, at = segment.text, 0
        if pending:
            cut = next((i for i in range(1, len(text)) if not in_word(text[i])), None)
            if cut is not None:
                pieces.append((segment, colour, isolate, 0, cut, pending))
                pending, at = "", cut
        after = items[n + 1][0].text[:1] if n + 1 < len(items) else following
        labels = _labels(pending, segment.ending_labels if segment.spans else "")
        if labels and in_word(text[-1:]) and in_word(after):
            pieces.append((segment, colour, isolate, at, len(text), ""))
            pending = labels
        else:
            pieces.append((segment, colour, isolate, at, len(text), labels))
            pending = ""
    if pending and pieces:  # the stretch ends inside a word: the label goes at its end
        pieces[-1] = (*pieces[-1][:5], pending)
    return mark_safe("".join(_piece(*piece) for piece in pieces))


# How a highlight's title names its state (hover, and read by assistive technology).
STATE_WORDS = {"proposed": "proposed", "accepted": "accepted", "kept": "accepted, kept",
               "rejected": "rejected"}  # fmt: skip


def _piece(segment: Segment, colour: str, isolate: str, start: int, end: int, label: str) -> str:
    """Characters [start, end) of `segment` as one element, with the labels shown after it."""
    text = segment.text[start:end]
    start, end = segment.start + start, segment.start + end
    labelled = f' data-label="{escape(label)}"' if label else ""
    if not segment.spans:
        return f'<span data-start="{start}" data-end="{end}"{labelled}>{_text(text)}</span>'
    classes = f"hl {colour}"
    if segment.is_overlap:
        classes += " hl-overlap"
    state = segment.state
    if state:
        classes += f" hl-{state}"
    direction = f' dir="{isolate}"' if isolate else ""
    return (
        f'<mark{direction} class="{classes}" data-start="{start}" '
        f'data-end="{end}" data-spans="{segment.span_ids}"{labelled} '
        f'title="{escape(segment.label_text)} ({STATE_WORDS.get(state, state)})">'
        f"{_text(text)}</mark>"
    )


def rows_html(
    spans: Sequence[SpanRow],
    *,
    language: str,
    direction: str,
    colour: Callable[[str], str],
    can_annotate: bool,
) -> SafeString:
    """One table row a span: where, what, who proposed it, its state and decision, and (for
    those who annotate) its buttons: accept, reject, and the editor on demand.

    A row is written 400 times on a long document's page, so it carries only what the page
    cannot derive: no form, URL or CSRF token of its own (the page's script posts each
    button to the span's URL, the workspace's data-add-url and the row's id, with the row's
    version), no editor slot until one opens, no classes the table's CSS can put on its
    columns. `direction` is the document's: a surface or pseudonym with no letters (a phone
    number) reads in it."""
    lang = escape(language)
    rows: list[str] = []
    for span in spans:
        pk = span.pk
        surface_direction = first_strong_direction(span.surface) or direction
        replacement_direction = first_strong_direction(span.replacement) or direction
        rejected = ' class="is-rejected"' if span.status == SpanStatus.REJECTED else ""
        reason = (
            f' <span class="muted small">({escape(span.keep_reason)})</span>'
            if span.keep_reason and span.status != SpanStatus.REJECTED
            else ""
        )
        score = "—" if span.score is None else f"{span.score:.2f}"
        flag = ""
        if span.flag is not None:
            state = "resolved" if span.flag.resolved else "open"
            flag = (
                f'<div class="flag-note flag-{state} small"><strong>Flagged</strong>'
                f"{' (resolved)' if span.flag.resolved else ''}: "
                f'<q dir="auto">{escape(span.flag.comment)}</q>'
            )
            if span.flag.resolved:
                answer = escape(span.flag.answer) or "resolved"
                rationale = (
                    f' — <q dir="auto">{escape(span.flag.rationale)}</q>'
                    if span.flag.rationale
                    else ""
                )
                flag += f'<br><span class="flag-answer">The lead: {answer}{rationale}</span>'
            flag += "</div>"
        actions = ""
        if can_annotate:
            # Buttons of no form: the page's script sends them (workspace.js).
            accept = "" if span.status == SpanStatus.ACCEPTED else ACCEPT_BUTTON
            reject = "" if span.status == SpanStatus.REJECTED else REJECT_BUTTON
            actions = (
                f'<td class="span-actions">{accept}{reject}'
                '<button type="button" value="edit">Change…</button></td>'
            )
        # A rejected span is no identifier: it reads no decision ("Pseudonymize" misled).
        decision = (
            "—"
            if span.status == SpanStatus.REJECTED
            else escape(DECISION_LABELS.get(span.decision, span.decision))
        )
        rows.append(
            f'<tr id="span-{pk}" data-span-id="{pk}" data-version="{span.version}" '
            f'data-order="{span.start} {span.end} {pk}" '
            f'data-stamp="{row_stamp(span.version, span.replacement)}" '
            f'data-label="{escape(span.label)}" tabindex="-1"{rejected}>'
            f"<td>{span.start}</td><td>{span.end}</td>"
            f'<td class="surface" dir="{surface_direction}" lang="{lang}">'
            f"{escape(span.surface)}</td>"
            f'<td><mark class="hl {colour(span.label)}">{escape(span.label)}</mark></td>'
            f"<td>{escape(SOURCE_LABELS.get(span.source, span.source))}</td>"
            f'<td><span class="status status-{escape(span.status)}">'
            f"{escape(STATUS_LABELS.get(span.status, span.status))}</span>{flag}</td>"
            f"<td>{decision}{reason}</td>"
            f'<td dir="{replacement_direction}">{escape(span.replacement) or "—"}</td>'
            f"<td>{score}</td>{actions}</tr>"
        )
    return mark_safe("".join(rows))


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
