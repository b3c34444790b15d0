"""Gold spans of the sample corpora, for tests that run every suggestion rule over real shapes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests.data import SAMPLE_CORPUS

ROOT = Path(__file__).parents[3]
# The sample corpus the tests carry, and the demo's.
CORPORA = (SAMPLE_CORPUS, ROOT / "annotator/demo/corpus.jsonl")
SECRET = "project-secret"


@dataclass(frozen=True)
class GoldSpan:
    document: str
    language: str
    label: str
    text: str

    def __str__(self) -> str:
        return f"{self.document}:{self.label}:{self.text}"


def gold_spans(*labels: str) -> list[GoldSpan]:
    """Every distinct (language, label, text) span of the sample corpora with one of `labels`."""
    spans: dict[tuple[str, str, str], GoldSpan] = {}
    for corpus in CORPORA:
        for line in corpus.read_text(encoding="utf-8").splitlines():
            document = json.loads(line)
            for span in document["spans"]:
                text = document["text"][span["start"] : span["end"]]
                if span["label"] in labels:
                    key = (document["lang"], span["label"], text)
                    spans.setdefault(key, GoldSpan(document["id"], *key))
    return list(spans.values())
