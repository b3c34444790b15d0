"""What a recognizer is, and running several of them over a batch of texts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from pseudonymizer.spans import Span, resolve_overlaps


class RecognizerError(RuntimeError):
    """A recognizer cannot run (a model missing or unloadable); the message is fit for a user."""


@runtime_checkable
class Recognizer(Protocol):
    """Finds spans in texts. Batch API: one list of spans per text, in the order given."""

    name: str

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]: ...


_SENTENCE_ENDS = frozenset('.!?:;“"(«')


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
    def starts_sentence(text: str, position: int) -> bool:
        """Whether `position` begins a sentence, a line or the text: a capital there says
        nothing about a name."""
        index = position - 1
        while index >= 0 and text[index].isspace():
            if text[index] in "\r\n":
                return True
            index -= 1
        return index < 0 or text[index] in _SENTENCE_ENDS


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
    """Run every recognizer over `texts` and merge their spans with `resolve_overlaps`.

    A recognizer that raises `RecognizerError` is recorded in `errors` and the others still
    run, so regular expressions and known entities are proposed when the NER model is
    missing. Any other exception is a bug and propagates.
    """
    texts = list(texts)
    found: list[list[Span]] = [[] for _ in texts]
    errors: dict[str, str] = {}
    for recognizer in recognizers:
        try:
            result = recognizer.recognize(texts, language)
        except RecognizerError as error:
            errors[recognizer.name] = str(error) or type(error).__name__
            continue
        if len(result) != len(texts):
            raise ValueError(
                f"recognizer {recognizer.name!r} returned {len(result)} results "
                f"for {len(texts)} texts"
            )
        for bucket, spans in zip(found, result, strict=True):
            bucket.extend(spans)
    return Recognition(spans=[resolve_overlaps(spans) for spans in found], errors=errors)
