"""What a recognizer is, and running several of them over a batch of texts."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Protocol, runtime_checkable

from pseudonymizer.graphemes import widen_spans
from pseudonymizer.spans import (
    Span,
    overlap_preference,
    resolve_overlaps,
    select_non_overlapping,
)


class RecognizerError(RuntimeError):
    """A recognizer cannot run (a model missing or unloadable); the message is fit for a user."""


@runtime_checkable
class Recognizer(Protocol):
    """Finds spans in texts. Batch API: one list of spans per text, in the order given."""

    name: str

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]: ...


_SENTENCE_ENDS = frozenset('.!?:;“"(«')
# What opens a post before its first word: handles it answers, "RT", an emoticon
# ("@user What do you", "RT @a: Thanks", ":D How was").
_LEAD = re.compile(r"(?:\s*(?:RT\b|@[\w.]+|[:;=xX8]['\-^]?[DPpO3()\[\]]+)[:,.!]*)+\s*")
# A list's number in brackets after a space or a colon: "A:   (1)  Alcohol", "3) Worried".
_NUMBERED = re.compile(r"(?:^|(?<=[\s:]))\(?(?:\d{1,3}|[ivxIVX]{1,4})\)\s+$")
# What may stand before the first word of a list's item on its line: a bullet, a number or
# a letter in brackets, asterisks.
_ITEM = re.compile(r"[^\w\n]*(?:\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)][^\w\n]*)?")
# A word as the pattern recognizers read it: a letter, then letters, digits, apostrophes and
# hyphens ("Stoke-on-Trent", "O’Brien", "BNP’s").
_WORD = re.compile(r"[^\W\d_][\w'’\-]*")
# The possessive ending of a word ("Price’s", "Jones'"): not part of a name.
POSSESSIVE = re.compile(r"['’]s?$")

Word = tuple[int, int, str]


class PatternRecognizer:
    """Base of the recognizers that read one text at a time (patterns, no model to batch):
    a subclass sets `name` and implements `recognize_one`."""

    name: str = "patterns"

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        """One list of spans per text, in the order given."""
        return [self.recognize_one(text) for text in texts]

    def recognize_one(self, text: str) -> list[Span]:
        """The spans of one text."""
        raise NotImplementedError

    @staticmethod
    def words(text: str) -> list[Word]:
        """The (start, end, word) of every word of `text`, in order (the same list for the
        recognizers that read one text in turn: do not change it)."""
        return _words(text)

    @staticmethod
    def starts_sentence(text: str, position: int) -> bool:
        """Whether `position` begins a sentence, a line, a list's item ("(3)  Hypertension",
        "- Alcohol", "**** Approved"), a post after the handles it answers ("@user What")
        or the text: a capital there says nothing about a name."""
        index = position - 1
        while index >= 0 and text[index].isspace():
            if text[index] in "\r\n":
                return True
            index -= 1
        if index < 0 or text[index] in _SENTENCE_ENDS:
            return True
        line = text.rfind("\n", 0, position) + 1
        return (
            _ITEM.fullmatch(text, line, position) is not None
            or _LEAD.fullmatch(text, line, position) is not None
            or _NUMBERED.search(text, max(line, position - 12), position) is not None
        )


@lru_cache(maxsize=4)
def _words(text: str) -> list[Word]:
    return [(match.start(), match.end(), match.group()) for match in _WORD.finditer(text)]


@dataclass(frozen=True)
class Recognition:
    """The merged spans of every recognizer, one list per text, and the recognizers that failed.

    `errors` maps a recognizer's name to its `RecognizerError` message.
    """

    spans: list[list[Span]]
    errors: dict[str, str] = field(default_factory=dict)


def recognize_all(
    texts: Sequence[str], language: str, recognizers: Iterable[Recognizer]
) -> Recognition:
    """Run every recognizer over `texts` and merge their spans with `resolve_overlaps`, a
    pattern's hit never yielding to another recognizer's span (`_merged`). A span that
    several recognizers found alike (same start, end and label) is kept once, under the most
    specific source, and names the others in `Span.also`.

    A recognizer whose `fallback` attribute is true (a guess such as "a capitalised word")
    runs after the others have been merged, and only the parts of its spans that nothing
    found covers are added: it fills gaps, it never overrides a model's or a pattern's label.

    A recognizer that raises `RecognizerError` is recorded in `errors` and the others still
    run, so regular expressions and known entities are proposed when the NER model is
    missing. Any other exception is a bug and propagates.
    """
    texts = list(texts)
    ordered = list(recognizers)
    found: list[list[Span]] = [[] for _ in texts]
    errors: dict[str, str] = {}
    # Every proposal holds whole characters (a model's tokens may cut an emoji's skin tone
    # or a letter's accent off): a person could not accept half a character as it is.
    for recognizer in (r for r in ordered if not getattr(r, "fallback", False)):
        results = _run(recognizer, texts, language, errors)
        for text, bucket, spans in zip(texts, found, results, strict=True):
            bucket.extend(widen_spans(text, spans))
    merged = [_merged(text, spans) for text, spans in zip(texts, found, strict=True)]
    for recognizer in (r for r in ordered if getattr(r, "fallback", False)):
        guesses = _run(recognizer, texts, language, errors)
        merged = [
            select_non_overlapping(
                widen_spans(
                    text, [piece for span in spans for piece in _gaps(text, span, kept, starts)]
                ),
                _longer_first,
                keep=kept,
            )
            for text, kept, spans in zip(texts, merged, guesses, strict=True)
            for starts in [[k.start for k in kept]]
        ]
    return Recognition(spans=merged, errors=errors)


# The source of the patterns' hits (`RegexRecognizer`): stable shapes, never dropped for a
# model's guess that overlaps them.
PATTERN_SOURCE = "regex"


def _merged(text: str, spans: list[Span]) -> list[Span]:
    """`resolve_overlaps`, except that a pattern's hit never yields to another recognizer's
    span. A model's span that would drop one ("Salut @marie.delattre1 ! Rendez" taken for a
    name around the handle) keeps only its parts outside the pattern hits, trimmed to word
    characters, so that the handle is proposed as a handle and the rest is still proposed. A
    hit that a wider span of the same label holds is not lost, and stays inside it."""
    merged = resolve_overlaps(spans)
    chosen = set(merged)
    dropped = [
        span
        for span in dict.fromkeys(spans)
        if span.source == PATTERN_SOURCE
        and span not in chosen
        and not any(
            other.start <= span.start and span.end <= other.end and other.label == span.label
            for other in merged
        )
    ]
    if not dropped:
        return merged
    anchors = resolve_overlaps(
        [span for span in merged if span.source in (PATTERN_SOURCE, "human")] + dropped
    )
    starts = [anchor.start for anchor in anchors]
    held = set(anchors)
    rest = [
        piece for span in merged if span not in held for piece in _gaps(text, span, anchors, starts)
    ]
    return select_non_overlapping(widen_spans(text, rest), overlap_preference, keep=anchors)


def _gaps(text: str, span: Span, kept: list[Span], starts: list[int]) -> list[Span]:
    """The parts of `span` that no `kept` span covers, trimmed to word characters:
    "Stoke-on-Trent Crown Court" around a kept "Crown Court" leaves "Stoke-on-Trent"."""
    pieces = [(span.start, span.end)]
    # `kept` is sorted by start (`starts`): those that may overlap start before `span` ends,
    # and, since they do not overlap one another, end after it starts from some index on.
    last = bisect.bisect_left(starts, span.end)
    first = max(0, bisect.bisect_left(starts, span.start) - 1)
    for other in kept[first:last]:
        if other.end <= span.start:
            continue
        pieces = [
            part
            for start, end in pieces
            for part in ((start, min(end, other.start)), (max(start, other.end), end))
            if part[0] < part[1]
        ]
    result = []
    for start, end in pieces:
        while start < end and not text[start].isalnum():
            start += 1
        while end > start and not text[end - 1].isalnum():
            end -= 1
        if start < end:
            result.append(replace(span, start=start, end=end))
    return result


def _longer_first(span: Span) -> tuple[int, int]:
    """Among a fallback's own overlapping guesses, the longer wins, then the earlier."""
    return (span.start - span.end, span.start)


def _run(
    recognizer: Recognizer, texts: list[str], language: str, errors: dict[str, str]
) -> list[list[Span]]:
    """The recognizer's spans per text; no spans (and an entry in `errors`) when it fails."""
    try:
        result = recognizer.recognize(texts, language)
    except RecognizerError as error:
        errors[recognizer.name] = str(error) or type(error).__name__
        return [[] for _ in texts]
    if len(result) != len(texts):
        raise ValueError(
            f"recognizer {recognizer.name!r} returned {len(result)} results for {len(texts)} texts"
        )
    return result
