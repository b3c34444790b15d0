"""`legal-en-tab`: the ten TAB development judgments this repository ships
(`tests/data/tab/echr_dev_sample.json`), with each annotator's spans. The test excerpt beside
it (`echr_test_sample.json`, TAB's held-out split) is never read."""

from __future__ import annotations

import json
from collections import Counter

from bench.devdata import Document, Licence, Provenance, SetSpec, Snapshot, Span, merge_spans

PATH = "tests/data/tab/echr_dev_sample.json"
MASKED = frozenset({"DIRECT", "QUASI"})
LABELS: dict[str, str | None] = {
    "PERSON": "PER",
    "LOC": "LOC",
    "ORG": "ORG",
    "DATETIME": "DATE",
    "CODE": "ID",
    "DEM": "MISC",
    "QUANTITY": "MISC",
    "MISC": "MISC",
}


def convert(snapshot: Snapshot) -> tuple[list[Document], Provenance]:
    documents = []
    skipped: Counter[str] = Counter()
    for judgment in json.loads(snapshot.read_text(PATH)):
        text = judgment["text"]
        annotators: dict[str, list[Span]] = {}
        for name, annotation in judgment["annotations"].items():
            spans = set()
            for mention in annotation["entity_mentions"]:
                start, end = mention["start_offset"], mention["end_offset"]
                assert text[start:end] == mention["span_text"], (judgment["doc_id"], mention)
                label = LABELS[mention["entity_type"]]
                if mention["identifier_type"] not in MASKED or label is None:
                    skipped[mention["identifier_type"]] += 1
                    continue
                spans.add(Span(start, end, label))
            annotators[name] = sorted(spans)
        union = merge_spans(annotators.values())
        documents.append(
            Document(judgment["doc_id"], "en", "legal", text, union, annotators=annotators)
        )
    notes = [f"{n} mentions skipped as {kind}" for kind, n in sorted(skipped.items())]
    return documents, snapshot.provenance(
        licence=Licence("MIT", "tests/data/tab/NOTICE.md", "TAB is released under the MIT License"),
        description=(
            "Ten English judgments of the European Court of Human Rights from the development "
            "split of the Text Anonymization Benchmark (TAB v1.0, Pilán et al., Computational "
            "Linguistics 48(4), 2022; github:NorskRegnesentral/text-anonymization-benchmark), "
            "annotated for anonymization by one to ten annotators each, as excerpted into "
            "this repository (`tests/data/tab/NOTICE.md` says how). Domain: legal, English."
        ),
        conversion=[
            f"Each judgment of `{PATH}` is one document, id its `doc_id`, text its `text`. "
            "Each annotator's mentions whose `identifier_type` is DIRECT or QUASI (the ones "
            "to mask) become that annotator's spans in `annotators` (offsets `start_offset`/"
            "`end_offset`, checked against `span_text`); `spans` is their union, one span "
            "per distinct (start, end) with the label most annotators gave it. The bench "
            "averages recall over annotators, as TAB does, and scores precision against the "
            "union.",
            "The file is read from this repository's git objects at the commit named above "
            "(what is committed, not the work tree).",
        ],
        labels=LABELS,
        notes=notes,
    )


SET = SetSpec("legal-en-tab", "", convert, withheld=("tests/data/tab/echr_test*",))
