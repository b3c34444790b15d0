"""The commands of `python -m pseudonymizer`: detect, learn, pseudonymize and evaluate, and
the detector and key table they share. Each takes the parsed arguments and returns the exit
status; a failure to report is a `CliError`."""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pseudonymizer.cli.files import (
    CliError,
    batches,
    document_language,
    document_name,
    progress,
    read_inputs,
    warn,
    write_documents,
)
from pseudonymizer.detection import EVERY_LANGUAGE, Detector, NerSpecError
from pseudonymizer.detection_check import DetectionUnavailable, ReleaseDetection
from pseudonymizer.evaluation import span_prf, token_masking
from pseudonymizer.formats import ImportedDocument
from pseudonymizer.formats.writers import OutputDocument
from pseudonymizer.release import DecidedSpan, ReleaseDocument, ReleasePipeline, needs_replacement
from pseudonymizer.spans import Span
from pseudonymizer.strategies import Strategy
from pseudonymizer.vocabulary import Decision

if TYPE_CHECKING:
    from pseudonymizer.keyfile import KeyStore
    from pseudonymizer.learning import LearnedRecognizer

PASSPHRASE_ENV = "CLOAK_KEYS_PASSPHRASE"
SECRET_ENV = "CLOAK_PSEUDONYM_SECRET"


class _Detection:
    """The command's `Detector` over batches of documents of any language, and what it does
    with recognizer failures: stop the run (`fail_on_error`), else warn once per recognizer
    and language and go on without it."""

    def __init__(self, detector: Detector, *, fail_on_error: bool = False) -> None:
        self._detector = detector
        self._fail_on_error = fail_on_error
        self._reported: set[tuple[str, str]] = set()

    def __call__(self, documents: Sequence[ImportedDocument]) -> list[list[Span]]:
        """The spans found in each document, batched per language."""
        return self.with_ner(documents)[0]

    def with_ner(
        self, documents: Sequence[ImportedDocument]
    ) -> tuple[list[list[Span]], list[list[Span]]]:
        """The spans found in each document, and the NER model's own among them (for the
        release pipeline's check, which then does not run the model again)."""
        result: list[list[Span]] = [[] for _ in documents]
        ner: list[list[Span]] = [[] for _ in documents]
        groups: dict[str, list[int]] = {}
        for index, document in enumerate(documents):
            groups.setdefault(document_language(document), []).append(index)
        for language, indexes in groups.items():
            texts = [documents[index].text for index in indexes]
            try:
                model = self._detector.ner(texts, language)
                found = self._detector.detect(texts, language, ner_spans=model.spans)
            except NerSpecError as error:
                raise CliError(str(error), 2) from error
            for name, message in {**model.errors, **found.errors}.items():
                if self._fail_on_error:
                    raise CliError(
                        f"recognizer {name} failed for {language!r}: {message} "
                        "(--no-ner pseudonymizes without NER)"
                    )
                if (name, language) not in self._reported:
                    self._reported.add((name, language))
                    warn(
                        f"recognizer {name} failed for {language!r}, went on without it: {message}"
                    )
            for index, spans, own in zip(indexes, found.spans, model.spans, strict=True):
                result[index] = spans
                ner[index] = list(own)
        return result, ner


def _detector(args: argparse.Namespace, known: Iterable[tuple[str, str]]) -> Detector:
    # --ner-model names the model of every language; without it, the environment and the
    # defaults decide per language.
    models = None if args.ner_model is None else {EVERY_LANGUAGE: args.ner_model}
    return Detector(
        profile=args.profile,
        ner_models=models,
        use_ner=not args.no_ner,
        known=known,
        learned=_learned_models(getattr(args, "learned", None) or []),
    )


def _learned_models(paths: Sequence[str]) -> list[LearnedRecognizer]:
    """The models of `--learned`, loaded; a folder that is not one is a usage error."""
    from pseudonymizer.learning import LearningError, load

    models = []
    for path in paths:
        try:
            models.append(load(path))
        except LearningError as error:
            raise CliError(f"--learned: {error}", 2) from error
    return models


def _open_keys(path: str | None) -> KeyStore:
    """`--keys` with the passphrase and secret of the environment, or a table in memory."""
    from pseudonymizer.keyfile import KeyFileError, KeyStore

    secret = os.environ.get(SECRET_ENV) or None
    if path is None:
        return KeyStore.in_memory(secret)
    passphrase = os.environ.get(PASSPHRASE_ENV, "")
    if not passphrase:
        raise CliError(f"--keys needs the passphrase in {PASSPHRASE_ENV}", 2)
    try:
        return KeyStore.open(path, passphrase, secret=secret)
    except KeyFileError as error:
        raise CliError(f"{path}: {error}", 2) from error


def _save_keys(keys: KeyStore) -> None:
    from pseudonymizer.keyfile import KeyFileError

    try:
        keys.save()
    except KeyFileError as error:
        raise CliError(f"{keys.path}: {error}", 2) from error


def _output_of(document: ImportedDocument, text: str, spans: list[Span]) -> OutputDocument:
    return OutputDocument(
        id=document.external_id,
        language=document.language,
        text=text,
        spans=spans,
        metadata=dict(document.metadata),
    )


def run_detect(args: argparse.Namespace) -> int:
    """Write the input documents with the spans the recognizers find (score, source)."""
    detector = _detector(args, _known_aliases(args.keys))
    detect = _Detection(detector)
    learned = set(detector.learned_languages)
    languages: set[str] = set()

    def documents() -> Iterator[OutputDocument]:
        inputs = progress(read_inputs(args.inputs, args.format, args.lang))
        for batch in batches(inputs, args.batch_size):
            for document, spans in zip(batch, detect(batch), strict=True):
                languages.add(document_language(document).strip().lower())
                yield _output_of(document, document.text, spans)

    write_documents(documents(), args.output, args.to)
    unused = sorted(learned - languages)
    if unused and languages:
        warn(
            f"no document in {', '.join(sorted(languages))}: the learned model for "
            f"{', '.join(unused)} found nothing"
        )
    return 0


def run_learn(args: argparse.Namespace) -> int:
    """Train a model on decided spans and save it to `--out`; print what it learned."""
    from pseudonymizer.learning import LearningError, read_examples, train

    path = Path(args.decided)
    if not path.is_file():
        raise CliError(f"{args.decided}: no such file", 2)
    examples = read_examples(path, args.lang)
    if not examples:
        raise CliError(f"{args.decided}: no document in {args.lang!r} to learn from")
    try:
        report = train(
            examples,
            args.lang,
            args.out,
            iterations=args.iterations,
            seed=args.seed,
            held_out_share=args.held_out,
            labels=args.labels.split(",") if args.labels else None,
        )
    except LearningError as error:
        raise CliError(str(error)) from error
    print(f"model: {args.out} ({args.lang})")
    for line in report.lines():
        print(line)
    return 0


def _known_aliases(path: str | None) -> list[tuple[str, str]]:
    if path is None:
        return []
    keys = _open_keys(path)
    return [(alias.surface, alias.label) for alias in keys.table.aliases]


def _choose_spans(mode: str, given: list[Span], detected: Callable[[], list[Span]]) -> list[Span]:
    from pseudonymizer.spans import resolve_overlaps, select_non_overlapping

    if mode == "input" or (mode == "auto" and given):
        return resolve_overlaps(given)
    found = detected()
    if mode in ("detect", "auto"):
        return found
    kept = resolve_overlaps(given)
    return select_non_overlapping(
        found, lambda span: (span.start - span.end, span.start), keep=kept
    )


class _LazyDetection:
    """Detection over a batch, run on the first document that needs it (never, when every
    document of the batch brings its own spans)."""

    def __init__(self, detect: _Detection, batch: list[ImportedDocument]) -> None:
        self._detect = detect
        self._batch = batch
        self._found: list[list[Span]] | None = None
        # The NER model's spans in each document, once detection has run.
        self.ner: list[list[Span]] | None = None

    def __call__(self, index: int) -> list[Span]:
        if self._found is None:
            self._found, self.ner = self._detect.with_ner(self._batch)
        return self._found[index]


def _decided_by_table(spans: list[Span], text: str, keys: KeyStore) -> list[Span]:
    """Spans with no decision take the one the key table holds for their surface."""
    decided = []
    for span in spans:
        if span.decision is None:
            alias = keys.table.lookup(text[span.start : span.end])
            if alias is not None:
                span = replace(span, decision=alias.decision)
        decided.append(span)
    return decided


def _decided(
    document: ImportedDocument, spans: list[Span], keys: KeyStore, strategy: Strategy
) -> list[DecidedSpan]:
    """The chosen spans of a document as the release pipeline takes them: accepted, each with
    what the key table holds for it (recorded there when new), so that the table is the one
    source of every pseudonym and invalidated form."""
    from pseudonymizer.keytable import KeyConflict

    language = document_language(document)
    decided: list[DecidedSpan] = []
    for span in spans:
        surface = document.text[span.start : span.end]
        decision = span.decision or Decision.PSEUDONYMIZE.value
        replacement: str | None = None
        try:
            if span.decision in (Decision.KEEP, Decision.DELETE, Decision.INVALIDATE) or (
                needs_replacement(strategy, decision)
            ):
                # A person's keep, delete or invalidate is recorded even when this strategy
                # does not show it, so that the next run applies it wherever it is found.
                replacement = keys.table.replacement_for(
                    surface, span.label, language, keys.secret, decision=span.decision
                )
        except KeyConflict as error:
            raise CliError(
                f"document {document_name(document)}: span [{span.start}, {span.end}) "
                f"{span.label}: key table: {error}"
            ) from error
        alias = keys.table.lookup(surface)
        decided.append(
            DecidedSpan(
                span.start,
                span.end,
                span.label,
                decision=alias.decision if alias is not None else decision,
                replacement=replacement,
                entity=("entity", alias.entity) if alias is not None else None,
                # Spans that came with the input are a person's; detected ones a machine's.
                by_person=span.source in ("human", "import"),
                score=span.score,
                source=span.source,
            )
        )
    return decided


def run_pseudonymize(args: argparse.Namespace) -> int:
    """Write the input documents rendered under `--strategy`, spans in the new offsets, through
    the release pipeline (`pseudonymizer.release`): the key table's originals and the pattern
    hits are looked for in the output, and the whole detection runs over each input to find
    what no span covers."""
    strategy = Strategy(args.strategy)
    keys = _open_keys(args.keys)
    known = [(alias.surface, alias.label) for alias in keys.table.aliases]
    detector = _detector(args, known)
    detect = _Detection(detector, fail_on_error=True)
    checking = args.leak_check != "off"
    pipeline = ReleasePipeline(
        strategy,
        originals=[
            (alias.surface, alias.label)
            for alias in keys.table.aliases
            if alias.decision != Decision.KEEP
        ],
        detection=ReleaseDetection(
            profile=args.profile,
            known=known,
            learned=_learned_models(getattr(args, "learned", None) or []),
            ner=detector,
        ),
        own_surfaces=True,
        leak_check=checking,
        placeholder=args.placeholder,
    )
    findings = 0

    def documents() -> Iterator[OutputDocument]:
        nonlocal findings
        inputs = progress(read_inputs(args.inputs, args.format, args.lang))
        for batch in batches(inputs, args.batch_size):
            lazy = _LazyDetection(detect, batch)
            releasing: list[ReleaseDocument] = []
            for index, document in enumerate(batch):
                spans = _choose_spans(args.spans, document.spans, functools.partial(lazy, index))
                spans = _decided_by_table(spans, document.text, keys)
                releasing.append(
                    ReleaseDocument(
                        index, document.text, document_language(document),
                        _decided(document, spans, keys, strategy),
                    )
                )  # fmt: skip
            if lazy.ner is not None:
                releasing = [
                    document._replace(ner=ner)
                    for document, ner in zip(releasing, lazy.ner, strict=True)
                ]
            try:
                results = pipeline.run(releasing)
            except DetectionUnavailable as error:
                raise CliError(f"{error} (--no-ner checks without NER)") from error
            for document, result in zip(batch, results, strict=True):
                if not result.released:
                    raise CliError(f"document {document_name(document)}: {result.reason}")
                if result.findings:
                    findings += len(result.findings)
                    listed = "; ".join(str(finding) for finding in result.findings[:5])
                    more = len(result.findings) - 5
                    warn(
                        f"document {document_name(document)}: possible leak: {listed}"
                        + (f" and {more} more" if more > 0 else "")
                    )
                yield _output_of(document, result.text, result.spans)

    write_documents(documents(), args.output, args.to)
    _save_keys(keys)
    if findings and args.leak_check == "fail":
        raise CliError(f"{findings} possible leak(s) in the output (see the warnings)")
    return 0


def _paired(
    gold: list[ImportedDocument], pred: list[ImportedDocument]
) -> list[tuple[ImportedDocument, ImportedDocument]]:
    """Gold and predicted documents paired by id when all have one, else in order."""
    if all(d.external_id for d in gold) and all(d.external_id for d in pred):
        by_id = {document.external_id: document for document in pred}
        missing = [d.external_id for d in gold if d.external_id not in by_id]
        if missing:
            raise CliError(f"document {missing[0]} of the gold file is not in the predictions")
        pairs = [(document, by_id[document.external_id]) for document in gold]
    else:
        if len(gold) != len(pred):
            raise CliError(f"{len(gold)} gold documents but {len(pred)} predicted ones")
        pairs = list(zip(gold, pred, strict=True))
    for first, second in pairs:
        if first.text != second.text:
            raise CliError(
                f"document {document_name(first)}: the texts of gold and predictions differ"
            )
    return pairs


def run_evaluate(args: argparse.Namespace) -> int:
    """Print span precision, recall and F1 per label (and token masking with --tokens)."""
    gold = list(read_inputs([args.gold], args.format, None))
    pred = list(read_inputs([args.pred], args.format, None))
    pairs = _paired(gold, pred)
    gold_spans = [first.spans for first, _ in pairs]
    pred_spans = [second.spans for _, second in pairs]
    mode: Literal["strict", "relaxed"] = "relaxed" if args.relaxed else "strict"
    report = span_prf(gold_spans, pred_spans, mode=mode, ignore_label=args.ignore_label)
    print(f"{len(pairs)} documents, {mode} match{', labels ignored' if args.ignore_label else ''}")
    print(report.table())
    if args.tokens:
        masking = token_masking(gold_spans, pred_spans, [first.text for first, _ in pairs])
        print(
            f"tokens: {masking.masked_gold_tokens}/{masking.gold_tokens} identifier tokens "
            f"masked (recall {masking.recall:.3f}), precision {masking.precision:.3f} "
            f"({masking.masked_tokens} masked)"
        )
    return 0
