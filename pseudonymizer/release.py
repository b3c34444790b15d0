"""The release pipeline: what a person decided, rendered under a strategy, and checked so that
no identifier leaves unless a person decided on it.

    pipeline = ReleasePipeline(Strategy.S3, originals=[("Moshe Chaya", "PER")],
                               detection=ReleaseDetection(known=[("Moshe Chaya", "PER")]))
    for result in pipeline.run(documents):      # a batch of `ReleaseDocument`
        result.reason                           # why it is left out ("" when released)
        result.text, result.spans               # what to write
        result.findings                         # what refuses the release

The command line (`python -m pseudonymizer pseudonymize`) and the app's release
(`annotator.services.releases`) both call it; they only read documents, write files and say
what was found. For each document, in order:

1. **Choose.** The spans a person accepted are rendered. A document with a proposal nobody
   decided, or whose accepted spans overlap, is left out with its reason: a proposal may be a
   name, and the safe side is not to publish.
2. **Render** under the strategy (`pseudonymizer.strategies.render`): `keep` stays, `delete`
   goes, `invalidate` takes the invalidated form the correspondence table holds for it (the
   one source of that form) under every strategy but S0, `pseudonymize` follows the strategy,
   the table's pseudonym under `realistic`, one S3 numbering for the whole release.
3. **Check the rendered text** (`pseudonymizer.evaluation.LeakChecker`): every original of the
   table that is not kept, folded as the matcher folds, and every pattern hit outside the
   rendered spans (`LEAK_PATTERN_LABELS`). An original inside a span a person kept, or a word of
   a pseudonym that is a word of someone else's name (never of its own original, never someone's
   whole name), is no leak.
4. **Check the document as stored** (`pseudonymizer.detection_check`): every detector of the
   project runs over the text as it was imported — the profile's patterns and lexicons, the
   known entities, the learned model, NER — and every hit must be *covered*: each of its word
   characters (a letter, a mark or a digit) lies inside the union of the spans a person
   decided there, accepted (rendered, kept or deleted) or rejected. A proposal rejected by no
   person (set aside by a machine's rule, or as a side effect of a person's span over part of
   it) covers nothing and is a hit itself, under its source. A hit only partly covered —
   NER's "Ottoline Postlethwaite" where a person accepted "Ottoline" — is a finding, with the
   stretches nobody decided on. Each detector's hits count on their own, before any merging: a
   pattern hit is never hidden by a model's overlapping span.

A finding names a document, offsets and a label, never the text it found. A hit or a pattern
leak that a person judged harmless can be dismissed (`ReleaseDocument.dismissed`: offsets and
detector); it is then reported as dismissed, never dropped silently. An original of the table
cannot be dismissed: fix the document.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from pseudonymizer.detection_check import Hit, ReleaseDetection, covered, merged, whole_words
from pseudonymizer.evaluation import Leak, LeakChecker
from pseudonymizer.folding import fold
from pseudonymizer.recognizers.known import is_calendar_word
from pseudonymizer.recognizers.regex import LABELS as PATTERN_LABELS
from pseudonymizer.recognizers.regex import RegexRecognizer
from pseudonymizer.spans import Span
from pseudonymizer.strategies import Numbering, Strategy, default_entity, render
from pseudonymizer.vocabulary import Decision

__all__ = [
    "HIT",
    "LEAK",
    "LEAK_PATTERN_LABELS",
    "ORIGINAL_SOURCE",
    "PATTERN_SOURCE",
    "DecidedSpan",
    "DocumentResult",
    "Finding",
    "ReleaseDocument",
    "ReleasePipeline",
    "SpanState",
    "document_fingerprint",
    "needs_replacement",
]

# Hashtags are topics far more often than people: the pattern check of the rendered text
# leaves them to the annotators (the detection check over the stored text still finds them).
_TOPIC_LABELS = frozenset({"HASHTAG"})
# What the pattern check of the rendered text looks for: identifiers with a stable shape, as
# the regular expressions name them.
LEAK_PATTERN_LABELS: tuple[str, ...] = tuple(
    label for label in PATTERN_LABELS if label not in _TOPIC_LABELS
)
# The detector a pattern leak of the rendered text is reported (and dismissed) under.
PATTERN_SOURCE = "pattern"
ORIGINAL_SOURCE = "original"
# What a release's findings are: a leak found in the rendered text, or a detector's hit over
# the stored text that no person decided on.
LEAK = "leak"
HIT = "hit"

LEFT_OUT_UNDECIDED = "{count} proposal(s) undecided: a proposal may name someone"
LEFT_OUT_PROBLEM = "cannot be rendered: {problem}"

_WORD = re.compile(r"\w+")


class SpanState(StrEnum):
    """Where a span stands: proposed by a machine, or accepted or rejected by a person (the
    app's `SpanStatus` has the same values)."""

    PROPOSED = "proposed"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class DecidedSpan(NamedTuple):
    """A span of a document as stored, with what was decided for it.

    `state` is a `SpanState` value. `replacement` is what the correspondence table holds for
    its surface: the pseudonym, or the invalidated form (`needs_replacement` says when the
    pipeline needs it). `entity` numbers it under S3 (None: its label and folded surface,
    `default_entity`). `by_person` says a person made the decision (a rejected span covers a
    detector's hit only then). `ref` is the caller's id of the span, reported with a finding
    there. A tuple, not a dataclass: a release builds one per span of every document.
    """

    start: int
    end: int
    label: str
    state: str = SpanState.ACCEPTED
    decision: str = Decision.PSEUDONYMIZE.value
    replacement: str | None = None
    entity: object = None
    by_person: bool = True
    ref: int | None = None
    score: float | None = None
    source: str = "human"

    @property
    def covers(self) -> bool:
        """Whether a detector's hit here was seen by a person: a span rendered (accepted,
        whatever its decision), or one a person rejected."""
        return self.state == SpanState.ACCEPTED or (
            self.state == SpanState.REJECTED and self.by_person
        )


class ReleaseDocument(NamedTuple):
    """One document to release: its text as stored, its language and its spans.

    `ner`, when given, is what the NER model found in it elsewhere (the `ner` queue); None lets
    the detection run the model here, if it has one. `dismissed` are the (start, end,
    detector) of findings a person judged harmless in this very document (same text, same
    decisions: `document_fingerprint`). `ref` is the caller's id, passed through.
    """

    ref: Any
    text: str
    language: str
    spans: Sequence[DecidedSpan] = ()
    ner: Sequence[Span] | None = None
    dismissed: Collection[tuple[int, int, str]] = ()


@dataclass(frozen=True)
class Finding:
    """Something that refuses a release, by place only.

    `kind` is "leak" (in the rendered text: an `original` of the table, or a `pattern` hit; `start`
    and `end` are its rendered offsets) or "hit" (a detector's hit over the stored text that no
    person decided on; `source` is the detector). `document_start`/`document_end` are where it
    is in the document as stored, `span_ref` the span there if any, `uncovered` the stretches of
    a hit that no decided span covers, each widened to the whole words it cuts
    (`pseudonymizer.detection_check.whole_words`). Never the text it found.
    """

    kind: str
    document_start: int
    document_end: int
    label: str
    source: str
    start: int | None = None
    end: int | None = None
    span_ref: int | None = None
    uncovered: tuple[tuple[int, int], ...] = ()

    @property
    def dismissible(self) -> bool:
        """A person may judge it harmless: a detector's hit or a pattern, never an original."""
        return self.source != ORIGINAL_SOURCE

    @property
    def key(self) -> tuple[int, int, str]:
        """How a dismissal names it: its place in the stored document and what found it."""
        return (self.document_start, self.document_end, self.source)

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "kind": self.kind,
            "document_start": self.document_start,
            "document_end": self.document_end,
            "label": self.label,
            "source": self.source,
            "span_id": self.span_ref,
        }
        if self.kind == LEAK:
            found["start"], found["end"] = self.start, self.end
        else:
            found["uncovered"] = [list(stretch) for stretch in self.uncovered]
        return found

    def __str__(self) -> str:
        where = f"[{self.document_start}, {self.document_end})"
        if self.kind == HIT:
            return f"{self.label} found by {self.source} at {where} of the input, not decided on"
        what = "original surface" if self.source == ORIGINAL_SOURCE else self.label
        return f"{what} at [{self.start}, {self.end}) of the output (from {where} of the input)"


@dataclass(slots=True)
class DocumentResult:
    """What the pipeline made of one document: left out (`reason`), or rendered (`text`,
    `spans`) with its `findings` and the findings a person had `dismissed`."""

    document: ReleaseDocument
    reason: str = ""
    text: str = ""
    spans: list[Span] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    dismissed: list[Finding] = field(default_factory=list)

    @property
    def released(self) -> bool:
        return not self.reason


def needs_replacement(strategy: Strategy | str, decision: str | None) -> bool:
    """Whether rendering a span with `decision` under `strategy` needs the table's replacement:
    the pseudonym under `realistic`, the invalidated form under every strategy but S0."""
    strategy = Strategy(strategy)
    if decision == Decision.INVALIDATE:
        return strategy is not Strategy.S0
    if decision in (Decision.KEEP, Decision.DELETE):
        return False
    return strategy is Strategy.REALISTIC


def document_fingerprint(
    text: str, spans: Iterable[DecidedSpan], stretch: tuple[int, int] | None = None
) -> str:
    """What a dismissal holds to: the text and every span's place, label, state and decision
    (of the spans that overlap `stretch`, when given: a finding's place). A change to any of
    them makes a dismissed hit count again; a change to a span elsewhere in the document
    does not touch a dismissal held to its stretch."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
    if stretch is not None:
        low, high = stretch
        spans = [span for span in spans if span.start < high and span.end > low]
        digest.update(f"\x01{low}:{high}".encode())
    for span in sorted(spans, key=lambda s: (s.start, s.end, s.label, s.state, s.decision)):
        digest.update(
            f"\x00{span.start}:{span.end}:{span.label}:{span.state}:{span.decision}".encode()
        )
    return digest.hexdigest()


@dataclass(frozen=True)
class _Rendering:
    text: str
    spans: list[Span]
    # Each accepted span in offset order, with where its stand-in lies in the rendered text
    # (an empty stretch when it was removed).
    places: list[tuple[DecidedSpan, int, int]]


def _words(text: str) -> list[str]:
    """The words of `text` as the leak check compares them (the known-entity matcher's
    folding: case, accents and Arabic letter variants)."""
    return _WORD.findall(fold(text))


def _place(span: DecidedSpan) -> tuple[int, int]:
    return (span.start, span.end)


def _replacement(span: DecidedSpan, surface: str) -> str:
    return span.replacement or ""


def _entity(span: DecidedSpan, surface: str) -> object:
    return default_entity(span, surface) if span.entity is None else span.entity


class ReleasePipeline:
    """One release: documents in, in order; what to write and what refuses it out.

    `originals` are the (original, label) pairs of every entity of the table that is not
    kept, token-level aliases included. `detection` checks the stored texts (None: no
    detection check). `own_surfaces` also looks in each rendered text for the surfaces of its
    own non-kept spans (for a table that does not hold them yet, as the command line's).
    `leak_check=False` renders without any check. `placeholder` is S1's.
    """

    def __init__(
        self,
        strategy: Strategy | str,
        *,
        originals: Iterable[tuple[str, str]] = (),
        detection: ReleaseDetection | None = None,
        own_surfaces: bool = False,
        leak_check: bool = True,
        placeholder: str = "placeholder",
    ) -> None:
        self.strategy = Strategy(strategy)
        self.placeholder = placeholder
        self.leak_check = leak_check
        self.detection = detection if leak_check else None
        self.own_surfaces = own_surfaces and leak_check
        # One S3 numbering for the whole release: an entity has one number in every document.
        self.numbering = Numbering()
        surfaces: list[str] = []
        self._original_labels: list[str] = []
        for original, label in originals if leak_check else ():
            if is_calendar_word(original, label):
                continue  # "March", "yesterday": in every text, naming no day
            surfaces.append(original)
            self._original_labels.append(label)
        patterns = RegexRecognizer(labels=LEAK_PATTERN_LABELS)
        self._checker = LeakChecker(surfaces, [patterns.recognize_one] if leak_check else [])

    def run(self, documents: Sequence[ReleaseDocument]) -> list[DocumentResult]:
        """The results of a batch of documents, in their order (S3 numbers them in that order).
        Detection runs once per language of the batch. Raises `DetectionUnavailable`."""
        results: list[DocumentResult] = []
        rendered: dict[int, _Rendering] = {}
        for index, document in enumerate(documents):
            reason, rendering = self._render(document)
            if rendering is None:
                results.append(DocumentResult(document, reason=reason))
                continue
            rendered[index] = rendering
            results.append(DocumentResult(document, text=rendering.text, spans=rendering.spans))
        if not self.leak_check:
            return results
        hits = self._detect(documents, rendered)
        for index, rendering in rendered.items():
            document = documents[index]
            findings = self._leaks(document, rendering)
            uncovered = self._uncovered(document, hits.get(index, []))
            if not findings and not uncovered:
                continue  # the usual case: nothing to say
            # A pattern left in the output is a hit of the regular expressions too: said once.
            said = {
                (f.document_start, f.document_end, f.label)
                for f in findings
                if f.source == PATTERN_SOURCE
            }
            findings.extend(
                finding
                for finding in uncovered
                if not (
                    finding.source == RegexRecognizer.name
                    and (finding.document_start, finding.document_end, finding.label) in said
                )
            )
            findings.sort(key=lambda f: (f.document_start, f.document_end, f.kind, f.source))
            dismissed = set(document.dismissed)
            results[index] = DocumentResult(
                document,
                text=rendering.text,
                spans=rendering.spans,
                findings=[f for f in findings if not (f.dismissible and f.key in dismissed)],
                dismissed=[f for f in findings if f.dismissible and f.key in dismissed],
            )
        return results

    # --- Choosing and rendering

    def _render(self, document: ReleaseDocument) -> tuple[str, _Rendering | None]:
        accepted: list[DecidedSpan] = []
        undecided = 0
        for span in document.spans:
            if span.state == SpanState.ACCEPTED:
                accepted.append(span)
            elif span.state == SpanState.PROPOSED:
                undecided += 1
        if undecided:
            return LEFT_OUT_UNDECIDED.format(count=undecided), None
        accepted.sort(key=_place)
        invalidated: dict[str, str] = {}
        for span in accepted:
            # Checked before rendering, so that a document left out numbers no entity.
            if span.replacement is None and needs_replacement(self.strategy, span.decision):
                return (
                    LEFT_OUT_PROBLEM.format(
                        problem=f"span [{span.start}, {span.end}) {span.label} has no "
                        "replacement in the correspondence table"
                    ),
                    None,
                )
            if span.decision == Decision.INVALIDATE:
                # One surface, one decision in a project: its invalidated form is the table's.
                invalidated[document.text[span.start : span.end]] = span.replacement or ""
        try:
            rendered = render(
                document.text,
                accepted,
                self.strategy,
                replacement=_replacement,
                entity_of=_entity,
                invalidate=invalidated.__getitem__,
                placeholder=self.placeholder,
                numbering=self.numbering,
            )
        except ValueError as problem:
            return LEFT_OUT_PROBLEM.format(problem=problem), None
        # `render` sorts by place, as `accepted` is sorted: each place is its span's.
        places = [
            (span, start, end) for span, (start, end) in zip(accepted, rendered.places, strict=True)
        ]
        return "", _Rendering(rendered.text, rendered.spans, places)

    # --- Checking the rendered text

    def _leaks(self, document: ReleaseDocument, rendering: _Rendering) -> list[Finding]:
        text = rendering.text
        found: list[tuple[Leak, str]] = []
        for leak in self._checker(text, allowed=rendering.spans):
            label = self._original_labels[leak.original] if leak.original is not None else ""
            found.append((leak, label))
        if self.own_surfaces:
            own = [
                span
                for span in document.spans
                if span.state == SpanState.ACCEPTED
                and span.decision != Decision.KEEP
                and not is_calendar_word(document.text[span.start : span.end], span.label)
            ]
            if own:
                checker = LeakChecker([document.text[s.start : s.end] for s in own])
                found.extend((leak, own[leak.original or 0].label) for leak in checker(text))
        found.sort(key=lambda pair: (pair[0].start, -pair[0].end))
        findings: list[Finding] = []
        longest = -1  # the end of the longest original found so far
        seen: set[tuple[int, int, str]] = set()
        for leak, label in found:
            if leak.original is not None:
                if self._excused(leak, document, rendering):
                    continue
                # "Moshe" inside "Moshe Chaya": one leak, the longest.
                if leak.end <= longest:
                    continue
                longest = leak.end
                source = ORIGINAL_SOURCE
            else:
                label, source = leak.label or "", PATTERN_SOURCE
            if (leak.start, leak.end, source) in seen:
                continue
            seen.add((leak.start, leak.end, source))
            start, end, ref = self._in_document(document, rendering, leak.start, leak.end)
            findings.append(
                Finding(LEAK, start, end, label, source, leak.start, leak.end, span_ref=ref)
            )
        return findings

    @staticmethod
    def _excused(leak: Leak, document: ReleaseDocument, rendering: _Rendering) -> bool:
        """Whether an original found in the rendered text is no leak: inside a span a person
        kept (published on purpose), or a word of a pseudonym that happens to be a word of
        someone else's name ("Nora" in the pseudonym "Nora Bell" while a Nora Haddad is in
        the corpus) - never a word of the original the pseudonym replaces, nor a pseudonym
        that is someone's whole name."""
        for span, start, end in rendering.places:
            if not (start <= leak.start and leak.end <= end) or start == end:
                continue
            if span.decision == Decision.KEEP:
                return True
            if (leak.start, leak.end) == (start, end):
                return False
            found = _words(rendering.text[leak.start : leak.end])
            own = _words(document.text[span.start : span.end])
            return not any(
                own[index : index + len(found)] == found
                for index in range(len(own) - len(found) + 1)
            )
        return False

    def _in_document(
        self, document: ReleaseDocument, rendering: _Rendering, start: int, end: int
    ) -> tuple[int, int, int | None]:
        """Where a leak found at `start`:`end` of the rendered text lies in the document as
        stored, and the span there (any state: a rejected phone number, say), so that a page
        can send a person to it. Inside a replacement, the whole replaced span."""
        shift = 0
        for span, new_start, new_end in rendering.places:
            if new_end <= start:  # before the leak (a deletion right at it too)
                shift = span.end - new_end
                continue
            if new_start >= end:
                break
            if new_start < new_end:
                return span.start, span.end, span.ref
        place = (start + shift, end + shift)
        there = sorted(
            (s for s in document.spans if s.start < place[1] and s.end > place[0]),
            key=lambda s: (s.start, s.end),
        )
        return place[0], place[1], there[0].ref if there else None

    # --- Checking the stored text

    def _detect(
        self, documents: Sequence[ReleaseDocument], rendered: Mapping[int, _Rendering]
    ) -> dict[int, list[Hit]]:
        if self.detection is None:
            return {}
        by_language: dict[str, list[int]] = {}
        for index in rendered:
            by_language.setdefault(documents[index].language, []).append(index)
        found: dict[int, list[Hit]] = {}
        for language, indexes in by_language.items():
            hits = self.detection.hits(
                [documents[index].text for index in indexes],
                language,
                [documents[index].ner for index in indexes],
            )
            found.update(zip(indexes, hits, strict=True))
        return found

    @staticmethod
    def _uncovered(document: ReleaseDocument, hits: Sequence[Hit]) -> list[Finding]:
        # A proposal set aside by a machine's rule, or as a side effect of another span, was
        # seen by nobody: it counts as its detector's hit, whatever the detectors find now.
        aside = {
            Hit(span.start, span.end, span.label, span.source): span.ref
            for span in document.spans
            if span.state == SpanState.REJECTED and not span.by_person
        }
        hits = [*hits, *aside]
        if not hits:
            return []
        union = merged((span.start, span.end) for span in document.spans if span.covers)
        findings: list[Finding] = []
        seen: set[Hit] = set()
        for hit in hits:
            if hit in seen:
                continue
            seen.add(hit)
            stretches = covered(document.text, hit.start, hit.end, union)
            if not stretches:
                continue
            there = sorted(
                (s for s in document.spans if s.start < hit.end and s.end > hit.start),
                key=lambda s: (s.start, s.end),
            )
            findings.append(
                Finding(
                    HIT, hit.start, hit.end, hit.label, hit.detector,
                    span_ref=aside[hit] if hit in aside else there[0].ref if there else None,
                    uncovered=whole_words(document.text, stretches, hit.start, hit.end),
                )
            )  # fmt: skip
        return findings
