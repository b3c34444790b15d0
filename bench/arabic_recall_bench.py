"""Arabic recall on text nobody wrote for it (issue 22), measured through the command line.

Reads a CoNLL/BIO corpus (one token per line, the token first and its tag last: ANERcorp's
"word B-PERS"), rebuilds its documents as Cloak JSONL with gold spans, and runs two protocols
with `python -m pseudonymizer` as subprocesses in a temporary folder. The corpus is not in the
repository: ANERcorp (Benajiba and Rosso's Arabic news, 150,000 tokens) is the file `ANERCorp`
of the public GitHub repository HassanAzzam/Arabic-NER.

1. the offline default: `detect --lang ar` (the `recall` profile: patterns and the Arabic
   lexicons; no NER model exists for Arabic offline, and CLOAK_NER_MODEL_* is cleared so none
   is picked up) on every document;
2. after half of each document is decided: each document is cut in two at the sentence
   boundary nearest its middle; the gold spans of the first halves are the decided ones. They
   go into an encrypted key table (`--keys`) and `learn --lang ar` trains on the first halves;
   then `detect --lang ar --keys … --learned …` runs on the second halves. The offline default
   on the same second halves, and the key table or the model alone, are printed beside it.
   The table is recorded here as `pseudonymize` records a span (`KeyTable.replacement_for`,
   then `keyfile.save`), not by running `pseudonymize --keys` on the first halves: that run
   stops at the first decided surface that an earlier surface's pseudonym already took ("this
   surface is already a replacement"; 13 spans of ANERcorp). The table refuses those surfaces
   and the bench counts them.

Scores are `evaluate --tokens` on the gold and predicted files, filtered per label, as
`bench/lexicon_bench.py` counts them:
- token recall: the share of a label's gold tokens that some predicted span masks, whatever
  its label (what keeps a name from leaking);
- token precision: the share of tokens masked by spans of the label that lie in gold spans of
  the same label; for "all", the tokens masked by PER, LOC and ORG spans that lie in any gold
  span ("any label" counts every predicted span: dates, numbers, professions too).

The corpus: PERS/PER → PER, LOC and GPE → LOC, ORG → ORG; MISC and any other label are
dropped (their tokens are outside every gold span). A token with several nested tags
(Wojood's "طولكرم I-ORG B-GPE") is read one type at a time, and an entity inside a longer
kept one is dropped: Wojood's public sample (SinaLab/ArabicNER, `data/train.txt`, `val.txt`,
`test.txt` concatenated) reads as 1,627 sentences, 26,974 tokens. Tokens are joined by one
space and sentences by a line break; offsets are code points. Sentences are the
blank-line-separated blocks, or, in a file with no blank line (ANERcorp), runs ending in
". ! ? ؟". Documents are the corpus's own (`-DOCSTART-` lines) or, when it has none,
consecutive sentences grouped into documents of about 300 to 600 tokens. Lines with no tag
(ANERcorp has a few empty tokens) are skipped.

    python bench/arabic_recall_bench.py ANERCorp
    python bench/arabic_recall_bench.py FILE --limit-docs 40 --seed 1 --keep /tmp/ar --misses 20

`--table-occurrences` adds protocol 3: `learn` trains on the first halves and, as partial
examples (`"partial": true`: only their spans are known), on the key table's occurrences in
the second halves, as the app's learner trains on what the table proposed in documents
nobody finished; then `detect --keys … --learned …` on the second halves again (a second
`learn`: about twice the time).

`--default-only` runs protocol 1 alone (no key table, no `learn`): what a change to the
lexicons does, in seconds.

`--misses N` lists the N gold surfaces per label that the offline default leaves wholly
unmasked, most frequent first. Wall times of each command are printed, not asserted: on
ANERcorp (150,124 tokens, 319 documents) the whole run takes about 6 minutes of CPU (357 s), most of
it in `learn` (20 iterations over the 75,000 tokens of the first halves).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# One reading of CoNLL sentences and one grouping into documents, shared with the
# development sets' converters.
from bench.devdata.conll import (  # noqa: E402
    HIGH_TOKENS,
    LOW_TOKENS,
    TAG,
    Sentence,
    entities,
    group,
)

LABELS = ("PER", "LOC", "ORG")
# The corpus's entity types → Cloak's labels; any other type (MISC) is dropped.
GOLD_LABELS = {
    "PER": "PER",
    "PERS": "PER",
    "PERSON": "PER",
    "LOC": "LOC",
    "GPE": "LOC",
    "ORG": "ORG",
}
SENTENCE_END = frozenset({".", "!", "?", "؟"})
DOCSTART = "-DOCSTART-"
PASSPHRASE = "arabic-recall-bench"
SECRET = "0" * 64


@dataclass
class Document:
    id: str
    text: str
    spans: list[tuple[int, int, str]]

    def record(self, with_spans: bool = True) -> dict[str, object]:
        spans = self.spans if with_spans else []
        return {
            "id": self.id,
            "lang": "ar",
            "text": self.text,
            "spans": [{"start": s, "end": e, "label": label} for s, e, label in spans],
        }


@dataclass
class Corpus:
    documents: list[list[Sentence]]
    skipped_lines: int
    own_documents: bool


# --- Reading the corpus ----------------------------------------------------------------------


def _entities(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """Entities of a sentence's BIO tags (`bench.devdata.conll.entities`), with Cloak's
    labels; the types GOLD_LABELS does not map are dropped."""
    return [
        (start, end, GOLD_LABELS[kind.upper()])
        for start, end, kind in entities(tags)
        if kind.upper() in GOLD_LABELS
    ]


def _nested_entities(layers: Sequence[Sequence[str]]) -> list[tuple[int, int, str]]:
    """Entities of tokens tagged with several nested types each (Wojood: "طولكرم I-ORG B-GPE").

    Each type is read as its own BIO layer; an entity inside a longer kept one is dropped, as
    masking the outer span masks it too (the municipality of a town stays one organisation).
    """
    kinds = {
        m.group("type")
        for tags in layers
        for t in tags
        if (m := TAG.fullmatch(t)) and m.group("type")
    }
    found: set[tuple[int, int, str]] = set()
    for kind in kinds:
        column = [next((t for t in tags if t[2:] == kind), "O") for tags in layers]
        found.update(_entities(column))
    return sorted(
        (s, e, label)
        for s, e, label in found
        if not any(os <= s and e <= oe and (os, oe) != (s, e) for os, oe, _ in found)
    )


def read_conll(path: Path) -> Corpus:
    """The corpus's documents as sentences of tokens with their entities."""
    documents: list[list[list[tuple[str, tuple[str, ...]]]]] = [[]]
    sentence: list[tuple[str, tuple[str, ...]]] = []
    blank_lines = own_documents = nested = False
    skipped = 0

    def close_sentence() -> None:
        nonlocal sentence
        if sentence:
            documents[-1].append(sentence)
        sentence = []

    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t") if "\t" in line else line.split()
        fields = [column.strip() for column in fields if column.strip()]
        if not fields:
            blank_lines = True
            close_sentence()
        elif fields[0] == DOCSTART:
            close_sentence()
            own_documents = True
            if documents[-1]:
                documents.append([])
        elif len(fields) < 2 or not TAG.fullmatch(fields[-1]):
            skipped += 1
        elif len(fields) > 2 and all(TAG.fullmatch(column) for column in fields[1:]):
            # One token with several nested tags.
            nested = True
            sentence.append((fields[0], tuple(fields[1:])))
        else:
            # A line with several words before its tag ("الصالحية ونايفة O") gives each word
            # the tag, continuing the entity after the first.
            tag = fields[-1]
            for number, token in enumerate(fields[:-1]):
                sentence.append((token, (tag if number == 0 else re.sub("^B-", "I-", tag),)))
    close_sentence()
    if not blank_lines:
        documents = [[cut for block in doc for cut in _cut_sentences(block)] for doc in documents]
    sentences = [
        [
            Sentence(
                [t for t, _ in block],
                _nested_entities([tags for _, tags in block])
                if nested
                else _entities([tags[0] for _, tags in block]),
            )
            for block in doc
        ]
        for doc in documents
        if doc
    ]
    return Corpus(sentences, skipped, own_documents)


def _cut_sentences(
    tokens: list[tuple[str, tuple[str, ...]]],
) -> Iterator[list[tuple[str, tuple[str, ...]]]]:
    """Runs of tokens ending in sentence-final punctuation outside any entity."""
    start = 0
    for index, (token, (tag, *_)) in enumerate(tokens):
        following = tokens[index + 1][1][0] if index + 1 < len(tokens) else "O"
        if token in SENTENCE_END and tag == "O" and not following.startswith("I-"):
            yield tokens[start : index + 1]
            start = index + 1
    if start < len(tokens):
        yield tokens[start:]


# --- Documents and halves --------------------------------------------------------------------


def render(document_id: str, sentences: Sequence[Sentence]) -> Document:
    """Tokens joined by one space, sentences by a line break; spans in code points."""
    parts: list[str] = []
    spans: list[tuple[int, int, str]] = []
    offset = 0
    for number, sentence in enumerate(sentences):
        if number:
            parts.append("\n")
            offset += 1
        starts = []
        for index, token in enumerate(sentence.tokens):
            if index:
                parts.append(" ")
                offset += 1
            starts.append(offset)
            parts.append(token)
            offset += len(token)
        entities = sentence.entities
        ends = [start + len(token) for start, token in zip(starts, sentence.tokens, strict=True)]
        spans.extend((starts[first], ends[after - 1], label) for first, after, label in entities)
    text = "".join(parts)
    assert len(text) == offset
    return Document(document_id, text, spans)


def _split_sentence(sentence: Sentence) -> tuple[Sentence, Sentence]:
    """A lone sentence cut at the token nearest its middle that no entity straddles."""
    inside = {index for first, after, _ in sentence.entities for index in range(first + 1, after)}
    cuts = [index for index in range(1, len(sentence.tokens)) if index not in inside]
    middle = len(sentence.tokens) / 2
    cut = min(cuts, key=lambda index: abs(index - middle)) if cuts else len(sentence.tokens)
    entities = sentence.entities
    head = Sentence(sentence.tokens[:cut], [(a, b, label) for a, b, label in entities if b <= cut])
    tail = Sentence(
        sentence.tokens[cut:], [(a - cut, b - cut, label) for a, b, label in entities if a >= cut]
    )
    return head, tail


def halves(sentences: list[Sentence]) -> tuple[list[Sentence], list[Sentence]]:
    """The document cut at the sentence boundary nearest its middle (in tokens)."""
    if len(sentences) == 1:
        head, tail = _split_sentence(sentences[0])
        return [head], [tail]
    total = sum(len(sentence.tokens) for sentence in sentences)
    best, best_distance, size = 1, float("inf"), 0
    for cut in range(1, len(sentences)):
        size += len(sentences[cut - 1].tokens)
        if abs(size - total / 2) < best_distance:
            best, best_distance = cut, abs(size - total / 2)
    return sentences[:best], sentences[best:]


def write_jsonl(path: Path, documents: Iterable[Document], with_spans: bool = True) -> None:
    with path.open("w", encoding="utf-8") as stream:
        for document in documents:
            stream.write(json.dumps(document.record(with_spans), ensure_ascii=False) + "\n")


def write_keys(path: Path, decided: Sequence[Document]) -> tuple[int, int]:
    """The decided spans' surfaces in an encrypted key table, recorded as a `pseudonymize`
    run records them; returns (aliases, spans refused by the table's rules)."""
    from pseudonymizer import keyfile
    from pseudonymizer.keytable import KeyConflict, KeyTable

    table = KeyTable()
    refused = 0
    for document in decided:
        for start, end, label in document.spans:
            try:
                table.replacement_for(document.text[start:end], label, "ar", SECRET)
            except KeyConflict:
                # A surface that an earlier pseudonym already took: the table refuses it.
                refused += 1
    keyfile.save(table, path, PASSPHRASE)
    return len(table.aliases), refused


# --- The command line ------------------------------------------------------------------------


def learn(examples: Path, model: Path, args: argparse.Namespace) -> tuple[str, float]:
    """`learn --lang ar` on `examples` into `model`, with the run's seed and passes."""
    return cli(
        "learn", examples, "--lang", "ar", "--out", model,
        "--seed", args.seed, "--iterations", args.iterations,
    )  # fmt: skip


def write_partial(path: Path, decided: Path, predicted: Path) -> int:
    """`decided`, then each predicted document with only its spans of source `known` (the
    key table's occurrences), as a partial example; how many such spans."""
    count = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(decided.read_text(encoding="utf-8"))
        for line in predicted.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            spans = [
                {"start": span["start"], "end": span["end"], "label": span["label"]}
                for span in record.get("spans", [])
                if span.get("source") == "known" and span["label"] in LABELS
            ]
            count += len(spans)
            partial = {"id": record["id"], "lang": record.get("lang", "ar"),
                       "text": record["text"], "spans": spans, "partial": True}  # fmt: skip
            out.write(json.dumps(partial, ensure_ascii=False) + "\n")
    return count


def _environment() -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CLOAK_NER_MODEL_")}
    environment["CLOAK_KEYS_PASSPHRASE"] = PASSPHRASE
    environment["CLOAK_PSEUDONYM_SECRET"] = SECRET
    return environment


def cli(*arguments: str | Path) -> tuple[str, float]:
    """Run `python -m pseudonymizer ARGUMENTS`; its standard output and wall seconds."""
    command = [sys.executable, "-m", "pseudonymizer", *map(str, arguments)]
    began = time.perf_counter()
    done = subprocess.run(
        command, cwd=ROOT, env=_environment(), capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[2:])} exited {done.returncode}:\n{done.stderr}")
    return done.stdout, seconds


TOKENS_LINE = re.compile(
    r"tokens: (?P<hit>\d+)/(?P<gold>\d+) identifier tokens masked \(recall (?P<recall>[\d.]+)\), "
    r"precision (?P<precision>[\d.]+) \((?P<masked>\d+) masked\)"
)


@dataclass(frozen=True)
class Tokens:
    gold: int
    hit: int
    masked: int
    precision: float

    @property
    def recall(self) -> float:
        return self.hit / self.gold if self.gold else 1.0


def evaluate(gold: Path, pred: Path) -> Tokens:
    """`evaluate --tokens` of two files, read off its last line."""
    out, _ = cli("evaluate", gold, pred, "--tokens")
    match = TOKENS_LINE.search(out)
    if match is None:
        sys.exit(f"no token line in the output of evaluate:\n{out}")
    return Tokens(
        int(match["gold"]), int(match["hit"]), int(match["masked"]), float(match["precision"])
    )


def filtered(source: Path, labels: Sequence[str], folder: Path) -> Path:
    """A copy of a JSONL file with only the spans of `labels`."""
    target = folder / "scored" / f"{source.stem}.{'-'.join(labels)}.jsonl"
    target.parent.mkdir(exist_ok=True)
    with source.open(encoding="utf-8") as reading, target.open("w", encoding="utf-8") as out:
        for line in reading:
            if line.strip():
                record = json.loads(line)
                record["spans"] = [s for s in record["spans"] if s["label"] in labels]
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return target


@dataclass
class Row:
    protocol: str
    label: str
    recall: Tokens
    precision: Tokens


def score(protocol: str, gold: Path, pred: Path, folder: Path) -> list[Row]:
    """Token recall and precision per label, for the three together, and against every
    predicted span whatever its label."""
    rows = []
    for label in LABELS:
        only_gold = filtered(gold, [label], folder)
        masked = evaluate(only_gold, pred)
        labelled = evaluate(only_gold, filtered(pred, [label], folder))
        rows.append(Row(protocol, label, masked, labelled))
    together = evaluate(filtered(gold, LABELS, folder), filtered(pred, LABELS, folder))
    rows.append(Row(protocol, "all", together, together))
    anything = evaluate(filtered(gold, LABELS, folder), pred)
    rows.append(Row(protocol, "any label", anything, anything))
    return rows


def print_table(rows: Sequence[Row]) -> None:
    header = (
        f"{'protocol':<34} {'label':<9} {'gold tok':>8} {'masked':>7} {'tok R':>6} "
        f"{'pred tok':>8} {'tok P':>6}"
    )
    print("\n" + header)
    print("-" * len(header))
    last = ""
    for row in rows:
        name = row.protocol if row.protocol != last else ""
        last = row.protocol
        print(
            f"{name:<34} {row.label:<9} {row.recall.gold:>8} {row.recall.hit:>7} "
            f"{row.recall.recall:>6.3f} {row.precision.masked:>8} {row.precision.precision:>6.3f}"
        )


def misses(gold: Path, pred: Path, count: int) -> None:
    """The gold surfaces most often left wholly unmasked (no predicted span overlaps them)."""
    missed: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
    totals: Counter[str] = Counter()
    predicted = {}
    with pred.open(encoding="utf-8") as stream:
        for line in stream:
            record = json.loads(line)
            predicted[record["id"]] = [(s["start"], s["end"]) for s in record["spans"]]
    with gold.open(encoding="utf-8") as stream:
        for line in stream:
            record = json.loads(line)
            found = predicted[record["id"]]
            for span in record["spans"]:
                start, end, label = span["start"], span["end"], span["label"]
                totals[label] += 1
                if not any(s < end and start < e for s, e in found):
                    missed[label][record["text"][start:end]] += 1
    for label in LABELS:
        lost = sum(missed[label].values())
        share = lost / totals[label] if totals[label] else 0.0
        print(f"\n{label}: {lost}/{totals[label]} spans wholly missed ({share:.1%})")
        for surface, times in missed[label].most_common(count):
            print(f"  {times:>4}  {surface}")


# --- The bench -------------------------------------------------------------------------------


def run(args: argparse.Namespace, folder: Path) -> None:
    corpus = read_conll(args.corpus)
    if corpus.own_documents:
        documents = corpus.documents
    else:
        documents = group([sentence for doc in corpus.documents for sentence in doc])
    # Ids keep the document's place in the corpus, sampled or not.
    chosen = list(range(len(documents)))
    if 0 < args.limit_docs < len(documents):
        chosen = sorted(random.Random(args.seed).sample(chosen, args.limit_docs))
    documents = [documents[index] for index in chosen]
    whole = [render(f"d{index:04}", doc) for index, doc in zip(chosen, documents, strict=True)]
    cut = [halves(doc) for doc in documents]
    first = [render(f"d{index:04}a", head) for index, (head, _) in zip(chosen, cut, strict=True)]
    second = [render(f"d{index:04}b", tail) for index, (_, tail) in zip(chosen, cut, strict=True)]

    tokens = sum(len(s.tokens) for doc in documents for s in doc)
    print(
        f"{args.corpus}: {len(documents)} documents "
        f"({'the corpus own' if corpus.own_documents else f'{LOW_TOKENS}-{HIGH_TOKENS} tokens'}), "
        f"{sum(len(doc) for doc in documents)} sentences, {tokens} tokens, "
        f"{corpus.skipped_lines} lines without a tag skipped"
    )
    for name, docs in (("whole", whole), ("first halves", first), ("second halves", second)):
        spans = Counter(label for doc in docs for _, _, label in doc.spans)
        print(f"  {name}: " + ", ".join(f"{label} {spans[label]}" for label in LABELS))

    gold, text = folder / "gold.jsonl", folder / "text.jsonl"
    decided, second_gold, second_text = (
        folder / "decided.jsonl",
        folder / "second-gold.jsonl",
        folder / "second-text.jsonl",
    )
    write_jsonl(gold, whole)
    write_jsonl(text, whole, with_spans=False)
    write_jsonl(decided, first)
    write_jsonl(second_gold, second)
    write_jsonl(second_text, second, with_spans=False)

    timings: list[str] = []
    pred_default = folder / "pred-default.jsonl"
    _, seconds = cli("detect", text, "--lang", "ar", "-o", pred_default)
    timings.append(f"detect, whole documents {seconds:.1f} s")

    if args.default_only:
        print_table(score("1. offline default, whole docs", gold, pred_default, folder))
        print("\n" + "; ".join(timings))
        if args.misses:
            print("\nmissed by the offline default (whole documents), most frequent first:")
            misses(gold, pred_default, args.misses)
        return

    keys, model = folder / "keys.json.enc", folder / "model-ar"
    began = time.perf_counter()
    aliases, refused = write_keys(keys, first)
    timings.append(f"key table {time.perf_counter() - began:.1f} s")
    print(f"key table: {aliases} aliases from the decided spans, {refused} refused")
    out, seconds = learn(decided, model, args)
    timings.append(f"learn {seconds:.1f} s")
    print(out.rstrip())

    runs = {
        "1. offline default, whole docs": (gold, pred_default),
    }
    variants = {
        "1. offline default, second halves": (),
        "2. keys + learned, second halves": ("--keys", keys, "--learned", model),
        "   keys only, second halves": ("--keys", keys),
        "   learned only, second halves": ("--learned", model),
    }
    preds: dict[str, Path] = {}
    for number, (name, options) in enumerate(variants.items()):
        pred = folder / f"pred-second-{number}.jsonl"
        _, seconds = cli("detect", second_text, "--lang", "ar", *options, "-o", pred)
        timings.append(f"detect, {name.strip()} {seconds:.1f} s")
        runs[name] = (second_gold, pred)
        preds[name] = pred
    if args.table_occurrences:
        # The app's learner also trains on what the table proposed in documents nobody
        # finished: here, the key table's spans in the second halves, as partial examples.
        plus, model_plus = folder / "decided-plus.jsonl", folder / "model-ar-plus"
        occurrences = write_partial(plus, decided, preds["   keys only, second halves"])
        print(f"partial examples: {occurrences} occurrences the key table proposed")
        _, seconds = learn(plus, model_plus, args)
        timings.append(f"learn with the table's occurrences {seconds:.1f} s")
        name = "3. + the table's occurrences learned"
        pred = folder / "pred-second-plus.jsonl"
        _, seconds = cli(
            "detect", second_text, "--lang", "ar", "--keys", keys, "--learned", model_plus,
            "-o", pred,
        )  # fmt: skip
        timings.append(f"detect, {name} {seconds:.1f} s")
        runs[name] = (second_gold, pred)

    rows = [row for name, (g, p) in runs.items() for row in score(name, g, p, folder)]
    print_table(rows)
    print("\n" + "; ".join(timings))
    if args.misses:
        print("\nmissed by the offline default (whole documents), most frequent first:")
        misses(gold, pred_default, args.misses)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a CoNLL/BIO file (token first, tag last)")
    parser.add_argument("--limit-docs", type=int, default=0, help="a random sample of N documents")
    parser.add_argument("--seed", type=int, default=0, help="the sample's and learn's seed")
    parser.add_argument("--iterations", type=int, default=20, help="learn's passes (default 20)")
    parser.add_argument("--keep", type=Path, help="write the generated files here, and keep them")
    parser.add_argument(
        "--table-occurrences", action="store_true",
        help="also train on the key table's occurrences in the second halves (partial examples)",
    )  # fmt: skip
    parser.add_argument(
        "--default-only", action="store_true",
        help="only protocol 1, the offline default on whole documents (seconds, not minutes)",
    )  # fmt: skip
    parser.add_argument(
        "--misses", type=int, default=0, metavar="N", help="list the N most frequent misses"
    )
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        run(args, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="arabic-recall-") as folder:
            run(args, Path(folder))


if __name__ == "__main__":
    main()
