"""A document's text cut into segments for reading: plain stretches and highlighted ones.

Spans may overlap or nest, and HTML elements may not. So the text is cut at every span
boundary and each piece carries the set of spans covering it; the page then renders a flat
sequence of elements, one per piece. Offsets are code points (Python string indices), the
same as everywhere else on the server; the template escapes every piece.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from django.utils.html import escape
from django.utils.safestring import mark_safe


class SpanLike(Protocol):
    @property
    def pk(self) -> object: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def label(self) -> str: ...
    @property
    def status(self) -> str: ...


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    text: str
    # The spans covering this piece, in the order of their start (then end).
    spans: tuple[SpanLike, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for span in self.spans:
            seen.setdefault(span.label, None)
        return tuple(seen)

    @property
    def label_text(self) -> str:
        return ", ".join(self.labels)

    @property
    def html(self) -> str:
        """The piece escaped for HTML, carriage returns as character references: a browser's
        parser turns a raw CRLF into LF, which would shift every offset after it."""
        return mark_safe(escape(self.text).replace("\r", "&#13;"))

    @property
    def ending_labels(self) -> str:
        """The labels of the spans that end with this piece: shown once, after a span."""
        seen: dict[str, None] = {}
        for span in self.spans:
            if span.end <= self.end:
                seen.setdefault(span.label, None)
        return ", ".join(seen)

    def direction_in(self, paragraph: str) -> str:
        """The `dir` this piece needs inside a `paragraph` ("ltr" or "rtl") paragraph: its own
        direction where its first strong letter goes the other way ("@name" or a URL in
        Arabic, an Arabic name in French), isolated so that it reads whole; "" otherwise.
        A piece in the paragraph's direction, or with no letter at all (a phone number, a
        date in digits), is not isolated: Arabic letters then join across its edges, and the
        "+" of "+٤٤ ٧٧٠٠" stays where the paragraph puts it."""
        own = first_strong_direction(self.text)
        return own if own and own != paragraph else ""

    @property
    def span_ids(self) -> str:
        return " ".join(str(span.pk) for span in self.spans)

    @property
    def is_highlighted(self) -> bool:
        return bool(self.spans)

    @property
    def is_overlap(self) -> bool:
        return len(self.spans) > 1

    @property
    def all_rejected(self) -> bool:
        return bool(self.spans) and all(span.status == "rejected" for span in self.spans)


def first_strong_direction(text: str) -> str:
    """ "ltr" or "rtl" after the first letter of `text` with a strong direction (the Unicode
    bidirectional classes L, and R or AL); "" when it has none."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind == "L":
            return "ltr"
        if kind in ("R", "AL"):
            return "rtl"
    return ""


def segment_text(text: str, spans: Iterable[SpanLike]) -> list[Segment]:
    """Cut `text` at every span boundary; each piece lists the spans that cover it.

    Spans reaching past the end of the text are clipped to it (the database does not know
    the text's length; a wrong offset must not break the page). Empty spans are skipped.
    The pieces, joined, give back `text` exactly.
    """
    length = len(text)
    ordered: list[SpanLike] = sorted(
        (s for s in spans if 0 <= s.start < min(s.end, length)),
        key=lambda s: (s.start, s.end),
    )
    boundaries = sorted(
        {0, length, *(s.start for s in ordered), *(min(s.end, length) for s in ordered)}
    )
    starting: dict[int, list[SpanLike]] = {}
    for span in ordered:
        starting.setdefault(span.start, []).append(span)

    segments: list[Segment] = []
    active: list[SpanLike] = []
    for left, right in zip(boundaries, boundaries[1:], strict=False):
        active = [s for s in active if min(s.end, length) > left]
        active.extend(starting.get(left, ()))
        segments.append(Segment(left, right, text[left:right], _in_order(active)))
    return segments


def _in_order(active: Sequence[SpanLike]) -> tuple[SpanLike, ...]:
    return tuple(sorted(active, key=lambda s: (s.start, s.end)))
