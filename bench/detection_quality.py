"""Detection quality per domain: token recall and precision of the shipped detector on
development sets kept outside the repository.

Each set is a folder with `dev.jsonl` (the half rules are tuned on) and `heldout.jsonl` (the
half only scored at the end), and a `PROVENANCE.md` that says where it comes from, at which
commit, under which licence. A line is one document:

    {"id": "...", "lang": "en", "domain": "clinical", "text": "...",
     "spans": [{"start": 0, "end": 5, "label": "PER", "text": "..."}],
     "annotators": {"ann1": [{"start": ..., "end": ..., "label": ...}], ...}}   # optional

Offsets are code points. With `annotators` (TAB), recall is averaged over annotators as TAB
measures it; precision is against the union of their spans.

    python bench/detection_quality.py                       # every set under $CLOAK_DEVDATA
    python bench/detection_quality.py ../devdata/clinical-en-* --half heldout
    python bench/detection_quality.py SET --profile recall --misses 30 --alarms 30

The sets are found under `$CLOAK_DEVDATA` (default: the folder `devdata` beside the
repository). What is printed, per set and profile:

- recall: the share of gold tokens (`pseudonymizer.evaluation.tokenize`) masked by some
  predicted span, whatever its label: what keeps an identifier from leaking; per gold label;
- precision: the share of masked tokens inside some gold span, whatever the labels: what an
  annotator does not have to reject; per predicted label;
- names precision: the same for the spans labelled PER, LOC, ORG, COMP or MISC (`NAMES`),
  what sets that annotate only names measure;
- proposed: the share of all tokens masked (a flood is a team that stops reading).

`--decided` measures a half-decided project (issue 30's "once the first halves are
decided"): each document is cut at the line or sentence end nearest its middle that cuts no
gold span; the gold spans of the first halves are what people decided. Their surfaces go to
the detector as known entities (the key table), and a model is learned from the first
halves (`pseudonymizer.learning`, `--iterations`); the second halves alone are scored, with
the table, with the table and the learned model, and without either (the default, for
comparison). TAB's annotators' spans are cut likewise.

    python bench/detection_quality.py ../devdata/legal-en-tab --decided --profile recall

`--misses N` lists the N most frequent gold surfaces left wholly unmasked, `--alarms N` the
N most frequent predicted surfaces that touch no gold token, with their labels and sources.
The public sets carry no one's secrets, so printing them is fine; never point this at a
project's real data.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pseudonymizer.detection import PROFILES, Detector  # noqa: E402
from pseudonymizer.evaluation import OUTSIDE, tokenize  # noqa: E402
from pseudonymizer.learning import Example, loads, train_bytes  # noqa: E402
from pseudonymizer.spans import Span  # noqa: E402

HALVES = ("dev", "heldout")
# The labels of names: sets that annotate only names (social media's and Wikipedia's
# PER/LOC/ORG) leave dates, numbers, links and handles unannotated, so precision is also
# printed for the spans of these labels alone.
NAMES = frozenset({"PER", "LOC", "ORG", "COMP", "MISC"})


def devdata_root() -> Path:
    return Path(os.environ.get("CLOAK_DEVDATA", ROOT.parent / "devdata"))


@dataclass
class Document:
    id: str
    language: str
    domain: str
    text: str
    gold: list[Span]
    annotators: dict[str, list[Span]]


def _spans(items: Iterable[dict[str, object]]) -> list[Span]:
    return [
        Span(int(item["start"]), int(item["end"]), str(item["label"]))  # type: ignore[call-overload]
        for item in items
        if int(item["end"]) > int(item["start"])  # type: ignore[call-overload]
    ]


def load(path: Path) -> list[Document]:
    documents = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            record = json.loads(line)
            documents.append(
                Document(
                    id=str(record["id"]),
                    language=str(record.get("lang", "en")),
                    domain=str(record.get("domain", "")),
                    text=str(record["text"]),
                    gold=_spans(record.get("spans", [])),
                    annotators={
                        name: _spans(spans) for name, spans in record.get("annotators", {}).items()
                    },
                )
            )
    return documents


# Where a document may be cut in two: after a line break, or after a sentence's end.
_CUTS = re.compile(r"\n+|(?<=[.!?])\s+")


def cut(document: Document) -> int | None:
    """Where to cut `document` in two: the line or sentence end nearest its middle that
    falls inside no gold span (of the union or of any annotator); None when there is none."""
    spans = [*document.gold, *(s for spans in document.annotators.values() for s in spans)]
    middle = len(document.text) // 2
    places = [
        match.end()
        for match in _CUTS.finditer(document.text)
        if 0 < match.end() < len(document.text)
        and not any(span.start < match.end() < span.end for span in spans)
    ]
    return min(places, key=lambda place: abs(place - middle)) if places else None


def _shifted(spans: Iterable[Span], at: int) -> list[Span]:
    return [
        replace(span, start=span.start - at, end=span.end - at)
        for span in spans
        if span.start >= at
    ]


def split_in_halves(documents: Sequence[Document]) -> tuple[list[Document], list[Document]]:
    """The first and second halves of each document that can be cut (`cut`)."""
    first, second = [], []
    for document in documents:
        at = cut(document)
        if at is None:
            continue
        first.append(
            Document(
                document.id,
                document.language,
                document.domain,
                document.text[:at],
                [span for span in document.gold if span.end <= at],
                {
                    name: [span for span in spans if span.end <= at]
                    for name, spans in document.annotators.items()
                },
            )
        )
        second.append(
            Document(
                document.id,
                document.language,
                document.domain,
                document.text[at:],
                _shifted(document.gold, at),
                {name: _shifted(spans, at) for name, spans in document.annotators.items()},
            )
        )
    return first, second


def decided_detectors(
    first: Sequence[Document], profile: str, *, use_ner: bool, iterations: int
) -> dict[str, Detector]:
    """Detectors of a project whose first halves are decided: with their surfaces as known
    entities ("table"), and with a model learned from them too ("table+learned")."""
    known = sorted(
        {
            (d.text[s.start : s.end], s.label)
            for d in first
            for s in d.gold
            if d.text[s.start : s.end].strip()
        }
    )
    found = {"table": Detector(profile=profile, use_ner=use_ner, known=known)}
    languages = sorted({d.language for d in first})
    models = []
    for language in languages:
        examples = [Example(d.text, list(d.gold)) for d in first if d.language == language]
        data, _ = train_bytes(examples, language, iterations=iterations)
        models.append(loads(data))
    found["table+learned"] = Detector(profile=profile, use_ner=use_ner, known=known, learned=models)
    return found


def _labels(tokens: Sequence[tuple[int, int]], spans: Iterable[Span]) -> list[list[Span]]:
    """The spans that overlap each token."""
    found: list[list[Span]] = [[] for _ in tokens]
    starts = [start for start, _ in tokens]
    import bisect

    for span in spans:
        index = max(0, bisect.bisect_right(starts, span.start) - 1)
        while index < len(tokens) and tokens[index][0] < span.end:
            if tokens[index][1] > span.start:
                found[index].append(span)
            index += 1
    return found


@dataclass
class Tally:
    """Token counts of one set under one profile."""

    tokens: int = 0
    gold: Counter[str] = field(default_factory=Counter)  # gold tokens per gold label
    gold_masked: Counter[str] = field(default_factory=Counter)
    masked: Counter[str] = field(default_factory=Counter)  # masked tokens per predicted label
    masked_gold: Counter[str] = field(default_factory=Counter)
    annotator_recalls: list[float] = field(default_factory=list)
    misses: Counter[tuple[str, str]] = field(default_factory=Counter)
    alarms: Counter[tuple[str, str, str]] = field(default_factory=Counter)

    def add(self, document: Document, predicted: list[Span]) -> None:
        text = document.text
        tokens = tokenize(text)
        gold = _labels(tokens, document.gold)
        pred = _labels(tokens, predicted)
        self.tokens += len(tokens)
        for in_gold, in_pred in zip(gold, pred, strict=True):
            if in_gold:
                label = in_gold[0].label
                self.gold[label] += 1
                self.gold_masked[label] += bool(in_pred)
            if in_pred:
                label = in_pred[0].label
                self.masked[label] += 1
                self.masked_gold[label] += bool(in_gold)
        for span in document.gold:
            if not any(span.overlaps(other) for other in predicted):
                self.misses[(span.label, text[span.start : span.end])] += 1
        for span in predicted:
            if not any(span.overlaps(other) for other in document.gold):
                self.alarms[(span.label, span.source, text[span.start : span.end])] += 1

    @property
    def recall(self) -> float:
        total = sum(self.gold.values())
        return sum(self.gold_masked.values()) / total if total else 1.0

    @property
    def precision(self) -> float:
        total = sum(self.masked.values())
        return sum(self.masked_gold.values()) / total if total else 1.0

    @property
    def name_precision(self) -> float:
        """Precision of the spans whose labels are `NAMES`."""
        total = sum(n for label, n in self.masked.items() if label in NAMES)
        right = sum(n for label, n in self.masked_gold.items() if label in NAMES)
        return right / total if total else 1.0

    @property
    def proposed(self) -> float:
        return sum(self.masked.values()) / self.tokens if self.tokens else 0.0


def annotator_recall(documents: Sequence[Document], predicted: Sequence[list[Span]]) -> float:
    """TAB's recall: per annotator over the documents they annotated, then averaged."""
    names = sorted({name for d in documents for name in d.annotators})
    recalls = []
    for name in names:
        gold = masked = 0
        for document, spans in zip(documents, predicted, strict=True):
            if name not in document.annotators:
                continue
            tokens = tokenize(document.text)
            in_gold = _labels(tokens, document.annotators[name])
            in_pred = _labels(tokens, spans)
            for g, p in zip(in_gold, in_pred, strict=True):
                gold += bool(g)
                masked += bool(g) and bool(p)
        if gold:
            recalls.append(masked / gold)
    return sum(recalls) / len(recalls) if recalls else float("nan")


def detect(detector: Detector, documents: Sequence[Document]) -> list[list[Span]]:
    found: list[list[Span]] = [[] for _ in documents]
    by_language: dict[str, list[int]] = defaultdict(list)
    for index, document in enumerate(documents):
        by_language[document.language].append(index)
    for language, indices in by_language.items():
        result = detector.detect([documents[i].text for i in indices], language)
        for error in result.errors.values():
            print(f"  ! {error}", file=sys.stderr)
        for index, spans in zip(indices, result.spans, strict=True):
            found[index] = spans
    return found


def _share(part: int, whole: int) -> str:
    return f"{part / whole:6.1%}" if whole else "   n/a"


def report(name: str, tally: Tally, seconds: float, tab_recall: float | None) -> None:
    extra = f"  TAB recall {tab_recall:6.1%}" if tab_recall is not None else ""
    print(
        f"  {name:<22} recall {tally.recall:6.1%}  precision {tally.precision:6.1%} "
        f"(names {tally.name_precision:6.1%})  "
        f"proposed {tally.proposed:6.1%} of {tally.tokens:,} tokens{extra}  ({seconds:.1f} s)"
    )
    recalls = "  ".join(
        f"{label} {_share(tally.gold_masked[label], tally.gold[label])} ({tally.gold[label]})"
        for label in sorted(tally.gold, key=lambda label: -tally.gold[label])
    )
    precisions = "  ".join(
        f"{label} {_share(tally.masked_gold[label], tally.masked[label])} ({tally.masked[label]})"
        for label in sorted(tally.masked, key=lambda label: -tally.masked[label])
    )
    print(f"      recall by gold label:         {recalls}")
    print(f"      precision by proposed label:  {precisions}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", type=Path, nargs="*", help="set folders (default: every one)")
    parser.add_argument("--half", choices=(*HALVES, "both"), default="both")
    parser.add_argument("--profile", action="append", choices=PROFILES, dest="profiles")
    parser.add_argument("--no-ner", action="store_true", help="patterns and lexicons only")
    parser.add_argument("--limit", type=int, help="the first N documents of each half")
    parser.add_argument("--misses", type=int, default=0, metavar="N")
    parser.add_argument("--alarms", type=int, default=0, metavar="N")
    parser.add_argument(
        "--decided", action="store_true", help="score second halves once first halves are decided"
    )
    parser.add_argument("--iterations", type=int, default=20, help="of the learned model")
    args = parser.parse_args(argv)
    sets = args.sets or sorted(
        path.parent for path in devdata_root().glob("*/dev.jsonl") if path.is_file()
    )
    if not sets:
        parser.error(f"no set found under {devdata_root()} (set CLOAK_DEVDATA)")
    halves = HALVES if args.half == "both" else (args.half,)
    profiles = args.profiles or list(PROFILES)
    detectors = {p: Detector(profile=p, use_ner=not args.no_ner) for p in profiles}
    for folder in sets:
        for half in halves:
            documents = load(folder / f"{half}.jsonl")[: args.limit]
            languages = ",".join(sorted({d.language for d in documents}))
            domains = ",".join(sorted({d.domain for d in documents}))
            print(f"{folder.name} [{half}] {len(documents)} documents, {languages}, {domains}")
            runs: list[tuple[str, Detector]] = list(detectors.items())
            if args.decided:
                first, documents = split_in_halves(documents)
                print(f"  second halves of {len(documents)} documents, the first ones decided")
                for profile in profiles:
                    decided = decided_detectors(
                        first, profile, use_ner=not args.no_ner, iterations=args.iterations
                    )
                    runs += [(f"{profile}+{name}", found) for name, found in decided.items()]
            for profile, detector in runs:
                started = time.perf_counter()
                predicted = detect(detector, documents)
                seconds = time.perf_counter() - started
                tally = Tally()
                for document, spans in zip(documents, predicted, strict=True):
                    tally.add(document, spans)
                tab = (
                    annotator_recall(documents, predicted)
                    if any(d.annotators for d in documents)
                    else None
                )
                report(profile, tally, seconds, tab)
                for (label, surface), count in tally.misses.most_common(args.misses):
                    print(f"      miss  {count:4}  {label:<10} {surface!r}")
                for (label, source, surface), count in tally.alarms.most_common(args.alarms):
                    print(f"      alarm {count:4}  {label:<10} {source:<8} {surface!r}")


if __name__ == "__main__":
    assert OUTSIDE  # the token vocabulary this bench shares with `evaluation`
    main()
