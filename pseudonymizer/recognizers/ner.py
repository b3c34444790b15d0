"""Named-entity recognition with a transformers token-classification model.

The model is any `*ForTokenClassification` checkpoint, named by a local path or a hub name,
and run through the real `transformers.pipeline("token-classification")` with whole-word
aggregation. Around the pipeline the engine adds only what it lacks:

- texts longer than the model's maximum length are cut into overlapping windows of tokens, on
  word boundaries, and the entities found in the windows are mapped back to text offsets: found
  twice in an overlap, an entity is kept once; cut by a window edge, it is taken from the window
  that holds it whole, or joined from its pieces;
- every window of every text of a call goes through the pipeline in batches;
- model labels (B-PER, PERSON, GPE, ...) are mapped onto canonical ones (`canonical_label`).

torch and transformers are imported inside the functions that need them: importing this
module stays cheap for regex-only runs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pseudonymizer import labels
from pseudonymizer.recognizers.base import RecognizerError
from pseudonymizer.spans import Span

# Amounts and counts: not identifiers by themselves, and numerous. Dropped unless asked for.
NUMERIC_LABELS: frozenset[str] = frozenset({"MONEY", "QUANTITY", "CARDINAL", "ORDINAL", "PERCENT"})
# References to statutes and articles ("Article 34 of the Convention"): public text, never an
# identifier, and the largest source of noise on legal documents.
NOT_IDENTIFYING: frozenset[str] = frozenset({"LAW"})
# Ranks and shares ("first", "40%"): what every text is full of, and nobody's identifier.
# Even the `recall` profile drops them (counts it keeps, sifted: "four children" can single
# a family out; see `recognizers.sifting`).
COUNTS: frozenset[str] = frozenset({"ORDINAL", "PERCENT"})
DROPPED_BY_DEFAULT: frozenset[str] = NUMERIC_LABELS | NOT_IDENTIFYING
_PREFIXES = ("B-", "I-", "E-", "S-", "L-", "U-", "B_", "I_")

DOWNLOADS_VARIABLE = "CLOAK_ALLOW_DOWNLOADS"
SOURCE = "ner"

# The position embeddings of RoBERTa-like models start after the padding index.
_POSITION_OFFSET_MODELS = frozenset({"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert"})
# Tokens kept free in each window: re-tokenizing a window alone may add a prefix token.
_WINDOW_MARGIN = 2


def canonical_label(label: str) -> str:
    """The canonical label (PER, LOC, ORG, MISC, DATE) for a model's label, else upper-cased.

    The synonyms live in `pseudonymizer.labels`; a model label it does not know (CARDINAL,
    a custom tag) passes through so that `drop_labels` and the schema mapping can see it.
    """
    name = label.upper()
    if name.startswith(_PREFIXES):
        name = name[2:]
    return labels.canonical_label(name) or name


def downloads_allowed() -> bool:
    """Whether models may be fetched from a hub (`CLOAK_ALLOW_DOWNLOADS=1`); off by default."""
    return os.environ.get(DOWNLOADS_VARIABLE, "") == "1"


def resolve_device(device: str) -> str:
    """'cuda' or 'cpu' for "auto" | "cpu" | "cuda"; "auto" takes cuda when torch sees a GPU."""
    if device not in {"auto", "cpu", "cuda"}:
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if device != "auto":
        return device
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


_PIPELINES: dict[tuple[str, str], Any] = {}
_PIPELINES_LOCK = threading.Lock()


def load_pipeline(model: str, device: str = "auto") -> Any:
    """The token-classification pipeline of `model` on `device`, loaded once per process.

    Loads from local files only unless `CLOAK_ALLOW_DOWNLOADS=1`. Raises `RecognizerError`
    naming the model when it is missing or cannot be loaded.
    """
    resolved = resolve_device(device)
    key = (model, resolved)
    with _PIPELINES_LOCK:
        if key not in _PIPELINES:
            _PIPELINES[key] = _build_pipeline(model, resolved)
        return _PIPELINES[key]


def _build_pipeline(model: str, device: str) -> Any:
    try:
        import torch
        from transformers import AutoModelForTokenClassification, AutoTokenizer, pipeline
    except ImportError as error:
        raise RecognizerError(
            f"NER model {model!r} cannot be loaded: {error.name} is not installed "
            "(install the `ml` extra)"
        ) from error
    local_only = not downloads_allowed()
    try:
        tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=local_only)
        network = AutoModelForTokenClassification.from_pretrained(
            model,
            local_files_only=local_only,
            dtype=torch.float16 if device == "cuda" else torch.float32,
        )
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError("its tokenizer is not a fast (tokenizers) one, which windowing needs")
        # transformers' `pipeline(local_files_only=...)` hands the flag on to the pipeline
        # class, which refuses it: load the parts here and give the pipeline objects.
        return pipeline("token-classification", model=network, tokenizer=tokenizer, device=device)
    except Exception as error:  # any failure to load is the same thing to the caller
        hint = "" if not local_only else f" (local files only; {DOWNLOADS_VARIABLE}=1 allows a hub)"
        raise RecognizerError(
            f"NER model {model!r} cannot be loaded{hint}: {type(error).__name__}: {error}"
        ) from error


def model_max_length(pipe: Any) -> int:
    """How many tokens, special tokens included, the pipeline's model takes at most."""
    declared = int(getattr(pipe.tokenizer, "model_max_length", 0) or 0)
    config = pipe.model.config
    positions = int(getattr(config, "max_position_embeddings", 0) or 512)
    if getattr(config, "model_type", "") in _POSITION_OFFSET_MODELS:
        positions -= 2
    # Tokenizers saved without a limit report 1e30.
    return declared if 0 < declared <= positions else positions


@dataclass(frozen=True, slots=True)
class _Window:
    text: int  # index of the text in the call
    start: int  # code point offsets of the window in its text
    end: int
    cut_left: bool  # the window starts inside its text, not at its beginning
    cut_right: bool


@dataclass(frozen=True, slots=True)
class _Candidate:
    start: int
    end: int
    label: str
    score: float
    # Touches a window edge that cuts the text, so it may be a piece of a longer entity.
    cut_before: bool
    cut_after: bool

    @property
    def at_edge(self) -> bool:
        return self.cut_before or self.cut_after


class TransformersNerRecognizer:
    """NER with a transformers token-classification model (path or hub name).

    `device` is "auto" (cuda when available, in half precision there), "cpu" or "cuda".
    `batch_size` windows go through the model at once, across documents. Texts longer than the
    model's maximum length (`max_length` tokens, by default the model's own) are cut into
    windows overlapping by `stride` tokens (a quarter of a window by default).
    `aggregation_strategy` is the pipeline's: "first", "max" or "average" give whole words;
    "simple" may split a word. Labels in `drop_labels` (after `canonical_label`) are dropped.
    The model loads on first use, once per process; `load()` loads it now. A missing or
    unloadable model raises `RecognizerError`.
    """

    name = "ner"

    def __init__(
        self,
        model: str,
        *,
        device: str = "auto",
        batch_size: int = 16,
        stride: int | None = None,
        max_length: int | None = None,
        aggregation_strategy: str = "first",
        drop_labels: frozenset[str] = DROPPED_BY_DEFAULT,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if aggregation_strategy not in {"simple", "first", "max", "average"}:
            raise ValueError(f"unknown aggregation strategy {aggregation_strategy!r}")
        resolve_device(device)  # refuses a bad name now rather than on first use
        self.model = model
        self.device = device
        self.batch_size = batch_size
        self.aggregation_strategy = aggregation_strategy
        self.drop_labels = drop_labels
        self._stride = stride
        self._max_length = max_length
        self._pipe: Any = None
        self._counter: Any = None
        self._window_tokens = 0
        self._labels: dict[str, str | None] = {}

    def load(self) -> None:
        """Load the model now (it loads on first use otherwise); raises `RecognizerError`."""
        if self._pipe is not None:
            return
        pipe = load_pipeline(self.model, self.device)
        model_limit = model_max_length(pipe)
        # The pipeline truncates at its tokenizer's limit: set it to the model's own (shared by
        # every recognizer of this model), so that no window reaches position embeddings the
        # model lacks. `max_length` only makes this recognizer's windows smaller.
        pipe.tokenizer.model_max_length = model_limit
        limit = model_limit if self._max_length is None else min(model_limit, self._max_length)
        window = limit - pipe.tokenizer.num_special_tokens_to_add(pair=False) - _WINDOW_MARGIN
        if window < 8:
            raise RecognizerError(
                f"NER model {self.model!r}: a window of {window} tokens is too small"
            )
        stride = window // 4 if self._stride is None else self._stride
        if not 0 <= stride <= window // 2:
            raise ValueError(f"stride must be between 0 and {window // 2} tokens for this model")
        # A copy of the Rust tokenizer to count and cut with: the pipeline's own carries the
        # truncation and padding state of its last call.
        from tokenizers import Tokenizer

        counter = Tokenizer.from_str(pipe.tokenizer.backend_tokenizer.to_str())
        counter.no_truncation()
        counter.no_padding()
        self._counter = counter
        self._window_tokens = window
        self._stride = stride
        self._pipe = pipe

    @property
    def window_tokens(self) -> int:
        """Tokens of text in one window (loads the model)."""
        self.load()
        return self._window_tokens

    @property
    def stride(self) -> int:
        """Tokens two neighbouring windows share (loads the model)."""
        self.load()
        return int(self._stride or 0)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens, special ones aside, the model's tokenizer makes of each text."""
        self.load()
        encodings = self._counter.encode_batch_fast(list(texts), add_special_tokens=False)
        return [len(encoding) for encoding in encodings]

    def count_windows(self, texts: Sequence[str]) -> int:
        """How many windows `recognize(texts)` sends through the model."""
        self.load()
        return len(self._windows(texts))

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        """Entities in each text as `Span`s (source "ner", canonical labels, model scores)."""
        self.load()
        windows = self._windows(texts)
        if not windows:
            return [[] for _ in texts]
        # Longest first, so that a batch pads little; the order is restored below.
        order = sorted(range(len(windows)), key=lambda i: windows[i].end - windows[i].start)
        order.reverse()
        pieces = [texts[windows[i].text][windows[i].start : windows[i].end] for i in order]
        results = self._pipe(
            pieces, batch_size=self.batch_size, aggregation_strategy=self.aggregation_strategy
        )
        found: list[list[_Candidate]] = [[] for _ in texts]
        windowed = [False] * len(texts)
        for index, entities in zip(order, results, strict=True):
            window = windows[index]
            if window.cut_left or window.cut_right:
                windowed[window.text] = True
            self._collect(texts[window.text], window, entities, found[window.text])
        return [
            _to_spans(_merge(texts[index], candidates) if windowed[index] else candidates)
            for index, candidates in enumerate(found)
        ]

    def _label(self, model_label: str) -> str | None:
        try:
            return self._labels[model_label]
        except KeyError:
            label = canonical_label(model_label)
            mapped = None if label in self.drop_labels or label == "O" else label
            self._labels[model_label] = mapped
            return mapped

    def _collect(
        self, text: str, window: _Window, entities: list[dict[str, Any]], into: list[_Candidate]
    ) -> None:
        for entity in entities:
            label = self._label(entity["entity_group"])
            if label is None:
                continue
            start = window.start + int(entity["start"])
            end = window.start + int(entity["end"])
            # Sentencepiece offsets may hold the space before a word.
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if start == end:
                continue
            cut_before = window.cut_left and _adjoins(text[window.start : start])
            cut_after = window.cut_right and _adjoins(text[end : window.end])
            score = float(entity["score"])
            into.append(_Candidate(start, end, label, score, cut_before, cut_after))

    def _windows(self, texts: Sequence[str]) -> list[_Window]:
        """One window per text that fits the model, overlapping windows for the others."""
        budget = self._window_tokens
        lengths = self.token_counts(texts)
        windows: list[_Window] = []
        for index, (text, length) in enumerate(zip(texts, lengths, strict=True)):
            if not text.strip():
                continue
            if length <= budget:
                windows.append(_Window(index, 0, len(text), False, False))
            else:
                encoding = self._counter.encode(text, add_special_tokens=False)
                windows.extend(self._split(index, len(text), encoding.offsets, encoding.word_ids))
        return windows

    def _split(
        self,
        index: int,
        text_length: int,
        offsets: list[tuple[int, int]],
        word_ids: list[int | None],
    ) -> list[_Window]:
        """Windows of at most `budget` tokens, cut between words, overlapping by `stride`."""
        budget, stride = self._window_tokens, int(self._stride or 0)
        count = len(offsets)

        def word_start(token: int, floor: int) -> int:
            # The first token of the word holding `token`, unless that falls to `floor` or below.
            moved = token
            while (
                moved > floor
                and word_ids[moved] is not None
                and word_ids[moved] == word_ids[moved - 1]
            ):
                moved -= 1
            return moved if moved > floor else token

        windows: list[_Window] = []
        first = 0
        while True:
            last = min(first + budget, count)  # exclusive
            if last < count:
                last = word_start(last, first + budget // 2)
            start = offsets[first][0] if first else 0
            end = offsets[last - 1][1] if last < count else text_length
            windows.append(_Window(index, start, end, first > 0, last < count))
            if last >= count:
                return windows
            following = word_start(max(last - stride, first + 1), first)
            first = following if following > first else last


def _merge(text: str, candidates: list[_Candidate]) -> list[_Candidate]:
    """One entity per referent from the candidates of a text's overlapping windows."""
    candidates.sort(key=lambda candidate: (candidate.start, -candidate.end))
    merged: list[_Candidate] = []
    cluster: list[_Candidate] = []
    tail = candidates[0] if candidates else None  # the candidate of the cluster ending last
    for candidate in candidates:
        if cluster and tail is not None:
            if candidate.start >= tail.end and not _continues(text, tail, candidate):
                merged.extend(_resolve(text, cluster))
                cluster = []
                tail = candidate
            elif candidate.end > tail.end:
                tail = candidate
        cluster.append(candidate)
    if cluster:
        merged.extend(_resolve(text, cluster))
    return merged


def _continues(text: str, piece: _Candidate, following: _Candidate) -> bool:
    """Whether `following` goes on with `piece` across a window edge: one entity, cut."""
    if following.label != piece.label or not (piece.cut_after and following.cut_before):
        return False
    return following.start <= piece.end or _adjoins(text[piece.end : following.start])


def _adjoins(gap: str) -> bool:
    """Whether text separated by `gap` may be one entity: blank, or in the same word ("-")."""
    return not gap.strip() or not any(char.isspace() for char in gap)


def _overlaps_any(candidate: _Candidate, chosen: list[_Candidate]) -> bool:
    return any(candidate.start < other.end and other.start < candidate.end for other in chosen)


def _by_size(candidate: _Candidate) -> tuple[int, float]:
    return (candidate.start - candidate.end, -candidate.score)


def _resolve(text: str, cluster: list[_Candidate]) -> list[_Candidate]:
    """Overlapping candidates: whole ones first (longer, then surer), then joined pieces."""
    if len(cluster) == 1:
        return cluster
    chosen: list[_Candidate] = []
    for candidate in sorted((c for c in cluster if not c.at_edge), key=_by_size):
        if not _overlaps_any(candidate, chosen):
            chosen.append(candidate)
    # Pieces of one entity cut by window edges, found in overlapping or adjacent windows.
    joined: list[_Candidate] = []
    for piece in cluster:  # sorted by start
        if not piece.at_edge or _overlaps_any(piece, chosen):
            continue
        last = joined[-1] if joined else None
        if last is not None and (
            _continues(text, last, piece) or (last.label == piece.label and piece.start < last.end)
        ):
            joined[-1] = _Candidate(
                last.start,
                max(last.end, piece.end),
                last.label,
                max(last.score, piece.score),
                last.cut_before,
                piece.cut_after if piece.end >= last.end else last.cut_after,
            )
        else:
            joined.append(piece)
    for piece in sorted(joined, key=_by_size):
        if not _overlaps_any(piece, chosen):
            chosen.append(piece)
    return sorted(chosen, key=lambda candidate: candidate.start)


def _to_spans(candidates: list[_Candidate]) -> list[Span]:
    return [
        Span(candidate.start, candidate.end, candidate.label, candidate.score, SOURCE)
        for candidate in candidates
    ]
