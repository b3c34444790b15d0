from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pseudonymizer.recognizers.base import Recognizer, RecognizerError
from pseudonymizer.recognizers.loading import ner_recognizer
from pseudonymizer.recognizers.ner import TransformersNerRecognizer, canonical_label
from pseudonymizer.spans import Span
from tests.pseudonymizer.recognizers.tiny_model import MAX_LENGTH

FILLER = "the book is on the table and we read it again".split()


def filler(count: int) -> str:
    return " ".join(FILLER[index % len(FILLER)] for index in range(count))


def found(recognizer: TransformersNerRecognizer, text: str) -> list[tuple[str, str]]:
    return [(span.surface(text), span.label) for span in recognizer.recognize([text], "en")[0]]


@pytest.fixture(scope="module")
def recognizer(tiny_ner_model: Path) -> TransformersNerRecognizer:
    return TransformersNerRecognizer(str(tiny_ner_model), device="cpu", batch_size=4)


def test_it_is_a_recognizer(recognizer: TransformersNerRecognizer) -> None:
    assert isinstance(recognizer, Recognizer)
    assert recognizer.name == "ner"


def test_it_finds_people_and_places_at_code_point_offsets(
    recognizer: TransformersNerRecognizer,
) -> None:
    text = "😀 Moshe Chaya lives in Lyon."

    [spans] = recognizer.recognize([text], "en")

    assert [(span.start, span.end, span.label, span.source) for span in spans] == [
        (2, 13, "PER", "ner"),
        (23, 27, "LOC", "ner"),
    ]
    assert all(isinstance(span.score, float) and 0.5 < span.score <= 1 for span in spans)


def test_it_finds_the_last_entity_of_a_text_far_longer_than_the_model_takes(
    recognizer: TransformersNerRecognizer,
) -> None:
    text = filler(300) + " Moshe Chaya"
    assert len(text.split()) > 4 * MAX_LENGTH

    [spans] = recognizer.recognize([text], "en")

    assert spans == [Span(len(text) - 11, len(text), "PER", spans[0].score, "ner")]


def test_it_finds_entities_in_every_window_of_a_long_text(
    recognizer: TransformersNerRecognizer,
) -> None:
    names = ["Moshe Chaya", "Lyon", "Sarah Cohen", "Paris", "Acme Corp", "Karim Benali"]
    text = " ".join(f"{filler(37)} {name}" for name in names) + " ."

    assert [surface for surface, _ in found(recognizer, text)] == names


@pytest.mark.parametrize("stride", [None, 0])
def test_an_entity_across_a_window_edge_comes_out_once_and_whole(
    tiny_ner_model: Path, stride: int | None
) -> None:
    # Sliding the name over every position crosses each window edge; with no overlap
    # (stride 0) the halves come from two windows and must be joined.
    recognizer = TransformersNerRecognizer(str(tiny_ner_model), device="cpu", stride=stride)
    for before in range(recognizer.window_tokens - 4, 2 * recognizer.window_tokens + 4):
        text = f"{filler(before)} Moshe Chaya lives in Lyon . {filler(70)}"

        assert found(recognizer, text) == [("Moshe Chaya", "PER"), ("Lyon", "LOC")], before


def test_a_smaller_max_length_makes_smaller_windows_and_misses_nothing(
    tiny_ner_model: Path,
) -> None:
    recognizer = TransformersNerRecognizer(str(tiny_ner_model), device="cpu", max_length=24)
    text = filler(100) + " Sarah Cohen lives in Paris"

    assert recognizer.window_tokens == 20
    assert found(recognizer, text) == [("Sarah Cohen", "PER"), ("Paris", "LOC")]


def test_a_batch_finds_what_one_text_at_a_time_finds(
    recognizer: TransformersNerRecognizer,
) -> None:
    texts = [
        "Sarah Cohen works for Acme Corp in Paris .",
        "",
        filler(150) + " Tom Reddle met Ana Silva in London . " + filler(40),
        "the book is on the table",
        "  Karim Benali\r\nvisited Rabat 🎉",
    ]

    batched = recognizer.recognize(texts, "en")
    alone = [recognizer.recognize([text], "en")[0] for text in texts]

    # Padding a batch changes the arithmetic, so scores agree to float precision only.
    def without_score(spans: list[Span]) -> list[Span]:
        return [replace(span, score=None) for span in spans]

    assert [without_score(s) for s in batched] == [without_score(s) for s in alone]
    for batch_spans, alone_spans in zip(batched, alone, strict=True):
        for a, b in zip(batch_spans, alone_spans, strict=True):
            assert a.score == pytest.approx(b.score, abs=1e-4)
    pairs = zip(texts, batched, strict=True)
    assert [[span.surface(text) for span in spans] for text, spans in pairs] == [
        ["Sarah Cohen", "Acme Corp", "Paris"],
        [],
        ["Tom Reddle", "Ana Silva", "London"],
        [],
        ["Karim Benali", "Rabat"],
    ]


def test_a_missing_model_is_a_recognizer_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    recognizer = TransformersNerRecognizer(str(missing), device="cpu")

    with pytest.raises(RecognizerError, match="no-such-model"):
        recognizer.recognize(["Moshe Chaya lives in Lyon."], "en")


def test_a_folder_without_a_model_is_a_recognizer_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")

    with pytest.raises(RecognizerError, match="cannot be loaded"):
        TransformersNerRecognizer(str(tmp_path), device="cpu").load()


def test_model_labels_map_onto_canonical_ones() -> None:
    assert [
        canonical_label(label)
        for label in ["B-PER", "I-PERSON", "PER", "GPE", "B-LOCATION", "ORGANIZATION", "NORP"]
    ] == ["PER", "PER", "PER", "LOC", "LOC", "ORG", "MISC"]
    assert canonical_label("TIME") == "DATE"
    assert canonical_label("b-email") == "EMAIL"


def test_a_model_spec_resolves_to_one_recognizer_per_process(tiny_ner_model: Path) -> None:
    assert ner_recognizer("") is None
    first = ner_recognizer(str(tiny_ner_model), device="cpu")

    assert isinstance(first, TransformersNerRecognizer)
    assert ner_recognizer(str(tiny_ner_model), device="cpu") is first


def test_importing_the_recognizers_does_not_import_torch() -> None:
    code = (
        "import sys\n"
        "import pseudonymizer.recognizers.ner, pseudonymizer.recognizers.spacy_ner\n"
        "import pseudonymizer.recognizers.loading\n"
        "heavy = {'torch', 'transformers', 'spacy', 'tokenizers'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[3])
