"""Spans over text, counted in Unicode code points, and conversion to UTF-16 units."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class Span:
    """A labelled stretch of text: `text[start:end]` in code points (Python string indices).

    `also` names the other sources that proposed exactly this span (same start, end and
    label) when a merge (`resolve_overlaps`) kept this one of them: who else found it, so
    that what each recognizer adds stays visible. It is not part of the span's identity:
    equality and hashing ignore it, so two recognizers' identical finds still meet as one.
    """

    start: int
    end: int
    label: str
    score: float | None = None
    source: str = "human"
    decision: str | None = None
    also: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if self.start < 0 or self.end <= self.start:
            raise ValueError(f"invalid span [{self.start}, {self.end})")

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def surface(self, text: str) -> str:
        return text[self.start : self.end]


def _utf16_len(char: str) -> int:
    return 2 if ord(char) > 0xFFFF else 1


def utf16_offsets(text: str) -> list[int]:
    """`result[i]` is the UTF-16 offset of code point `i`; `result[len(text)]` is the length."""
    offsets = [0] * (len(text) + 1)
    position = 0
    for index, char in enumerate(text):
        offsets[index] = position
        position += _utf16_len(char)
    offsets[len(text)] = position
    return offsets


def codepoint_to_utf16(text: str, index: int) -> int:
    """The UTF-16 offset of code point `index` (0 <= index <= len(text))."""
    if not 0 <= index <= len(text):
        raise ValueError(f"offset {index} outside text of length {len(text)}")
    return index + sum(1 for char in text[:index] if ord(char) > 0xFFFF)


def utf16_to_codepoint(text: str, unit: int) -> int:
    """The code point index at UTF-16 offset `unit`; refuses an offset inside a surrogate pair."""
    if unit < 0:
        raise ValueError(f"negative UTF-16 offset {unit}")
    position = 0
    for index, char in enumerate(text):
        if position == unit:
            return index
        position += _utf16_len(char)
        if position > unit:
            raise ValueError(f"UTF-16 offset {unit} falls inside a surrogate pair")
    if position == unit:
        return len(text)
    raise ValueError(f"UTF-16 offset {unit} outside text of {position} units")


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Utf16Index:
    """Converts many offsets of one text between UTF-16 units and code points.

    O(log n) a conversion, keeping only where the astral characters (two UTF-16 units) are,
    so it serves a reader's whole file as well as one document.
    """

    def __init__(self, text: str) -> None:
        # Code point index, and UTF-16 offset, at which each astral character starts.
        self._astral_index = [match.start() for match in _ASTRAL.finditer(text)]
        self._astral_unit = [index + n for n, index in enumerate(self._astral_index)]
        self.codepoints = len(text)
        self.length = len(text) + len(self._astral_index)

    def to_codepoint(self, unit: int) -> int:
        """The code point index at UTF-16 offset `unit`; refuses one inside a surrogate pair."""
        if not 0 <= unit <= self.length:
            raise ValueError(f"UTF-16 offset {unit} outside text of {self.length} units")
        before = bisect.bisect_left(self._astral_unit, unit)
        if before and self._astral_unit[before - 1] == unit - 1:
            raise ValueError(f"UTF-16 offset {unit} falls inside a surrogate pair")
        return unit - before

    def to_utf16(self, index: int) -> int:
        """The UTF-16 offset of code point `index`."""
        if not 0 <= index <= self.codepoints:
            raise ValueError(f"offset {index} outside text of length {self.codepoints}")
        return index + bisect.bisect_left(self._astral_index, index)


# Between overlapping spans the more specific source wins once length and confidence tie:
# a person outranks a file someone imported, which outranks the project's own decided
# entities, which are exact strings and so outrank patterns; then a model learned from the
# project's own decisions (it knows the project's conventions, but it is a statistical guess,
# not an exact string or shape), which outranks a generic NER model.
SOURCE_PRIORITY: dict[str, int] = {
    "human": 5, "import": 4, "known": 3, "regex": 2, "learned": 1, "ner": 0,
}  # fmt: skip

# Sources whose spans a person made or vouched for: an unscored one counts as certain.
_TRUSTED_SOURCES = frozenset({"human", "import"})


def overlap(a: Span, b: Span) -> int:
    """How many code points `a` and `b` share (0 when they do not overlap)."""
    return max(0, min(a.end, b.end) - max(a.start, b.start))


def spans_equal_relaxed(a: Span, b: Span) -> bool:
    """Same label and at least one shared code point: the "relaxed" match of span evaluation."""
    return a.label == b.label and overlap(a, b) > 0


def effective_score(span: Span) -> float:
    """The span's score; an unscored span counts as 1.0 from a person or an import, else 0."""
    if span.score is not None:
        return span.score
    return 1.0 if span.source in _TRUSTED_SOURCES else 0.0


def overlap_preference(span: Span) -> tuple[int, float, int, int, int, str, str, str, float]:
    """The order in which overlapping spans win (`resolve_overlaps`): smaller sorts first."""
    # The trailing fields only make the order total, so that the result does not depend on
    # the order of the input: an unscored span and one scored 0 tie on their effective score,
    # and the unscored one comes first.
    return (
        -(span.end - span.start),
        -effective_score(span),
        -SOURCE_PRIORITY.get(span.source, -1),
        span.start,
        span.end,
        span.label,
        span.source,
        span.decision or "",
        -1.0 if span.score is None else -span.score,
    )


def _position(span: Span) -> tuple[int, int, str, str, float, str]:
    score = -1.0 if span.score is None else span.score
    return (span.start, span.end, span.label, span.source, score, span.decision or "")


class _Occupied:
    """Disjoint, sorted intervals; answers "does [start, end) touch any of them?" by bisection."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def hits(self, start: int, end: int) -> bool:
        index = bisect.bisect_right(self.starts, start) - 1
        if index >= 0 and self.ends[index] > start:
            return True
        return index + 1 < len(self.starts) and self.starts[index + 1] < end

    def add(self, start: int, end: int) -> None:
        # Merge with whatever it touches, so the intervals stay disjoint (human spans may
        # overlap each other; every other span is only added where nothing is).
        low = bisect.bisect_left(self.ends, start)
        high = bisect.bisect_right(self.starts, end)
        if low < high:
            start = min(start, self.starts[low])
            end = max(end, self.ends[high - 1])
        self.starts[low:high] = [start]
        self.ends[low:high] = [end]


def select_non_overlapping(
    spans: Iterable[Span],
    key: Callable[[Span], Any],
    *,
    keep: Iterable[Span] = (),
) -> list[Span]:
    """Greedy selection: walk `spans` in `key` order (smallest first) and keep each one that
    overlaps nothing kept so far. The `keep` spans are kept unconditionally, before the walk,
    even where they overlap each other. Returns the kept spans sorted by position.
    """
    kept = list(keep)
    if not kept:
        # Usually nothing overlaps: then every span is kept, and no search is needed.
        ordered = sorted(spans, key=_position)
        if all(a.end <= b.start for a, b in zip(ordered, ordered[1:], strict=False)):
            return ordered
        spans = ordered
    occupied = _Occupied()
    for span in kept:
        occupied.add(span.start, span.end)
    for span in sorted(spans, key=key):
        if not occupied.hits(span.start, span.end):
            occupied.add(span.start, span.end)
            kept.append(span)
    kept.sort(key=_position)
    return kept


def resolve_overlaps(spans: Iterable[Span]) -> list[Span]:
    """Keep a non-overlapping selection of `spans`, sorted by (start, end, label).

    Between overlapping spans the longer wins, then the more confident (see
    `effective_score`), then the more specific source (`SOURCE_PRIORITY`: human > import >
    known > regex > learned > ner). Human spans are never dropped: every other span that
    touches one yields. Two human spans that overlap each other are both kept: a person's
    annotations do not overlap in practice, and if they do, silently deleting one of them is
    worse than letting the caller see both. So the result is free of overlaps except between
    human spans. Exact duplicates are kept once. The result is a subset of the input and
    `resolve_overlaps(resolve_overlaps(x)) == resolve_overlaps(x)`.

    Where several sources proposed the same span (start, end and label), the one kept names
    the others in `also` (with those the input already named there), most specific first:
    the merge decides which source a span is shown under, never who found it.
    """
    spans = list(spans)
    unique = list(dict.fromkeys(spans))
    human = [span for span in unique if span.source == "human"]
    others = [span for span in unique if span.source != "human"]
    kept = select_non_overlapping(others, overlap_preference, keep=human)
    # Every span, duplicates included: two equal spans may name different others in `also`.
    return _with_other_sources(kept, spans)


def _by_priority(source: str) -> tuple[int, str]:
    return (-SOURCE_PRIORITY.get(source, -1), source)


def _with_other_sources(kept: list[Span], candidates: Iterable[Span]) -> list[Span]:
    """`kept`, each span naming in `also` every other source that proposed it among
    `candidates` (same start, end and label; a candidate's own `also` counts too), most
    specific first. Spans no other source proposed are returned as they are."""
    proposers: dict[tuple[int, int, str], set[str]] = {}
    shared = False
    for span in candidates:
        key = (span.start, span.end, span.label)
        found = proposers.get(key)
        if found is None:
            proposers[key] = {span.source, *span.also}
            shared = shared or bool(span.also)
        else:
            found.add(span.source)
            found.update(span.also)
            shared = True
    if not shared:  # the usual case: no span was proposed twice
        return kept
    result = []
    for span in kept:
        others = proposers.get((span.start, span.end, span.label), set()) - {span.source}
        also = tuple(sorted(others, key=_by_priority))
        result.append(span if also == span.also else replace(span, also=also))
    return result
