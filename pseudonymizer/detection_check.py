"""Whether a person saw everything a detector finds in a document as stored: the fourth
step of a release (`pseudonymizer.release`).

`ReleaseDetection` runs every detector of a project over the stored texts — the profile's
patterns and lexicons, the known entities, the learned model, NER (sifted as a run sifts it),
and the recurrences of what they found (`echoes`) — and returns each detector's hits on their
own, before any merging, so that a pattern hit is never hidden by a model's overlapping
span. A hit is *covered* when each of its word characters (a letter, a
mark or a digit; `is_word_char`) lies inside the union of the spans a person decided on
(`merged`); `covered` gives the stretches of a hit that nobody decided on.
"""

from __future__ import annotations

import bisect
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, Protocol

from pseudonymizer.detection import LanguageRecognizer, other_scripts
from pseudonymizer.folding import fold_char
from pseudonymizer.recognizers.base import Recognizer, RecognizerError
from pseudonymizer.recognizers.echoes import echoes
from pseudonymizer.recognizers.known import KnownEntityRecognizer
from pseudonymizer.recognizers.profiles import pattern_recognizers
from pseudonymizer.recognizers.sifting import sift
from pseudonymizer.spans import Span
from pseudonymizer.vocabulary import DEFAULT_PROFILE

__all__ = [
    "DetectionUnavailable",
    "Hit",
    "ReleaseDetection",
    "covered",
    "is_word_char",
    "merged",
    "whole_words",
]


class DetectionUnavailable(RuntimeError):
    """A detector of the check could not run (a model that does not load): the check would be
    incomplete, so nothing may be released. The message names the detector and language."""


def is_word_char(char: str) -> bool:
    """A letter, a mark or a digit: what a hit must have covered (punctuation, symbols and
    spaces identify nobody: "@" before a handle, the dots of a phone number)."""
    return unicodedata.category(char)[0] in "LMN"


def merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` as sorted, disjoint stretches: their union."""
    union: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if union and start <= union[-1][1]:
            if end > union[-1][1]:
                union[-1] = (union[-1][0], end)
        else:
            union.append((start, end))
    return union


def covered(
    text: str, start: int, end: int, union: Sequence[tuple[int, int]]
) -> tuple[tuple[int, int], ...]:
    """The stretches of `text[start:end]` whose word characters lie outside `union` (sorted,
    disjoint (start, end) pairs: `merged`); () when every word character lies inside it.

    A stretch runs from an uncovered word character to the last uncovered one before a
    covered character or the end: "Ottoline Postlethwaite" with "Ottoline" covered leaves
    "Postlethwaite"; "@marie" with "marie" covered leaves nothing ("@" is no word character).
    """
    index = max(0, bisect.bisect_right(union, (start, len(text) + 1)) - 1)
    if index < len(union) and union[index][0] <= start and end <= union[index][1]:
        return ()  # the usual case: one decided span holds the whole hit
    stretches: list[tuple[int, int]] = []
    open_at = last = -1
    for position in range(start, end):
        while index < len(union) and union[index][1] <= position:
            index += 1
        if index < len(union) and union[index][0] <= position:
            if open_at >= 0:
                stretches.append((open_at, last + 1))
                open_at = -1
        elif is_word_char(text[position]):
            if open_at < 0:
                open_at = position
            last = position
    if open_at >= 0:
        stretches.append((open_at, last + 1))
    return tuple(stretches)


def _joins_a_word(char: str) -> bool:
    """A word character, or one that folding drops (a zero-width space or joiner, a soft
    hyphen, tatweel, a mark): "P\u200bennycuick" is one word to a reader."""
    return is_word_char(char) or not fold_char(char)


def whole_words(
    text: str, stretches: Iterable[tuple[int, int]], low: int, high: int
) -> tuple[tuple[int, int], ...]:
    """`stretches` (sorted, as `covered` gives them) widened to the whole words they cut,
    within `low`:`high`: what a finding names, so that a person sees the leak whole ("P" of
    "P\u200bennycuick" whose rest was decided names the word) and not one letter of it."""
    words: list[tuple[int, int]] = []
    for start, end in stretches:
        while start > low and _joins_a_word(text[start - 1]):
            start -= 1
        while end < high and _joins_a_word(text[end]):
            end += 1
        if words and start <= words[-1][1]:
            words[-1] = (words[-1][0], max(end, words[-1][1]))
        else:
            words.append((start, end))
    return tuple(words)


class _NerRunner(Protocol):
    """What runs a NER model here (`pseudonymizer.detection.Detector`)."""

    def runs_ner(self, language: str) -> bool: ...

    def ner(self, texts: Sequence[str], language: str) -> Any: ...


# The detector the recurrences of a found name are reported under.
ECHOES = "echoes"


class Hit(NamedTuple):
    """A detector's span over a stored text, and the detector's name."""

    start: int
    end: int
    label: str
    detector: str


def _elsewhere(echoed: list[Span], found: list[Span]) -> list[Span]:
    """The echoes that lie inside no span another detector found."""
    return [
        echo
        for echo in echoed
        if not any(
            span.start <= echo.start and echo.end <= span.end
            for span in found
            if span.score is None or span.score >= (echo.score or 0)  # not a weaker guess
        )
    ]


class ReleaseDetection:
    """The project's whole detection, run over documents as stored to find what no person
    decided on.

    `profile` chooses the pattern recognizers (`recall`, the default, runs them all: lexicons,
    occupations, initials, proper nouns). `known` are the (surface, label) pairs of the table:
    every decided surface, found wherever it occurs. `learned` are recognizers trained on the
    project's decisions, each for its `language`. `ner` runs the NER model of a language here
    for the documents that bring no NER spans of their own (a `Detector`; None: only what the
    documents bring). `labels` maps a detector's label to the project's (None drops the hit, as
    a pre-annotation run drops a span its schema has no label for; a pattern recognizer none of
    whose labels survive is not run at all); by default labels stay.
    """

    def __init__(
        self,
        *,
        profile: str = DEFAULT_PROFILE,
        known: Iterable[tuple[str, str]] = (),
        learned: Iterable[LanguageRecognizer] = (),
        ner: _NerRunner | None = None,
        labels: Callable[[str], str | None] | None = None,
    ) -> None:
        self.profile = profile
        self._labels = labels
        self._label_cache: dict[str, str | None] = {}
        # A detector none of whose labels the project keeps cannot refuse anything: not run.
        self._patterns: list[Recognizer] = [
            recognizer for recognizer in pattern_recognizers(profile) if self._may_count(recognizer)
        ]
        aliases = list(known)
        self._known = KnownEntityRecognizer(aliases) if aliases else None
        self._learned = {model.language.strip().lower(): model for model in learned}
        self._ner = ner

    def _may_count(self, recognizer: Recognizer) -> bool:
        """Whether a hit of `recognizer` can survive the label mapping. Its labels are the ones
        its module declares (`LABELS`, or `LABEL`); one that declares none always runs."""
        if self._labels is None:
            return True
        module = sys.modules.get(type(recognizer).__module__)
        declared = getattr(module, "LABELS", None)
        if declared is None:
            single = getattr(module, "LABEL", None)
            declared = (single,) if isinstance(single, str) else None
        if not isinstance(declared, tuple | list):
            return True
        return any(self._label(label) is not None for label in declared)

    def detectors(self, language: str) -> list[str]:
        """The names of the detectors that run over a document of `language` (NER when it has
        a model here; documents that bring NER spans add "ner")."""
        names = [recognizer.name for recognizer in self._patterns]
        if self._known is not None:
            names.append(self._known.name)
        if language.strip().lower() in self._learned:
            names.append(self._learned[language.strip().lower()].name)
        if self._ner is not None and self._ner.runs_ner(language):
            names.append("ner")
        names.append(ECHOES)
        return names

    def _label(self, label: str) -> str | None:
        if self._labels is None:
            return label
        if label not in self._label_cache:
            self._label_cache[label] = self._labels(label)
        return self._label_cache[label]

    def hits(
        self,
        texts: Sequence[str],
        language: str,
        ner: Sequence[Sequence[Span] | None] | None = None,
    ) -> list[list[Hit]]:
        """Every detector's hits in each text, labels mapped, before any merging.

        `ner` gives, per text, the NER spans found elsewhere (None: run the model here when
        there is one). Raises `DetectionUnavailable` when a detector cannot run.
        """
        found: list[list[Hit]] = [[] for _ in texts]
        # What the detectors find, for the echoes of each text (`recognizers.echoes` keeps
        # the sure finds).
        sure: list[list[Span]] = [[] for _ in texts]
        # Stretches in another script are read by their script's detectors too.
        recognizers: list[Recognizer] = [*self._patterns, *other_scripts(self._patterns)]
        if self._known is not None:
            recognizers.append(self._known)
        learned = self._learned.get(language.strip().lower())
        if learned is not None:
            recognizers.append(learned)
        for recognizer in recognizers:
            try:
                results = recognizer.recognize(texts, language)
            except RecognizerError as error:
                raise DetectionUnavailable(
                    f"detector {recognizer.name} cannot run for {language!r}: {error}"
                ) from error
            self._add(found, results, recognizer.name)
            for bucket, spans in zip(sure, results, strict=True):
                bucket.extend(spans)
        given = list(ner) if ner is not None else [None] * len(texts)
        missing = [index for index, spans in enumerate(given) if spans is None]
        if missing and self._ner is not None and self._ner.runs_ner(language):
            detection = self._ner.ner([texts[index] for index in missing], language)
            if detection.errors:
                reasons = "; ".join(f"{name}: {why}" for name, why in detection.errors.items())
                raise DetectionUnavailable(f"NER for {language!r} cannot run: {reasons}")
            for index, spans in zip(missing, detection.spans, strict=True):
                given[index] = spans
        # A model's entity is sifted as a run sifts it: shorthand, public bodies and dates
        # nobody can place are not proposed, so they are not hits either.
        models = [
            sift(spans or (), text, language) for text, spans in zip(texts, given, strict=True)
        ]
        self._add(found, models, "ner")
        # A name found once is found wherever it recurs in the text, as a run proposes it;
        # where another detector found it already, it is that detector's hit alone.
        recurring = [
            _elsewhere(echoes(text, [*spans, *model], language), [*spans, *model])
            for text, spans, model in zip(texts, sure, models, strict=True)
        ]
        self._add(found, recurring, ECHOES)
        return found

    def _add(self, found: list[list[Hit]], results: Sequence[Sequence[Span]], name: str) -> None:
        label_of = self._label
        for bucket, spans in zip(found, results, strict=True):
            for span in spans:
                label = label_of(span.label)
                if label is not None:
                    bucket.append(Hit(span.start, span.end, label, name))
