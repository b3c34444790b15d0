"""What the Arabic lexicons add to the offline default, on Cloak's Arabic evaluation corpus.

Runs three detectors over `tests/data/arabic/corpus.jsonl` (or the JSONL files given, in its
format: `{"text", "spans": [{"start", "end", "label"}]}`) and prints, per label (PER, LOC,
ORG) and over all three:

- token recall: the share of the label's gold tokens (`pseudonymizer.evaluation.tokenize`)
  that some predicted span masks, whatever its label (what keeps a name from leaking);
- token precision: the share of tokens masked by spans of the label that lie in gold spans of
  the same label (over all three: masked tokens inside any gold span, as `token_masking`);
- span F1, relaxed (overlap, same label: `span_prf`).

Detectors: "patterns" is the `recall` profile without the lexicons (what Arabic got before),
"lexicons" the lexicon recognizer alone, "recall" the offline default with them.

    python bench/lexicon_bench.py [corpus.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pseudonymizer.evaluation import span_prf, token_masking  # noqa: E402
from pseudonymizer.recognizers import Recognizer, recognize_all  # noqa: E402
from pseudonymizer.recognizers.lexicons import ArabicLexiconRecognizer  # noqa: E402
from pseudonymizer.recognizers.profiles import pattern_recognizers  # noqa: E402
from pseudonymizer.spans import Span  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "arabic" / "corpus.jsonl"
LABELS = ("PER", "LOC", "ORG")


def load(paths: Sequence[Path]) -> tuple[list[str], list[list[Span]]]:
    texts: list[str] = []
    gold: list[list[Span]] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                texts.append(record["text"])
                gold.append([Span(s["start"], s["end"], s["label"]) for s in record["spans"]])
    return texts, gold


def detectors() -> dict[str, list[Recognizer]]:
    recall = pattern_recognizers("recall")
    return {
        "patterns": [r for r in recall if not isinstance(r, ArabicLexiconRecognizer)],
        "lexicons": [ArabicLexiconRecognizer()],
        "recall": recall,
    }


def only(spans: list[list[Span]], label: str) -> list[list[Span]]:
    return [[span for span in doc if span.label == label] for doc in spans]


def report(name: str, texts: list[str], gold: list[list[Span]], pred: list[list[Span]]) -> None:
    relaxed = span_prf(gold, pred, mode="relaxed")
    print(f"\n{name}")
    print(f"  {'label':<6} {'gold tok':>8} {'tok R':>6} {'tok P':>6} {'span F1':>8}")
    for label in LABELS:
        recall = token_masking(only(gold, label), pred, texts).recall
        precision = token_masking(only(gold, label), only(pred, label), texts).precision
        gold_tokens = token_masking(only(gold, label), pred, texts).gold_tokens
        scores = relaxed.per_label.get(label)
        f1 = scores.f1 if scores else 0.0
        print(f"  {label:<6} {gold_tokens:>8} {recall:>6.3f} {precision:>6.3f} {f1:>8.3f}")
    overall = token_masking(
        [[s for s in doc if s.label in LABELS] for doc in gold],
        [[s for s in doc if s.label in LABELS] for doc in pred],
        texts,
    )
    print(
        f"  {'all':<6} {overall.gold_tokens:>8} {overall.recall:>6.3f} {overall.precision:>6.3f}"
        f" {relaxed.micro.f1:>8.3f}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[CORPUS])
    args = parser.parse_args(argv)
    texts, gold = load(args.paths)
    print(f"{len(texts)} texts, {sum(len(doc) for doc in gold)} gold spans")
    for name, recognizers in detectors().items():
        began = time.perf_counter()
        pred = recognize_all(texts, "ar", recognizers).spans
        seconds = time.perf_counter() - began
        report(f"{name} ({seconds:.2f} s)", texts, gold, pred)


if __name__ == "__main__":
    main()
