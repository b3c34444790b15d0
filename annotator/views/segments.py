"""A document's text cut into segments for reading: plain stretches and highlighted ones.

Spans may overlap or nest, and HTML elements may not. So the text is cut at every span
boundary and each piece carries the set of spans covering it; the page then renders a flat
sequence of elements, one per piece. Offsets are code points (Python string indices), the
same as everywhere else on the server; annotator.views.workspace_html escapes every piece.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol


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
    @property
    def decision(self) -> str: ...


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

    @property
    def state(self) -> str:
        """What a person decided of this piece, as the text shows it: "accepted" (or "kept",
        accepted and kept as it is) once a person's span covers it, "proposed" while only
        proposals do, "rejected" when every span over it was; "" for plain text."""
        statuses = {span.status for span in self.spans}
        if "accepted" in statuses:
            kept = any(span.status == "accepted" and span.decision == "keep" for span in self.spans)
            return "kept" if kept else "accepted"
        if "proposed" in statuses:
            return "proposed"
        return "rejected" if statuses else ""


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


def segment_text(
    text: str, spans: Iterable[SpanLike], window: tuple[int, int] | None = None
) -> list[Segment]:
    """Cut `text` at every span boundary; each piece lists the spans that cover it.

    Spans reaching past the end of the text are clipped to it (the database does not know
    the text's length; a wrong offset must not break the page). Empty spans are skipped.
    The pieces, joined, give back `text` exactly; with `window` (start, end), the pieces
    of that stretch alone, which no span may cross (see `closed_window`).
    """
    length = len(text)
    low, high = (0, length) if window is None else (max(0, window[0]), min(length, window[1]))
    ordered: list[SpanLike] = sorted(
        (s for s in spans if 0 <= s.start < min(s.end, length) and low <= s.start < high),
        key=lambda s: (s.start, s.end),
    )
    boundaries = sorted(
        {low, high, *(s.start for s in ordered), *(min(s.end, high) for s in ordered)}
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


def closed_window(start: int, end: int, spans: Iterable[SpanLike]) -> tuple[int, int]:
    """[start, end) widened until no span of `spans` crosses either edge: the stretch of
    text that re-renders whole when spans within it change."""
    ranges = sorted((s.start, s.end) for s in spans)
    changed = True
    while changed:
        changed = False
        for left, right in ranges:
            if left < end and right > start and (left < start or right > end):
                start, end = min(start, left), max(end, right)
                changed = True
    return start, end


def _in_order(active: Sequence[SpanLike]) -> tuple[SpanLike, ...]:
    return tuple(sorted(active, key=lambda s: (s.start, s.end)))
