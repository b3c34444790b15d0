"""Measuring detection and agreement, and checking a rendered text for leaks.

- `span_prf`: span precision, recall and F1 per label, micro and macro, strict or relaxed.
- `token_masking`: the share of identifier tokens a detector masks, and of masked tokens that
  identify (how detection is judged on anonymised court cases).
- `cohen_kappa_tokens`: token-level Cohen's kappa between two annotations; `token_agreement`
  also says how many tokens it was computed on, and whether that is too few to report it;
  `token_table` counts one text's tokens, in tables that add up across texts.
- `span_confusion`: which label one annotation gave where the other gave which, in spans.
- `leak_check`: every original surface, and every recognizer hit, still in a rendered text.

Offsets are code points. Tokens are maximal runs of characters that are neither whitespace
nor punctuation nor symbols (`tokenize`), so "tom.reddle@protonmail.example" is four tokens
and an emoji is none; combining marks stay inside their word.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pseudonymizer.folding import ARABIC_ARTICLE, fold, fold_with_origin, is_arabic_letter
from pseudonymizer.spans import Span

ANY_LABEL = "*"
OUTSIDE = "O"

# --- Spans: precision, recall, F1 ------------------------------------------------------------


@dataclass(frozen=True)
class Scores:
    """Counts and scores for one label (or all of them).

    `matched_gold` gold spans were found, `matched_pred` predicted spans were right. Under the
    strict mode both are the number of exact matches; under the relaxed mode one prediction
    may cover two gold spans (or the reverse), so they may differ. Precision is
    `matched_pred / pred` and recall `matched_gold / gold`; a ratio with nothing to count is 0.
    """

    gold: int = 0
    pred: int = 0
    matched_gold: int = 0
    matched_pred: int = 0

    @property
    def precision(self) -> float:
        return self.matched_pred / self.pred if self.pred else 0.0

    @property
    def recall(self) -> float:
        return self.matched_gold / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)

    def __add__(self, other: Scores) -> Scores:
        return Scores(
            self.gold + other.gold,
            self.pred + other.pred,
            self.matched_gold + other.matched_gold,
            self.matched_pred + other.matched_pred,
        )


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass(frozen=True)
class Averaged:
    """Macro averages: the unweighted mean of the per-label scores."""

    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class Report:
    """The outcome of `span_prf`: scores per label, summed (micro) and averaged (macro)."""

    mode: str
    per_label: dict[str, Scores]
    micro: Scores
    macro: Averaged

    def table(self) -> str:
        """A plain-text table: one row per label, then micro and macro."""
        rows = [f"{'label':<16} {'P':>6} {'R':>6} {'F1':>6} {'gold':>7} {'pred':>7}"]
        for label, scores in sorted(self.per_label.items()):
            rows.append(
                f"{label:<16} {scores.precision:6.3f} {scores.recall:6.3f} {scores.f1:6.3f}"
                f" {scores.gold:7d} {scores.pred:7d}"
            )
        micro = self.micro
        rows.append(
            f"{'micro':<16} {micro.precision:6.3f} {micro.recall:6.3f} {micro.f1:6.3f}"
            f" {micro.gold:7d} {micro.pred:7d}"
        )
        macro = self.macro
        rows.append(f"{'macro':<16} {macro.precision:6.3f} {macro.recall:6.3f} {macro.f1:6.3f}")
        return "\n".join(rows)


def _overlapped(spans: Sequence[tuple[int, int]], others: Sequence[tuple[int, int]]) -> list[bool]:
    """For each of `spans`, whether it overlaps at least one of `others` (both lists of
    (start, end))."""
    if not spans or not others:
        return [False] * len(spans)
    ordered = sorted(others)
    starts = [start for start, _ in ordered]
    furthest = list(itertools.accumulate((end for _, end in ordered), max))
    flags: list[bool] = []
    for start, end in spans:
        # The others that start before this span ends; one of them overlaps iff it ends after
        # this span starts, i.e. iff the furthest end among them does.
        before = bisect.bisect_left(starts, end)
        flags.append(bool(before) and furthest[before - 1] > start)
    return flags


def _covered(spans: Sequence[tuple[int, int]], others: Sequence[tuple[int, int]]) -> int:
    """How many of `spans` overlap at least one of `others` (both lists of (start, end))."""
    return sum(_overlapped(spans, others))


def _document_scores(
    gold: Iterable[Span], pred: Iterable[Span], mode: str, ignore_label: bool
) -> dict[str, Scores]:
    def group(spans: Iterable[Span]) -> dict[str, list[tuple[int, int]]]:
        grouped: dict[str, set[tuple[int, int]]] = {}
        for span in spans:
            label = ANY_LABEL if ignore_label else span.label
            grouped.setdefault(label, set()).add((span.start, span.end))
        return {label: sorted(offsets) for label, offsets in grouped.items()}

    gold_by_label, pred_by_label = group(gold), group(pred)
    scores: dict[str, Scores] = {}
    for label in gold_by_label.keys() | pred_by_label.keys():
        gold_spans = gold_by_label.get(label, [])
        pred_spans = pred_by_label.get(label, [])
        if mode == "strict":
            exact = len(set(gold_spans) & set(pred_spans))
            matched_gold = matched_pred = exact
        else:
            matched_gold = _covered(gold_spans, pred_spans)
            matched_pred = _covered(pred_spans, gold_spans)
        scores[label] = Scores(len(gold_spans), len(pred_spans), matched_gold, matched_pred)
    return scores


def span_prf(
    gold: Sequence[Sequence[Span]],
    pred: Sequence[Sequence[Span]],
    *,
    mode: Literal["strict", "relaxed"] = "strict",
    by_label: bool = True,
    ignore_label: bool = False,
) -> Report:
    """Span precision, recall and F1 of `pred` against `gold`, one list of spans per document.

    strict: a prediction is right when a gold span has the same start, end and label.
    relaxed: a gold span is found when a prediction of the same label overlaps it, and a
    prediction is right when it overlaps a gold span of the same label (Hripcsak & Rothschild's
    F-measure with overlap matching, as MultiGraSCCo scores). Both sides are counted on their
    own: recall counts gold spans found, precision predictions that found something, so one
    long prediction over two names gives two found names and one right prediction.

    `ignore_label` matches offsets only (every label counts as "*"). `by_label=False` leaves
    `per_label` empty (micro and macro are still computed over the labels). Spans repeated
    with the same offsets and label count once. The macro average is over every label that
    occurs in gold or pred.
    """
    if mode not in ("strict", "relaxed"):
        raise ValueError(f"unknown mode {mode!r}; expected 'strict' or 'relaxed'")
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold documents but {len(pred)} predicted ones")
    totals: dict[str, Scores] = {}
    for gold_spans, pred_spans in zip(gold, pred, strict=True):
        for label, scores in _document_scores(gold_spans, pred_spans, mode, ignore_label).items():
            totals[label] = totals.get(label, Scores()) + scores
    micro = sum(totals.values(), Scores())
    if totals:
        macro = Averaged(
            precision=sum(s.precision for s in totals.values()) / len(totals),
            recall=sum(s.recall for s in totals.values()) / len(totals),
            f1=sum(s.f1 for s in totals.values()) / len(totals),
        )
    else:
        macro = Averaged(0.0, 0.0, 0.0)
    return Report(
        mode=mode,
        per_label=dict(sorted(totals.items())) if by_label else {},
        micro=micro,
        macro=macro,
    )


# --- Tokens ----------------------------------------------------------------------------------


def _is_word_char(char: str) -> bool:
    return not char.isspace() and unicodedata.category(char)[0] not in "PSZC"


def tokenize(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each token of `text`: a maximal run of characters that are not
    whitespace, punctuation, symbols or control characters (combining marks included)."""
    tokens: list[tuple[int, int]] = []
    start: int | None = None
    for index, char in enumerate(text):
        if _is_word_char(char):
            if start is None:
                start = index
        elif start is not None:
            tokens.append((start, index))
            start = None
    if start is not None:
        tokens.append((start, len(text)))
    return tokens


def _token_labels(tokens: Sequence[tuple[int, int]], spans: Iterable[Span]) -> list[str]:
    """The label of the first span (by start) overlapping each token, "O" for none."""
    labels = [OUTSIDE] * len(tokens)
    starts = [start for start, _ in tokens]
    for span in sorted(spans, key=lambda span: (span.start, span.end), reverse=True):
        # Tokens that end after the span starts and start before it ends; the reverse order
        # lets the earliest span write last.
        first = bisect.bisect_right(starts, span.start) - 1
        if first < 0 or tokens[first][1] <= span.start:
            first += 1
        for index in range(first, len(tokens)):
            if tokens[index][0] >= span.end:
                break
            labels[index] = span.label
    return labels


@dataclass(frozen=True)
class TokenMasking:
    """How a detector's spans mask a text's identifier tokens (tokens inside gold spans)."""

    gold_tokens: int
    masked_tokens: int
    masked_gold_tokens: int

    @property
    def recall(self) -> float:
        """The share of identifier tokens masked; 1.0 when there are none."""
        return self.masked_gold_tokens / self.gold_tokens if self.gold_tokens else 1.0

    @property
    def precision(self) -> float:
        """The share of masked tokens that identify; 1.0 when nothing is masked."""
        return self.masked_gold_tokens / self.masked_tokens if self.masked_tokens else 1.0

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)


def token_masking(
    gold: Sequence[Sequence[Span]], pred: Sequence[Sequence[Span]], texts: Sequence[str]
) -> TokenMasking:
    """Token-level masking recall and precision of `pred` against `gold` over `texts`.

    A token (see `tokenize`) is an identifier token when a gold span overlaps it and masked
    when a predicted span overlaps it, whatever the labels.
    """
    if not len(gold) == len(pred) == len(texts):
        raise ValueError(f"{len(texts)} texts, {len(gold)} gold and {len(pred)} predicted")
    gold_count = masked_count = both = 0
    for gold_spans, pred_spans, text in zip(gold, pred, texts, strict=True):
        tokens = tokenize(text)
        in_gold = _token_labels(tokens, gold_spans)
        in_pred = _token_labels(tokens, pred_spans)
        for gold_label, pred_label in zip(in_gold, in_pred, strict=True):
            gold_count += gold_label != OUTSIDE
            masked_count += pred_label != OUTSIDE
            both += gold_label != OUTSIDE and pred_label != OUTSIDE
    return TokenMasking(gold_count, masked_count, both)


def cohen_kappa_tokens(
    a: Sequence[Sequence[Span]], b: Sequence[Sequence[Span]], texts: Sequence[str]
) -> float:
    """Cohen's kappa between two annotations of `texts`, over tokens (see `tokenize`).

    Each token takes the label of the span that overlaps it ("O" when none does; the
    earliest span when several do). kappa = (po - pe) / (1 - pe). When pe is 1 both annotators
    gave every token the one same label, so they agree perfectly: 1.0; also 1.0 when there
    are no tokens at all. Whether the sample is large enough to mean anything is
    `token_agreement`'s `too_small`.
    """
    return token_agreement(a, b, texts).kappa


# Below this many tokens compared, a kappa is not reported: on a sentence or two it swings
# from -1 to 1 with a single word.
MIN_KAPPA_TOKENS = 20


@dataclass(frozen=True)
class TokenAgreement:
    """Two annotations compared token by token (see `cohen_kappa_tokens`).

    `tokens` is how many tokens were compared, `labelled` how many of them at least one of
    the two annotations gave a label (not "O").
    """

    tokens: int
    labelled: int
    kappa: float

    @property
    def too_small(self) -> str | None:
        """Why the sample is too small for its kappa to be reported, or None: fewer than
        `MIN_KAPPA_TOKENS` tokens compared, or no token labelled by either annotation (both
        left everything unmarked: kappa would read 1.0 for no agreement on anything)."""
        if self.tokens < MIN_KAPPA_TOKENS:
            return f"only {self.tokens} words compared; kappa needs at least {MIN_KAPPA_TOKENS}"
        if not self.labelled:
            return "no word was labelled by either annotator"
        return None

    @property
    def reported_kappa(self) -> float | None:
        """The kappa, or None when the sample is too small (`too_small` says why)."""
        return None if self.too_small else self.kappa


@dataclass(frozen=True)
class TokenTable:
    """Two annotations' labels compared token by token, counted: (label in the first, label in
    the second) → tokens ("O" for none). Tables of several texts add up (`+`), so the kappa of
    many texts can be taken from tables counted once per text (`token_table`)."""

    counts: tuple[tuple[tuple[str, str], int], ...] = ()

    def __add__(self, other: TokenTable) -> TokenTable:
        summed: Counter[tuple[str, str]] = Counter(dict(self.counts))
        summed.update(dict(other.counts))
        return TokenTable(tuple(sorted(summed.items())))

    def agreement(self) -> TokenAgreement:
        """Cohen's kappa over the counted tokens (see `cohen_kappa_tokens`)."""
        total = labelled = agreed = 0
        count_a: Counter[str] = Counter()
        count_b: Counter[str] = Counter()
        for (x, y), n in self.counts:
            total += n
            labelled += n if x != OUTSIDE or y != OUTSIDE else 0
            agreed += n if x == y else 0
            count_a[x] += n
            count_b[y] += n
        if not total:
            return TokenAgreement(0, 0, 1.0)
        observed = agreed / total
        expected = sum(count_a[label] * count_b[label] for label in count_a) / (total * total)
        if expected >= 1.0:
            return TokenAgreement(total, labelled, 1.0)
        return TokenAgreement(total, labelled, (observed - expected) / (1 - expected))


def token_table(
    tokens: Sequence[tuple[int, int]], a: Iterable[Span], b: Iterable[Span]
) -> TokenTable:
    """The token table of two annotations `a` and `b` of one text whose tokens (`tokenize`)
    are `tokens`: a text tokenized once can be compared under several groupings of spans."""
    counts = Counter(zip(_token_labels(tokens, a), _token_labels(tokens, b), strict=True))
    return TokenTable(tuple(sorted(counts.items())))


def token_agreement(
    a: Sequence[Sequence[Span]], b: Sequence[Sequence[Span]], texts: Sequence[str]
) -> TokenAgreement:
    """Cohen's kappa between two annotations of `texts` over tokens, with the size of the
    sample it was computed on (see `cohen_kappa_tokens` for the kappa)."""
    if not len(a) == len(b) == len(texts):
        raise ValueError(f"{len(texts)} texts, but {len(a)} and {len(b)} annotations")
    table = TokenTable()
    for spans_a, spans_b, text in zip(a, b, texts, strict=True):
        table += token_table(tokenize(text), spans_a, spans_b)
    return table.agreement()


def span_confusion(
    a: Sequence[Sequence[Span]], b: Sequence[Sequence[Span]]
) -> dict[tuple[str | None, str | None], int]:
    """Which label annotation `b` gave where annotation `a` gave which, counted in spans, one
    list of spans per document: (label in a, label in b) → how many.

    Each span of `a` counts once, under the label of the span of `b` that overlaps it most
    (the earliest on a tie; None when no span of `b` overlaps it). Then each span of `b` that
    overlaps no span of `a` counts once under (None, its label). So the counts of a row add
    up to the spans `a` gave that label, and (None, label) are the places only `b` marked.
    """
    if len(a) != len(b):
        raise ValueError(f"{len(a)} and {len(b)} annotated documents")
    counts: Counter[tuple[str | None, str | None]] = Counter()
    for spans_a, spans_b in zip(a, b, strict=True):
        others = sorted(spans_b, key=lambda span: (span.start, span.end, span.label))
        starts = [other.start for other in others]
        longest = max((other.end - other.start for other in others), default=0)
        for span in spans_a:
            best: Span | None = None
            most = 0
            # Only a span starting less than `longest` before this one can reach into it.
            for index in range(bisect.bisect_left(starts, span.start - longest + 1), len(others)):
                other = others[index]
                if other.start >= span.end:
                    break
                overlap = min(span.end, other.end) - max(span.start, other.start)
                if overlap > most:
                    best, most = other, overlap
            counts[span.label, best.label if best is not None else None] += 1
        covered = _overlapped(
            [(other.start, other.end) for other in others],
            [(span.start, span.end) for span in spans_a],
        )
        for other, is_covered in zip(others, covered, strict=True):
            if not is_covered:
                counts[None, other.label] += 1
    return dict(counts)


# --- Leaks -----------------------------------------------------------------------------------

# Arabic proclitics that may stand glued in front of a name: و ف, then ب ك ل, then ال (or لل).
_ARABIC_PREFIX = re.compile("[وف]?(?:[بكل]?(?:ال)?|لل)")
# What may stand before a name inside its Arabic word, folded: a proclitic.
ARABIC_PROCLITIC = _ARABIC_PREFIX
# Before a name whose article's alef is elided (ل + القاهرة → للقاهرة): و or ف, then ل.
_LAM_PREFIX = re.compile("[وف]?ل")


@dataclass(frozen=True)
class Leak:
    """Something identifying still in a rendered text, by offsets only.

    `original` is the index (in iteration order) of the original surface found; for a
    recognizer hit it is None and `label`/`source` say what the recognizer saw. Printing a
    leak never shows the text it found.
    """

    start: int
    end: int
    original: int | None = None
    label: str | None = None
    source: str | None = None

    def __str__(self) -> str:
        where = f"[{self.start}, {self.end})"
        if self.original is not None:
            return f"original surface #{self.original} at {where}"
        return f"{self.label} found by {self.source or 'a recognizer'} at {where}"


def _fold(text: str, fold_accents: bool) -> tuple[str, list[int]]:
    """`text` in the matcher's matching form (`pseudonymizer.folding`; marks kept when
    `fold_accents` is False), and for each folded character the index of the original
    character it came from."""
    return fold_with_origin(text, keep_marks=not fold_accents)


def _ends_a_word(text: str, end: int) -> bool:
    return not (end < len(text) and _is_word_char(text[end - 1]) and _is_word_char(text[end]))


# Less than a word: an original with fewer letters or digits than this (the "L" of a name
# split by a soft hyphen) is found only where it stands alone (`_stands_alone`).
MIN_WORD_CHARS = 2


def _joins(text: str, index: int) -> bool:
    """Whether text[index] is an apostrophe or a hyphen that glues a word on its far side."""
    return 0 <= index < len(text) and fold(text[index]) in ("'", "-")


def _stands_alone(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is a word of its own: no letter, digit or mark on either side,
    nor an apostrophe or a hyphen gluing one ("l'été", "J'ai", "Ottoline's", "A-level")."""
    if start > 0 and (
        _is_word_char(text[start - 1])
        or (_joins(text, start - 1) and start > 1 and _is_word_char(text[start - 2]))
    ):
        return False
    return not (
        end < len(text)
        and (
            _is_word_char(text[end])
            or (_joins(text, end) and end + 1 < len(text) and _is_word_char(text[end + 1]))
        )
    )


def _is_boundary(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands as a whole word: no word character glued to an edge
    that is itself a word character (Arabic proclitics allowed in front)."""
    if not _ends_a_word(text, end):
        return False
    if start > 0 and _is_word_char(text[start]) and _is_word_char(text[start - 1]):
        word_start = start
        while word_start > 0 and _is_word_char(text[word_start - 1]):
            word_start -= 1
        # Folded as the matcher folds a proclitic: "وَ" with its haraka is "و".
        return _ARABIC_PREFIX.fullmatch(fold(text[word_start:start])) is not None
    return True


# For each folded original: the index of the original found as written, and the index of the
# original found with its article's alef elided (ل + القاهرة → للقاهرة), either may be None.
_Found = tuple[int | None, int | None]


class _Automaton:
    """Aho-Corasick over folded originals, or a plain search when pyahocorasick is missing."""

    def __init__(self, patterns: dict[str, _Found]) -> None:
        self._patterns = patterns
        self._automaton: object | None = None
        try:
            import ahocorasick
        except ImportError:  # pragma: no cover - an optional dependency (the `ml` extra)
            return
        automaton = ahocorasick.Automaton()
        for pattern, found in patterns.items():
            automaton.add_word(pattern, (len(pattern), found))
        if patterns:
            automaton.make_automaton()
        self._automaton = automaton

    def find(self, text: str) -> Iterable[tuple[int, int, _Found]]:
        """(start, end, what was found) of every occurrence of every pattern in `text`."""
        if not self._patterns:
            return
        if self._automaton is not None:
            for last, (length, found) in self._automaton.iter(text):  # type: ignore[attr-defined]
                yield last + 1 - length, last + 1, found
            return
        for pattern, found in self._patterns.items():  # pragma: no cover
            start = text.find(pattern)
            while start != -1:
                yield start, start + len(pattern), found
                start = text.find(pattern, start + 1)


def _elided_prefix(text: str, start: int) -> bool:
    """Whether the word before `start` is the ل (with و or ف) that elides an article's alef."""
    word_start = start
    while word_start > 0 and _is_word_char(text[word_start - 1]):
        word_start -= 1
    return _LAM_PREFIX.fullmatch(fold(text[word_start:start])) is not None


class LeakChecker:
    """`leak_check` for many texts against one set of originals: the originals are folded
    and their automaton built once, then each call checks one rendered text.

        checker = LeakChecker(originals, [RegexRecognizer().recognize_one])
        for text, spans in rendered:
            leaks = checker(text, allowed=spans)
    """

    def __init__(
        self,
        originals: Iterable[str],
        recognizers: Sequence[Callable[[str], list[Span]]] = (),
        *,
        fold_accents: bool = True,
    ) -> None:
        as_written: dict[str, int] = {}
        elided: dict[str, int] = {}
        self._short: set[int] = set()
        for index, original in enumerate(originals):
            folded = fold(original, keep_marks=not fold_accents).strip(" ")
            if not folded:
                continue
            as_written.setdefault(folded, index)
            if sum(_is_word_char(char) for char in folded) < MIN_WORD_CHARS:
                self._short.add(as_written[folded])
            # "القاهرة" is also written "للقاهرة" after ل: the matcher finds it there, and so
            # must the check (`pseudonymizer.recognizers.known`).
            if (
                folded.startswith(ARABIC_ARTICLE)
                and len(folded) > 3
                and is_arabic_letter(folded[2])
            ):
                elided.setdefault(folded[1:], index)
        patterns: dict[str, _Found] = {
            key: (as_written.get(key), elided.get(key)) for key in as_written.keys() | elided.keys()
        }
        self.patterns = len(as_written)
        self._automaton = _Automaton(patterns) if patterns else None
        self._recognizers = list(recognizers)
        self._fold_accents = fold_accents

    def __call__(self, rendered_text: str, *, allowed: Sequence[Span] = ()) -> list[Leak]:
        fold_accents = self._fold_accents
        leaks: set[Leak] = set()
        if self._automaton is not None:
            folded_text, origin = _fold(rendered_text, fold_accents)
            origin.append(len(rendered_text))
            for folded_start, folded_end, (index, elided_index) in self._automaton.find(
                folded_text
            ):
                start = origin[folded_start]
                # The last folded character comes from origin[folded_end - 1]; take all of it.
                end = origin[folded_end - 1] + 1
                # What the folding dropped after the last letter (its marks, a zero-width
                # character) still belongs to the word, as the matcher's spans say.
                while end < len(rendered_text) and not fold(
                    rendered_text[end], keep_marks=not fold_accents
                ):
                    end += 1
                if index in self._short:
                    if _stands_alone(rendered_text, start, end):
                        leaks.add(Leak(start, end, original=index))
                elif index is not None and _is_boundary(rendered_text, start, end):
                    leaks.add(Leak(start, end, original=index))
                elif (
                    elided_index is not None
                    and _ends_a_word(rendered_text, end)
                    and _elided_prefix(rendered_text, start)
                ):
                    leaks.add(Leak(start, end, original=elided_index))
        if self._recognizers:
            allowed_ranges = sorted((span.start, span.end) for span in allowed)
            allowed_starts = [start for start, _ in allowed_ranges]
            for recognizer in self._recognizers:
                for span in recognizer(rendered_text):
                    before = bisect.bisect_right(allowed_starts, span.start) - 1
                    if before >= 0 and allowed_ranges[before][1] >= span.end:
                        continue
                    leaks.add(Leak(span.start, span.end, label=span.label, source=span.source))
        return sorted(
            leaks,
            key=lambda leak: (
                leak.start,
                leak.end,
                -1 if leak.original is None else leak.original,
                leak.label or "",
            ),
        )


def leak_check(
    rendered_text: str,
    originals: Collection[str],
    recognizers: Sequence[Callable[[str], list[Span]]] = (),
    *,
    allowed: Sequence[Span] = (),
    fold_accents: bool = True,
) -> list[Leak]:
    """Every place where `rendered_text` still holds one of `originals`, plus every recognizer
    hit, sorted by offset.

    `originals` are the surfaces of every entity that is not kept. They are found folded as
    the known-entity matcher folds (`pseudonymizer.folding`: case, accents and marks, tatweel,
    Arabic letter variants, zero-width characters, fullwidth and other compatibility forms;
    accents and marks count when `fold_accents` is False), with any whitespace between their
    words, as whole words: a word character glued to an edge that is a word character hides
    it, except Arabic proclitics (و ف ب ك ل ال) in front, and the ل before which an article's
    alef is elided ("للقاهرة"). Whatever the matcher finds for an original, the check finds.
    Originals that fold to the same string are reported once, with the first one's index;
    empty ones are skipped. One with fewer than two letters or digits ("L") is found only
    where it stands alone, neither glued to a word nor joined to one by an apostrophe or a
    hyphen ("l'été", "J'ai"), and never after a proclitic.

    `recognizers` (the regex recognizer, say) are called on the text; a hit lying inside one of
    `allowed` (the rendered spans: realistic phone numbers and kept public URLs look like what
    a regex looks for) is not a leak. To check many texts against the same originals, build a
    `LeakChecker` once instead.
    """
    checker = LeakChecker(originals, recognizers, fold_accents=fold_accents)
    return checker(rendered_text, allowed=allowed)


__all__ = [
    "MIN_KAPPA_TOKENS",
    "Averaged",
    "Leak",
    "LeakChecker",
    "Report",
    "Scores",
    "TokenAgreement",
    "TokenMasking",
    "TokenTable",
    "cohen_kappa_tokens",
    "leak_check",
    "span_confusion",
    "span_prf",
    "token_agreement",
    "token_masking",
    "token_table",
    "tokenize",
]
