"""`python -m pseudonymizer detect|pseudonymize|evaluate|learn`: Cloak's engine from the command
line.

    python -m pseudonymizer detect notes.txt --lang fr > found.jsonl
    python -m pseudonymizer learn decided.jsonl --lang ar --out models/ar --held-out 0.2
    python -m pseudonymizer detect notes.txt --lang ar --learned models/ar
    python -m pseudonymizer pseudonymize corpus.jsonl --strategy realistic --keys keys.json.enc
    python -m pseudonymizer evaluate gold.jsonl found.jsonl --relaxed

Inputs are files in any format `pseudonymizer.formats` reads (plain text and Cloak JSONL
above all) or "-" for standard input (JSONL when it starts with "{", else plain text).
Outputs are Cloak JSONL (or CSV, CoNLL) on standard output or `-o FILE`, written to a
temporary file and renamed only when the whole run succeeds.

The work is the engine's (detection in `pseudonymizer.detection`, the key store in
`pseudonymizer.keyfile`): this module reads arguments and inputs, calls it, and writes.

Exit status: 0 on success, 1 when the run fails (a bad input file, a model that cannot load,
a leak with `--leak-check fail`), 2 for a usage or configuration error (a missing
passphrase, an unknown option, a key file that cannot be opened).

Environment: CLOAK_NER_MODEL_<LANG> (the NER model per language, as `--ner-model`),
CLOAK_KEYS_PASSPHRASE (the passphrase of `--keys`), CLOAK_PSEUDONYM_SECRET (the secret that
makes pseudonyms deterministic; by default one derived from the passphrase with `--keys`,
else a random one per run).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from pseudonymizer.coverage import DetectionUnavailable, ReleaseDetection
from pseudonymizer.detection import (
    DEFAULT_PROFILE,
    EVERY_LANGUAGE,
    PROFILES,
    Detector,
    NerSpecError,
)
from pseudonymizer.evaluation import span_prf, token_masking
from pseudonymizer.formats import FORMATS, FormatError, ImportedDocument, read_documents
from pseudonymizer.formats.base import UnknownFormat
from pseudonymizer.formats.writers import OutputDocument, write_conll, write_csv, write_jsonl
from pseudonymizer.release import DecidedSpan, ReleaseDocument, ReleasePipeline, needs_replacement
from pseudonymizer.spans import Span
from pseudonymizer.strategies import Strategy
from pseudonymizer.vocabulary import Decision

if TYPE_CHECKING:
    from pseudonymizer.keyfile import KeyStore
    from pseudonymizer.learning import LearnedRecognizer

PASSPHRASE_ENV = "CLOAK_KEYS_PASSPHRASE"
SECRET_ENV = "CLOAK_PSEUDONYM_SECRET"
BATCH_SIZE = 32
OUTPUT_FORMATS = ("jsonl", "csv", "conll")
SPAN_MODES = ("auto", "input", "detect", "both")


class CliError(Exception):
    """A failure to report in one line, with the exit status to leave with."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


# --- Input -----------------------------------------------------------------------------------


def _stdin_format(data: bytes) -> str:
    return "jsonl" if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") else "txt"


def read_inputs(paths: Sequence[str], fmt: str, language: str | None) -> Iterator[ImportedDocument]:
    """The documents of every input in turn; "-" reads standard input. `language` (from
    `--lang`) overrides what the documents say."""
    for name in paths:
        if name == "-":
            data = sys.stdin.buffer.read()
            chosen = _stdin_format(data) if fmt == "auto" else fmt
            with tempfile.TemporaryDirectory(prefix="cloak-stdin-") as folder:
                path = Path(folder) / f"stdin.{chosen}"
                path.write_bytes(data)
                documents = read_documents(path, chosen, language=language, filename="stdin")
                yield from _with_language(documents, language)
            continue
        path = Path(name)
        if not path.is_file():
            raise CliError(f"{name}: no such file", 2)
        yield from _with_language(read_documents(path, fmt, language=language), language)


def _with_language(
    documents: Iterable[ImportedDocument], language: str | None
) -> Iterator[ImportedDocument]:
    for document in documents:
        if language:
            document.language = language
        yield document


def _name(document: ImportedDocument) -> str:
    if document.external_id:
        return document.external_id
    return f"{document.filename}:{document.line}" if document.line else document.filename


def _language(document: ImportedDocument) -> str:
    if not document.language:
        raise CliError(f"document {_name(document)} has no language: give --lang", 2)
    return document.language


def _batches(documents: Iterable[ImportedDocument], size: int) -> Iterator[list[ImportedDocument]]:
    batch: list[ImportedDocument] = []
    for document in documents:
        batch.append(document)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _progress(documents: Iterable[ImportedDocument]) -> Iterable[ImportedDocument]:
    """A progress bar on standard error when it is a terminal, shown once a run is slow."""
    if not sys.stderr.isatty():
        return documents
    from tqdm import tqdm

    return tqdm(documents, unit="doc", file=sys.stderr, delay=1.0, leave=False)


# --- Output ----------------------------------------------------------------------------------


@contextlib.contextmanager
def output_stream(target: str | None) -> Iterator[TextIO]:
    """Standard output, or a temporary file beside `target` renamed onto it on success."""
    if target is None or target == "-":
        with contextlib.suppress(AttributeError, ValueError):
            sys.stdout.reconfigure(newline="")  # type: ignore[union-attr]
        yield sys.stdout
        sys.stdout.flush()
        return
    path = Path(target)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise CliError(f"{target}: cannot write: {error.strerror}", 2) from error
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as stream:
            yield stream
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def write_documents(documents: Iterable[OutputDocument], target: str | None, fmt: str) -> int:
    """Write `documents` in `fmt` (jsonl, csv, conll) to `target` (stdout when None)."""
    writers: dict[str, Callable[[Iterable[OutputDocument], TextIO], int]] = {
        "jsonl": write_jsonl,
        "csv": write_csv,
        "conll": write_conll,
    }
    with output_stream(target) as stream:
        return writers[fmt](documents, stream)


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


# --- Detection and keys -----------------------------------------------------------------------


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
            groups.setdefault(_language(document), []).append(index)
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
                    _warn(
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


# --- Commands --------------------------------------------------------------------------------


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
        inputs = _progress(read_inputs(args.inputs, args.format, args.lang))
        for batch in _batches(inputs, args.batch_size):
            for document, spans in zip(batch, detect(batch), strict=True):
                languages.add(_language(document).strip().lower())
                yield _output_of(document, document.text, spans)

    write_documents(documents(), args.output, args.to)
    unused = sorted(learned - languages)
    if unused and languages:
        _warn(
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

    language = _language(document)
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
                f"document {_name(document)}: span [{span.start}, {span.end}) "
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
        inputs = _progress(read_inputs(args.inputs, args.format, args.lang))
        for batch in _batches(inputs, args.batch_size):
            lazy = _LazyDetection(detect, batch)
            releasing: list[ReleaseDocument] = []
            for index, document in enumerate(batch):
                spans = _choose_spans(args.spans, document.spans, functools.partial(lazy, index))
                spans = _decided_by_table(spans, document.text, keys)
                releasing.append(
                    ReleaseDocument(
                        index, document.text, _language(document),
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
                    raise CliError(f"document {_name(document)}: {result.reason}")
                if result.findings:
                    findings += len(result.findings)
                    listed = "; ".join(str(finding) for finding in result.findings[:5])
                    more = len(result.findings) - 5
                    _warn(
                        f"document {_name(document)}: possible leak: {listed}"
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
            raise CliError(f"document {_name(first)}: the texts of gold and predictions differ")
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


# --- Arguments -------------------------------------------------------------------------------


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _share(value: str) -> float:
    try:
        number = float(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError("must be a number") from error
    if not 0.0 <= number < 1.0:
        raise argparse.ArgumentTypeError("must be at least 0 and below 1")
    return number


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `python -m pseudonymizer`."""
    parser = argparse.ArgumentParser(
        prog="python -m pseudonymizer",
        description="Detect and pseudonymize identifying spans in text corpora (en, fr, ar).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def inputs_and_output(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "inputs",
            nargs="*",
            default=["-"],
            metavar="INPUT",
            help='text or JSONL files; "-" (the default) is standard input',
        )
        command.add_argument("-o", "--output", help="output file (default: standard output)")
        command.add_argument(
            "--to", choices=OUTPUT_FORMATS, default="jsonl", help="output format (default: jsonl)"
        )
        command.add_argument(
            "--format",
            choices=("auto", *FORMATS),
            default="auto",
            help="input format (default: from the extension and content)",
        )
        command.add_argument("--lang", help="the documents' language, over what they say")
        command.add_argument(
            "--ner-model",
            help='NER model spec for every language: "spacy:'
            'PACKAGE", a transformers path or hub name, or "" for none '
            "(default: CLOAK_NER_MODEL_<LANG>, else spaCy for en and fr)",
        )
        command.add_argument("--no-ner", action="store_true", help="regex and known entities only")
        command.add_argument(
            "--profile",
            choices=PROFILES,
            default=DEFAULT_PROFILE,
            help=f"detection profile (default {DEFAULT_PROFILE}): recall proposes amounts, "
            "occupations, lone initials, untagged capitalised words and every NER entity "
            "type; precise leaves them out",
        )
        command.add_argument(
            "--batch-size",
            type=_positive,
            default=BATCH_SIZE,
            help=f"documents per recognizer batch (default {BATCH_SIZE})",
        )

    detect = commands.add_parser("detect", help="find identifying spans")
    inputs_and_output(detect)
    detect.add_argument("--keys", help="encrypted key table whose surfaces are found too")
    detect.add_argument(
        "--learned",
        action="append",
        metavar="DIR",
        help="a model trained by `learn`: its proposals (source learned) join the profile's "
        "in documents of its language (repeatable, one per language)",
    )
    detect.set_defaults(run=run_detect)

    pseudonymize = commands.add_parser("pseudonymize", help="render documents pseudonymized")
    inputs_and_output(pseudonymize)
    pseudonymize.add_argument(
        "--strategy",
        choices=[s.value for s in Strategy],
        default=Strategy.REALISTIC.value,
        help="default: realistic",
    )
    pseudonymize.add_argument(
        "--keys",
        help=f"encrypted key table kept across runs "
        f"(passphrase in {PASSPHRASE_ENV}); created when missing",
    )
    pseudonymize.add_argument(
        "--spans",
        choices=SPAN_MODES,
        default="auto",
        help="which spans to replace: the input's, detected ones, both, "
        "or (auto, the default) the input's when it has any, else detected",
    )
    pseudonymize.add_argument("--placeholder", default="placeholder", help="S1's placeholder")
    pseudonymize.add_argument(
        "--leak-check",
        choices=("warn", "fail", "off"),
        default="warn",
        help="look for originals and regex hits left in the output",
    )
    pseudonymize.set_defaults(run=run_pseudonymize)

    evaluate = commands.add_parser("evaluate", help="score predicted spans against gold ones")
    evaluate.add_argument("gold", metavar="GOLD")
    evaluate.add_argument("pred", metavar="PRED")
    evaluate.add_argument("--relaxed", action="store_true", help="overlap, not exact, matching")
    evaluate.add_argument("--ignore-label", action="store_true", help="match offsets only")
    evaluate.add_argument("--tokens", action="store_true", help="also token-level masking")
    evaluate.add_argument("--format", choices=("auto", *FORMATS), default="auto")
    evaluate.set_defaults(run=run_evaluate)

    learn = commands.add_parser("learn", help="train a model on decided spans (CPU, offline)")
    learn.add_argument(
        "decided",
        metavar="DECIDED",
        help='Cloak JSONL; spans with "status": "rejected" are negatives, the others positives',
    )
    learn.add_argument("--lang", required=True, help="the language to learn (others are skipped)")
    learn.add_argument("--out", required=True, metavar="DIR", help="the model folder to write")
    learn.add_argument(
        "--iterations", type=_positive, default=20, help="passes over the data (default 20)"
    )
    learn.add_argument(
        "--held-out",
        type=_share,
        default=0.0,
        metavar="SHARE",
        help="share of the documents left out to score the model (default 0)",
    )
    learn.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    learn.add_argument("--labels", help="comma-separated labels to learn (default: all)")
    learn.set_defaults(run=run_learn)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    from pseudonymizer.recognizers.base import RecognizerError

    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except CliError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.status
    except UnknownFormat as error:
        print(f"error: {error} with --format ({', '.join(FORMATS)})", file=sys.stderr)
        return 1
    except FormatError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except RecognizerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader of our output went away (`| head`): say nothing more, and let the
        # interpreter's final flush go to /dev/null rather than fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
