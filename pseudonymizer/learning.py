"""A recommender that learns from a project's decisions: a small NER model trained offline.

    report = train(examples, "ar", "models/ar")      # spaCy's NER on a blank pipeline, on CPU
    model = load("models/ar")
    model("قابلت أحمد بن سلمان في الرياض")           # [Span(..., source="learned"), ...]

An `Example` is a text with the spans people decided (accepted, added or corrected: the
positives) and the proposals they rejected (known negatives). Every other token counts as
outside any entity, as spaCy's NER learns from fully annotated documents; a rejected span is
therefore plain "O", set explicitly.

spaCy cuts a text into tokens and an entity must start and end on token edges. The Arabic
pipeline cuts finer than spaCy's own tokenizer: the one-letter proclitics و ف ب ل ك and the
article ال come off a word of three letters or more ("وبالرياض" → و ب ال رياض), so that a span
on "الرياض" or "رياض" inside it aligns. A span that still does not align (it starts or ends
inside a token) is counted, in `TrainReport.unaligned`, and its tokens are left unannotated
(neither entity nor "O"): it teaches nothing rather than something wrong. Spans whose edges
are whitespace are trimmed; of overlapping positives the longer is kept and the other counted
in `TrainReport.overlapping`.

A trained model is a folder: spaCy's own (`nlp.to_disk`) and `cloak-learned.json` (language,
labels, format version, examples, held-out scores). It is written beside its destination and
renamed onto it only when complete. Or it is bytes (`train_bytes`, `LearnedRecognizer.to_bytes`,
`loads`): the same model and description in one value that never touches a disk, for a caller
that keeps it encrypted (the model's vocabulary holds the words it learned from, originals
among them; the app seals it with the keys' secret). Offsets are code points (spaCy indexes
Python strings). spaCy is imported only when a model trains or loads.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import struct
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pseudonymizer.evaluation import ANY_LABEL, span_prf
from pseudonymizer.spans import Span
from pseudonymizer.vocabulary import Source

__all__ = [
    "FORMAT_VERSION",
    "META_FILE",
    "Example",
    "LearnedRecognizer",
    "LearningError",
    "TrainReport",
    "load",
    "loads",
    "read_examples",
    "train",
    "train_bytes",
]

META_FILE = "cloak-learned.json"
FORMAT_VERSION = 1
# A model as bytes: this tag, the length of a JSON header (4 bytes, big-endian), the header
# ({"meta": …, "config": spaCy's config}), then spaCy's own bytes of the pipeline.
BYTES_TAG = b"cloak-learned-model\x00"
DROPOUT = 0.2
BATCH_START, BATCH_STOP, BATCH_GROWTH = 4.0, 32.0, 1.001
# Statuses of a span in a decided-examples file: without one, a span is a decided positive.
ACCEPTED, REJECTED = "accepted", "rejected"
STATUSES = (ACCEPTED, REJECTED)

# Arabic: a one-letter proclitic (and, so, with, for, like) or the article, taken off the front
# of a word when at least three letters remain. spaCy applies the prefix search again to what
# is left, so "وبالرياض" gives و, ب, ال, رياض.
_ARABIC_PREFIX = re.compile(
    r"^(?:[وفبلك]|ال)(?=[\u0621-\u064a\u0640\u064b-\u065f\u0670-\u06d3]{3})"
)


class LearningError(Exception):
    """A model cannot be trained or loaded (no examples, a missing or foreign folder)."""


@dataclass(frozen=True)
class Example:
    """A text and its decisions: `spans` are the positives people decided (accepted, added or
    corrected), `rejected` the proposals they rejected. Offsets are code points.

    A `partial` example is a text nobody finished: only its spans are known (the occurrences
    of decided surfaces the key table proposes there, what a person accepted so far), and
    the rest of it teaches nothing, neither entity nor outside. It is always trained on,
    never held out: a score on it would count every name nobody marked yet as a miss."""

    text: str
    spans: list[Span]
    rejected: list[Span] = field(default_factory=list)
    partial: bool = False


@dataclass(frozen=True)
class TrainReport:
    """What a training run did, and how well the model does on the examples held out.

    `scores` maps "*" (all labels, micro) and each label to strict span precision, recall and
    F1 on the held-out examples (`pseudonymizer.evaluation.span_prf`); {} when none is held
    out. `held_out_indexes` are those examples' positions in the examples given, in order:
    scoring the model on them again (`LearnedRecognizer.score`) gives `scores`. `spans` is
    the number of positive spans trained on; `unaligned` those that do not fall on token
    edges and `overlapping` those that overlap a longer positive (both left out).
    """

    examples: int
    labels: list[str]
    seconds: float
    held_out: int
    scores: dict[str, dict[str, float]]
    spans: int = 0
    unaligned: int = 0
    overlapping: int = 0
    held_out_indexes: list[int] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report in a few lines of plain text."""
        result = [
            f"examples: {self.examples} ({self.held_out} held out)",
            f"labels: {', '.join(self.labels) or '-'}",
            f"spans: {self.spans} trained on, {self.unaligned} not on token edges, "
            f"{self.overlapping} overlapping a longer one (left out)",
            f"seconds: {self.seconds:.1f}",
        ]
        if self.scores:
            result.append(f"{'held out':<10} {'P':>6} {'R':>6} {'F1':>6}")
            for label, scores in self.scores.items():
                result.append(
                    f"{label:<10} {scores['precision']:6.3f} {scores['recall']:6.3f}"
                    f" {scores['f1']:6.3f}"
                )
        return result


# --- Reading decided examples ----------------------------------------------------------------


def read_examples(path: str | Path, language: str | None = None) -> list[Example]:
    """The examples of a decided-examples file: Cloak JSONL whose spans may carry a `status`
    ("accepted", or "rejected" for a negative; no status is a decided positive). A document
    with `"partial": true` is a partial example (see `Example`).

    Documents whose `lang` differs from `language` (when given) are skipped. Raises
    `pseudonymizer.formats.FormatError` (file and line) for a bad line or span.
    """
    from pseudonymizer.formats._common import Context, iter_json_lines, language_from, make_span
    from pseudonymizer.formats.jsonl import record_text

    file = Path(path)
    ctx = Context(name=file.name, stem=file.stem)
    examples: list[Example] = []
    with file.open("rb") as stream:
        for line, record in iter_json_lines(stream, ctx):
            text = record_text(record, ctx, line)
            own = language_from(record, ctx, line)
            if language and own and own.lower() != language.lower():
                continue
            items = record.get("spans") or []
            if not isinstance(items, list):
                raise ctx.error(line, '"spans" must be a list')
            positives: list[Span] = []
            negatives: list[Span] = []
            for item in items:
                if not isinstance(item, dict):
                    raise ctx.error(line, f"a span must be an object, not {item!r}")
                status = item.get("status") or ACCEPTED
                if status not in STATUSES:
                    raise ctx.error(
                        line, f"span status must be one of {', '.join(STATUSES)}, not {status!r}"
                    )
                span = make_span(
                    ctx, line, text, item.get("start"), item.get("end"), item.get("label")
                )
                (negatives if status == REJECTED else positives).append(span)
            partial = record.get("partial", False)
            if not isinstance(partial, bool):
                raise ctx.error(line, f'"partial" must be true or false, not {partial!r}')
            examples.append(
                Example(text=text, spans=positives, rejected=negatives, partial=partial)
            )
    return examples


# --- Tokens and alignment --------------------------------------------------------------------


def _import_spacy() -> Any:
    try:
        import spacy
    except ImportError as error:  # pragma: no cover - spaCy is a dependency
        raise LearningError("spaCy is not installed: it is what learns") from error
    return spacy


def _blank(language: str) -> Any:
    spacy = _import_spacy()
    try:
        nlp = spacy.blank(language)
    except (ImportError, KeyError, ValueError) as error:
        raise LearningError(f"spaCy has no language {language!r}: {error}") from error
    if nlp.lang == "ar":
        nlp.tokenizer.prefix_search = _combined_prefix(nlp.tokenizer.prefix_search)
    return nlp


def _combined_prefix(original: Any) -> Any:
    """spaCy's prefix search for the language, with the Arabic proclitics in front of it.
    spaCy stores the pattern (a string) with the model, so it must be one regex."""
    pattern = _ARABIC_PREFIX.pattern
    if original is not None:
        pattern = f"{pattern}|{original.__self__.pattern}"
    return re.compile(pattern).search


def _trimmed(text: str, span: Span) -> tuple[int, int] | None:
    start, end = span.start, min(span.end, len(text))
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


@dataclass
class _Counts:
    spans: int = 0
    unaligned: int = 0
    overlapping: int = 0


def _annotated(nlp: Any, example: Example, labels: set[str] | None, counts: _Counts) -> Any:
    """The example as a spaCy `Doc` with its entities set: decided spans, the rest "O" (of a
    partial example: its rejected spans "O", the rest unannotated); unaligned spans and spans
    of a label not learned left unannotated."""
    doc = nlp.make_doc(example.text)
    entities: list[Any] = []
    missing: list[Any] = []
    # Longer spans first, so that of two overlapping positives the longer is kept.
    for span in sorted(example.spans, key=lambda s: (s.start - s.end, s.start, s.label)):
        edges = _trimmed(example.text, span)
        if edges is None:
            continue
        start, end = edges
        strict = doc.char_span(start, end, label=span.label)
        if strict is None or (labels is not None and span.label not in labels):
            if strict is None:
                counts.unaligned += 1
            loose = doc.char_span(start, end, alignment_mode="expand")
            if loose is not None:
                missing.append(loose)
            continue
        if any(strict.start < other.end and other.start < strict.end for other in entities):
            counts.overlapping += 1
            continue
        entities.append(strict)
        counts.spans += 1
    missing = [
        span
        for span in missing
        if not any(span.start < e.end and e.start < span.end for e in entities)
    ]
    # Tokens of two missing spans that overlap: join them into one.
    missing = _union(doc, missing)
    if not example.partial:
        doc.set_ents(entities, missing=missing, default="outside")
        return doc
    outside = [
        span
        for rejected in example.rejected
        if (edges := _trimmed(example.text, rejected)) is not None
        and (span := doc.char_span(*edges)) is not None
        and not any(span.start < e.end and e.start < span.end for e in entities)
    ]
    doc.set_ents(entities, outside=_union(doc, outside), default="missing")
    return doc


def _union(doc: Any, spans: list[Any]) -> list[Any]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted((span.start, span.end) for span in spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return [doc[start:end] for start, end in merged]


# --- Training --------------------------------------------------------------------------------


def _split(count: int, share: float, seed: int) -> tuple[list[int], list[int]]:
    """Indexes to train on and to hold out: `share` of `count`, chosen with `seed`."""
    if not 0.0 <= share < 1.0:
        raise LearningError(f"the held-out share must be at least 0 and below 1, not {share}")
    held = min(max(round(count * share), 1), count - 1) if share > 0 and count >= 2 else 0
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return sorted(order[held:]), sorted(order[:held])


def train(
    examples: Sequence[Example],
    language: str,
    out: str | Path,
    *,
    iterations: int = 20,
    seed: int = 0,
    held_out_share: float = 0.0,
    labels: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TrainReport:
    """Train spaCy's NER on `examples` (see `train_bytes`) and save the model to the folder
    `out`. `out` is replaced only when the new model is complete; a folder there that is not
    a learned model is refused."""
    destination = Path(out)
    _check_destination(destination)
    nlp, result, meta = _fit(
        examples, language, iterations=iterations, seed=seed, held_out_share=held_out_share,
        labels=labels, progress=progress,
    )  # fmt: skip
    with _replacing(destination) as folder:
        nlp.to_disk(folder)
        (folder / META_FILE).write_text(
            json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
    return result


def train_bytes(
    examples: Sequence[Example],
    language: str,
    *,
    iterations: int = 20,
    seed: int = 0,
    held_out_share: float = 0.0,
    labels: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[bytes, TrainReport]:
    """Train spaCy's NER on `examples`, on the CPU, offline: the model as bytes (`loads`
    loads them), written nowhere, and what training measured.

    `progress(done, iterations)` is called after each pass over the examples (a worker's
    heartbeat: training takes minutes on a large project).

    `held_out_share` of the examples (chosen with `seed`) are left out of training and score
    the model (`TrainReport.scores`; which ones: `TrainReport.held_out_indexes`). `labels`
    restricts what is learned (spans of any other label are left unannotated); by default
    every label of the positives. The same examples, seed and settings give the same model.
    Raises `LearningError` when there is nothing to learn.
    """
    nlp, result, meta = _fit(
        examples, language, iterations=iterations, seed=seed, held_out_share=held_out_share,
        labels=labels, progress=progress,
    )  # fmt: skip
    return _dumps(nlp, meta), result


def _fit(
    examples: Sequence[Example],
    language: str,
    *,
    iterations: int,
    seed: int,
    held_out_share: float,
    labels: Sequence[str] | None,
    progress: Callable[[int, int], None] | None,
) -> tuple[Any, TrainReport, dict[str, Any]]:
    """The trained pipeline, its report and the description saved with it."""
    if iterations < 1:
        raise LearningError("iterations must be at least 1")
    spacy = _import_spacy()
    from spacy.training import Example as SpacyExample
    from spacy.util import compounding, fix_random_seed, minibatch

    started = time.perf_counter()
    # Partial examples are always trained on: only finished ones are held out.
    complete = [index for index, example in enumerate(examples) if not example.partial]
    trained, held = _split(len(complete), held_out_share, seed)
    held_at = [complete[index] for index in held]
    train_at = sorted(
        [complete[index] for index in trained]
        + [index for index, example in enumerate(examples) if example.partial]
    )
    chosen = set(labels) if labels is not None else None
    learned = sorted(
        chosen
        if chosen is not None
        else {span.label for index in train_at for span in examples[index].spans}
    )
    if not learned:
        raise LearningError("no decided spans to learn from")

    fix_random_seed(seed)
    nlp = _blank(language)
    ner = nlp.add_pipe("ner")
    for label in learned:
        ner.add_label(label)
    counts = _Counts()
    training = [
        SpacyExample(
            nlp.make_doc(examples[index].text),
            _annotated(nlp, examples[index], set(learned), counts),
        )
        for index in train_at
    ]
    if not counts.spans:
        raise LearningError("none of the decided spans falls on token edges: nothing to learn")
    nlp.initialize(lambda: training)
    shuffler = random.Random(seed)
    for done in range(1, iterations + 1):
        shuffler.shuffle(training)
        losses: dict[str, float] = {}
        for batch in minibatch(training, size=compounding(BATCH_START, BATCH_STOP, BATCH_GROWTH)):
            nlp.update(batch, drop=DROPOUT, losses=losses)
        if progress is not None:
            progress(done, iterations)

    scores = _measured(nlp, [examples[index] for index in held_at]) if held_at else {}
    seconds = time.perf_counter() - started
    result = TrainReport(
        examples=len(examples),
        labels=learned,
        seconds=round(seconds, 3),
        held_out=len(held_at),
        scores=scores,
        spans=counts.spans,
        unaligned=counts.unaligned,
        overlapping=counts.overlapping,
        held_out_indexes=held_at,
    )
    meta = {
        "format": FORMAT_VERSION,
        "language": nlp.lang,
        "labels": learned,
        "examples": result.examples,
        "held_out": result.held_out,
        "held_out_indexes": held_at,
        "scores": scores,
        "spans": result.spans,
        "unaligned": result.unaligned,
        "overlapping": result.overlapping,
        "seconds": result.seconds,
        "iterations": iterations,
        "seed": seed,
        "spacy": spacy.__version__,
    }
    return nlp, result, meta


def _measured(nlp: Any, examples: Sequence[Example]) -> dict[str, dict[str, float]]:
    """Strict span precision, recall and F1 of the pipeline's entities against the examples'
    positives: "*" (all labels, micro), then each label."""
    predicted = [_entities(doc) for doc in nlp.pipe(example.text for example in examples)]
    report = span_prf([example.spans for example in examples], predicted, mode="strict")
    scores = {ANY_LABEL: _scores(report.micro)}
    for label, label_scores in report.per_label.items():
        scores[label] = _scores(label_scores)
    return scores


def _dumps(nlp: Any, meta: dict[str, Any]) -> bytes:
    header = json.dumps({"meta": meta, "config": nlp.config.to_str()}, ensure_ascii=False).encode(
        "utf-8"
    )
    return BYTES_TAG + struct.pack(">I", len(header)) + header + nlp.to_bytes()


def _check_meta(meta: Any, where: str) -> dict[str, Any]:
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise LearningError(
            f"{where}: a learned model of format {found!r}; this Cloak reads {FORMAT_VERSION}"
        )
    return meta


def _scores(scores: Any) -> dict[str, float]:
    return {
        "precision": round(scores.precision, 4),
        "recall": round(scores.recall, 4),
        "f1": round(scores.f1, 4),
    }


def _check_destination(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise LearningError(f"{path}: exists and is not a folder")
    if path.is_dir() and any(path.iterdir()) and not (path / META_FILE).is_file():
        raise LearningError(f"{path}: a folder that is not a learned model; not replacing it")


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[Path]:
    """A new folder beside `path`, renamed onto it when the block succeeds (else removed)."""
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent))
    try:
        yield folder
        _check_destination(path)
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=parent))
            os.replace(path, old / "model")
            os.replace(folder, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(folder, path)
    finally:
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)


# --- Using a model ---------------------------------------------------------------------------


def _entities(doc: Any) -> list[Span]:
    text = doc.text
    spans: list[Span] = []
    for entity in doc.ents:
        start, end = entity.start_char, entity.end_char
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            spans.append(Span(start, end, entity.label_, None, Source.LEARNED.value))
    return spans


class LearnedRecognizer:
    """A trained model, loaded: finds spans (source "learned") in texts of its language.

    Usable alone (`model(text)`) and as a recognizer of a detection run (`name`,
    `recognize(texts, language)`). spaCy gives no confidence: spans carry no score.
    """

    name = Source.LEARNED.value

    def __init__(self, path: str | Path) -> None:
        self.path: Path | None = Path(path)
        meta = _read_meta(self.path)
        spacy = _import_spacy()
        try:
            nlp = spacy.load(self.path)
        except (OSError, ValueError, KeyError) as error:
            raise LearningError(f"{self.path}: the model cannot be loaded: {error}") from error
        self._set(nlp, meta)

    def _set(self, nlp: Any, meta: dict[str, Any]) -> None:
        self._nlp = nlp
        self.language: str = str(meta.get("language") or nlp.lang)
        self.labels: list[str] = [str(label) for label in meta.get("labels") or []]
        self.meta: dict[str, Any] = meta

    @classmethod
    def from_bytes(cls, data: bytes) -> LearnedRecognizer:
        """The model `to_bytes` or `train_bytes` gave, loaded in memory (no file is read or
        written). Raises `LearningError` for bytes that are not one."""
        if not data.startswith(BYTES_TAG) or len(data) < len(BYTES_TAG) + 4:
            raise LearningError("not a learned model's bytes")
        at = len(BYTES_TAG)
        (size,) = struct.unpack(">I", data[at : at + 4])
        try:
            header = json.loads(data[at + 4 : at + 4 + size].decode("utf-8"))
            meta = _check_meta(header.get("meta"), "bytes")
            _import_spacy()  # a clear error where spaCy is missing
            from spacy.util import get_lang_class, load_config_from_str

            config = load_config_from_str(header["config"])
            nlp = get_lang_class(config["nlp"]["lang"]).from_config(config)
            nlp.from_bytes(data[at + 4 + size :])
        except LearningError:
            raise
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
            raise LearningError(f"the model cannot be loaded: {type(error).__name__}") from error
        model = cls.__new__(cls)
        model.path = None
        model._set(nlp, meta)
        return model

    def to_bytes(self) -> bytes:
        """The model and its description as bytes (`from_bytes`, `loads`)."""
        return _dumps(self._nlp, self.meta)

    def __call__(self, text: str) -> list[Span]:
        """The spans the model finds in `text`."""
        return self.recognize([text], self.language)[0]

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        """One list of spans per text, in the order given (`language` is the model's own)."""
        self._fit_length(texts)
        return [_entities(doc) for doc in self._nlp.pipe(texts)]

    def _fit_length(self, texts: Iterable[str]) -> None:
        """Let the pipeline take the longest of `texts` (spaCy refuses a longer one)."""
        longest = max((len(text) for text in texts), default=0)
        if longest >= self._nlp.max_length:
            self._nlp.max_length = longest + 1

    def score(self, examples: Sequence[Example]) -> dict[str, dict[str, float]]:
        """The model's strict precision, recall and F1 on `examples`, as training measured
        them on the examples it held out (`TrainReport.scores`): on those same examples this
        gives the scores training recorded, which is how a model's scores are checked."""
        if not examples:
            return {}
        self._fit_length(example.text for example in examples)
        return _measured(self._nlp, examples)

    def __repr__(self) -> str:
        where = str(self.path) if self.path is not None else "bytes"
        return f"LearnedRecognizer({where!r}, language={self.language!r})"


def _read_meta(path: Path) -> dict[str, Any]:
    if not path.is_dir():
        raise LearningError(f"{path}: no such model folder")
    meta_path = path / META_FILE
    if not meta_path.is_file():
        raise LearningError(f"{path}: not a learned model (no {META_FILE})")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise LearningError(f"{meta_path}: unreadable: {error}") from error
    return _check_meta(meta, str(path))


def load(path: str | Path) -> LearnedRecognizer:
    """The learned model in the folder `path`; raises `LearningError` for a missing folder or
    one that is not a learned model."""
    return LearnedRecognizer(path)


def loads(data: bytes) -> LearnedRecognizer:
    """The learned model of `data` (`train_bytes`, `LearnedRecognizer.to_bytes`), loaded in
    memory; raises `LearningError` for bytes that are not one."""
    return LearnedRecognizer.from_bytes(data)
