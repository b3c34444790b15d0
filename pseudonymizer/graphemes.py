"""Grapheme clusters: what a reader sees as one character, and so the smallest thing a span
may hold or leave out.

A cluster is Unicode's extended grapheme cluster (UAX #29), as the `regex` package's `\\X`
finds it: a letter with its combining marks, an emoji with its skin tone, a family joined by
zero-width joiners, a flag's two regional indicators, CR LF. A span that begins or ends
inside one would show half a character, and a replacement would leave the other half
behind (a skin tone without its hand, an accent on the pseudonym's first letter).

Offsets are code points, as everywhere in the engine. Only a window around the offsets asked
about is segmented, so a check costs the same in a tweet and in a 6,000-word document.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import regex

from pseudonymizer.spans import Span

_CLUSTER = regex.compile(r"\X")
# Characters that never begin a cluster: they join the one before them (UAX #29 GB9, GB9a).
_JOINS_BEFORE = regex.compile(r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}]")
# Characters a cluster can always end with: no rule joins them to what follows but GB9/GB9a,
# which _JOINS_BEFORE covers (a CR, a prepended sign, a Hangul jamo, a regional indicator or
# a joiner may join what follows, so none of them is here).
_ENDS_FREELY = regex.compile(r"[\p{GCB=Other}\p{GCB=LF}\p{GCB=Control}]")
# How far on each side of an offset segmentation starts looking for a certain boundary.
_WINDOW = 32


class _CharMatches(dict[str, bool]):
    """Whether a character matches a one-character pattern, asked of the pattern the first
    time the character is seen: every span of every import asks this of its edges."""

    def __init__(self, pattern: regex.Pattern[str]) -> None:
        super().__init__()
        self.pattern = pattern

    def __missing__(self, char: str) -> bool:
        matches = self[char] = self.pattern.match(char) is not None
        return matches


_ENDS_FREELY_CHAR = _CharMatches(_ENDS_FREELY)
_JOINS_BEFORE_CHAR = _CharMatches(_JOINS_BEFORE)


def _certain_boundary(text: str, index: int) -> bool:
    """Whether `index` is a cluster boundary whatever comes before `index - 1`, so that
    segmenting from (or up to) it gives the same clusters as segmenting the whole text.
    It may answer False at a boundary (the caller then looks one further), never True
    inside a cluster."""
    if index <= 0 or index >= len(text):
        return True
    return _ENDS_FREELY_CHAR[text[index - 1]] and not _JOINS_BEFORE_CHAR[text[index]]


def _window(text: str, low: int, high: int) -> tuple[int, int]:
    """A stretch of `text` around [low, high) that begins and ends at certain boundaries."""
    start = max(0, low - _WINDOW)
    while not _certain_boundary(text, start):
        start -= 1
    end = min(len(text), high + _WINDOW)
    while not _certain_boundary(text, end):
        end += 1
    return start, end


def boundaries(text: str, low: int = 0, high: int | None = None) -> list[int]:
    """The cluster boundaries of `text` from the last one at or before `low` to the first one
    at or after `high` (the whole text by default), in order; 0 and len(text) are boundaries."""
    high = len(text) if high is None else high
    if not 0 <= low <= high <= len(text):
        raise ValueError(f"[{low}, {high}) is not a stretch of a text of length {len(text)}")
    start, end = _window(text, low, high)
    found = [start]
    for match in _CLUSTER.finditer(text, start, end):
        found.append(match.end())
    first = max(i for i, b in enumerate(found) if b <= low)
    last = min(i for i, b in enumerate(found) if b >= high)
    return found[first : last + 1]


def is_boundary(text: str, index: int) -> bool:
    """Whether a span may begin or end at code point `index` of `text`."""
    if not 0 <= index <= len(text):
        raise ValueError(f"offset {index} outside a text of length {len(text)}")
    return _certain_boundary(text, index) or index in boundaries(text, index, index)


def widen(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to whole clusters: unchanged when both edges are boundaries."""
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"[{start}, {end}) is not a span of a text of length {len(text)}")
    if _certain_boundary(text, start) and _certain_boundary(text, end):
        return start, end  # most spans: nothing to segment
    around_start = boundaries(text, start, start)
    around_end = boundaries(text, end, end)
    return around_start[0], around_end[-1]


def widen_spans(text: str, spans: Iterable[Span]) -> list[Span]:
    """`spans` over `text`, each widened to whole clusters (`widen`): what a machine
    proposes a person can accept as it is."""
    widened = []
    for span in spans:
        start, end = widen(text, span.start, span.end)
        unchanged = (start, end) == (span.start, span.end)
        widened.append(span if unchanged else replace(span, start=start, end=end))
    return widened
