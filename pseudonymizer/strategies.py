"""Rendering a document's decided spans under one substitution strategy (DESIGN.md's table).

    render("Shoutout to Moshe Chaya!", [Span(12, 23, "PER")], Strategy.S3).text
    == "Shoutout to PER_1!"

Offsets are code points, in and out. Text outside the spans is copied as it is, character for
character ("\\r\\n" and combining marks included); only the spans change.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, TypeVar

from pseudonymizer.spans import Span
from pseudonymizer.vocabulary import Decision, DecisionRefused, check_known_decision

KEEP = Decision.KEEP
INVALIDATE = Decision.INVALIDATE
DELETE = Decision.DELETE
PSEUDONYMIZE = Decision.PSEUDONYMIZE

_WHITESPACE = re.compile(r"\s+")


class Strategy(StrEnum):
    """How a pseudonymized span is rendered."""

    S0 = "S0"  # deletion
    S1 = "S1"  # one placeholder for everything
    S2 = "S2"  # the label
    S3 = "S3"  # the label and a number per entity
    REALISTIC = "realistic"  # the entity's pseudonym

    @property
    def label(self) -> str:
        return _STRATEGY_LABELS[self]


_STRATEGY_LABELS = {
    Strategy.S0: "S0 deletion",
    Strategy.S1: "S1 uniform placeholder",
    Strategy.S2: "S2 category placeholder",
    Strategy.S3: "S3 unique placeholder per entity",
    Strategy.REALISTIC: "Realistic pseudonyms",
}


@dataclass(frozen=True)
class Rendered:
    """A rendered text and the spans of what stands in it for the original spans.

    `spans` are in the new text's code points, with the label, score, source and decision of
    the span they stand for: replacements, invalidated identifiers and kept spans (unchanged).
    A deleted span, or one replaced by an empty string, has none. `places` gives, for every
    span given, in offset order, where what stands for it lies in the new text: an empty
    stretch where it was removed (so that a place in the new text maps back to the original).
    """

    text: str
    spans: list[Span]
    places: list[tuple[int, int]] = field(default_factory=list)


class Numbering(dict[object, int]):
    """S3's numbers for a whole corpus, entity → number, that knows its highest number: pass
    one to every `render` call of a release, and a call costs nothing for the entities numbered
    before it (a plain dict is searched for its highest number on every call)."""

    def __init__(self) -> None:
        super().__init__()
        self.last = 0


class Placed(Protocol):
    """What rendering reads of a span: an engine `Span`, or a release's `DecidedSpan`."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...

    @property
    def label(self) -> str: ...

    @property
    def score(self) -> float | None: ...

    @property
    def source(self) -> str: ...

    @property
    def decision(self) -> str | None: ...


P = TypeVar("P", bound=Placed)


def default_entity(span: Placed, surface: str) -> tuple[str, str]:
    """The entity a span names when the caller does not say: its label and its surface,
    compared without case, compatibility forms or differences in whitespace."""
    folded = _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", surface).casefold()).strip()
    return (span.label, folded)


def check_spans(text: str, spans: Sequence[P]) -> list[P]:
    """`spans` sorted by offset; raise ValueError for one outside `text`, two that overlap,
    or an unknown decision."""
    ordered = sorted(spans, key=lambda span: (span.start, span.end))
    for span in ordered:
        if span.end > len(text):
            raise ValueError(
                f"span [{span.start}, {span.end}) {span.label} lies outside the text "
                f"({len(text)} characters)"
            )
        if span.decision is not None:
            try:
                check_known_decision(span.decision)
            except DecisionRefused as refused:
                raise ValueError(
                    f"span [{span.start}, {span.end}) {span.label}: {refused}"
                ) from None
    for before, after in zip(ordered, ordered[1:], strict=False):
        if after.start < before.end:  # sorted by start: they overlap
            raise ValueError(
                f"spans [{before.start}, {before.end}) {before.label} and "
                f"[{after.start}, {after.end}) {after.label} overlap"
            )
    return ordered


def render(
    text: str,
    spans: Sequence[P],
    strategy: Strategy | str,
    *,
    replacement: Callable[[P, str], str] | None = None,
    entity_of: Callable[[P, str], object] | None = None,
    invalidate: Callable[[str], str] | None = None,
    placeholder: str = "placeholder",
    numbering: MutableMapping[object, int] | None = None,
) -> Rendered:
    """Render `text` with its `spans` substituted under `strategy`.

    Each span's decision says what happens to it: `keep` leaves it as it is under every
    strategy; `delete` removes it under every strategy; `invalidate` passes the surface through
    `invalidate` under every strategy but S0, which deletes it; `pseudonymize` (or no decision)
    follows the strategy: S0 deletes, S1 writes `placeholder`, S2 the label, S3 the label, "_"
    and the entity's number, `realistic` whatever `replacement(span, surface)` returns.

    S3 numbers entities from 1 in order of first appearance, one counter for all labels; the
    entity of a span is `entity_of(span, surface)`, by default its label and normalised surface
    (`default_entity`). Pass the same `numbering` dict to every call of a corpus to number its
    entities consistently across documents: it is read and extended in place (a `Numbering`
    keeps that cheap for a whole corpus). `spans` may be any `Placed` (the callbacks get them
    back as given); the new text's spans are engine `Span`s.

    Raises ValueError for overlapping spans, a span outside the text, or a decision that needs
    a callable (`replacement`, `invalidate`) that was not given.
    """
    strategy = Strategy(strategy)
    ordered = check_spans(text, spans)
    entity = entity_of or default_entity
    numbers: MutableMapping[object, int] = {} if numbering is None else numbering
    if isinstance(numbers, Numbering):
        next_number = numbers.last + 1
    else:
        next_number = max(numbers.values(), default=0) + 1

    pieces: list[str] = []
    out_spans: list[Span] = []
    places: list[tuple[int, int]] = []
    length = 0  # of the text rendered so far
    position = 0  # in the original text
    for span in ordered:
        gap = text[position : span.start]
        pieces.append(gap)
        length += len(gap)
        surface = text[span.start : span.end]
        decision = span.decision or PSEUDONYMIZE
        new: str
        if decision == KEEP:
            new = surface
        elif decision == DELETE or strategy is Strategy.S0:
            new = ""
        elif decision == INVALIDATE:
            if invalidate is None:
                raise ValueError(
                    f"span [{span.start}, {span.end}) {span.label} is to be invalidated, "
                    "but no invalidate function was given"
                )
            new = invalidate(surface)
        elif strategy is Strategy.S1:
            new = placeholder
        elif strategy is Strategy.S2:
            new = span.label
        elif strategy is Strategy.S3:
            key = entity(span, surface)
            number = numbers.get(key)
            if number is None:
                number = numbers[key] = next_number
                next_number += 1
                if isinstance(numbers, Numbering):
                    numbers.last = number
            new = f"{span.label}_{number}"
        else:
            if replacement is None:
                raise ValueError("the realistic strategy needs a replacement function")
            new = replacement(span, surface)
        pieces.append(new)
        if new:
            # Built directly: dataclasses.replace costs more than the rest of a span's turn.
            out_spans.append(
                Span(length, length + len(new), span.label, span.score, span.source, span.decision)
            )
        places.append((length, length + len(new)))
        length += len(new)
        position = span.end
    pieces.append(text[position:])
    return Rendered(text="".join(pieces), spans=out_spans, places=places)
