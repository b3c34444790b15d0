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
`pseudonymizer.keyfile`): this package reads arguments (here), reads inputs and writes outputs
(`files`), and runs the commands (`commands`).

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
import os
import sys
from collections.abc import Sequence

from pseudonymizer.cli.commands import (
    PASSPHRASE_ENV,
    run_detect,
    run_evaluate,
    run_learn,
    run_pseudonymize,
)
from pseudonymizer.cli.files import CliError
from pseudonymizer.detection import DEFAULT_PROFILE, PROFILES
from pseudonymizer.formats import FORMATS, FormatError
from pseudonymizer.formats.base import UnknownFormat
from pseudonymizer.strategies import Strategy

BATCH_SIZE = 32
OUTPUT_FORMATS = ("jsonl", "csv", "conll")
SPAN_MODES = ("auto", "input", "detect", "both")


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
