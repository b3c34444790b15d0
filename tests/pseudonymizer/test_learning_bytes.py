"""A learned model as bytes: trained, saved and loaded without a file, the same model."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pseudonymizer.learning import (
    BYTES_TAG,
    Example,
    LearnedRecognizer,
    LearningError,
    load,
    loads,
    train,
    train_bytes,
)
from tests.pseudonymizer.test_learning import english_examples, spans_of


def found(model: LearnedRecognizer, text: str) -> list[tuple[str, str]]:
    return [(span.surface(text), span.label) for span in model(text)]


def test_a_model_trained_as_bytes_finds_what_the_folders_model_finds(tmp_path: Path) -> None:
    examples = english_examples()
    data, report = train_bytes(examples, "en", iterations=10, seed=0, held_out_share=0.2)
    train(examples, "en", tmp_path / "en", iterations=10, seed=0, held_out_share=0.2)
    text = "Yesterday Alice Durand travelled to Grenoble for work."

    in_memory = loads(data)

    assert found(in_memory, text) == found(load(tmp_path / "en"), text)
    assert ("Alice Durand", "PER") in found(in_memory, text)
    assert in_memory.path is None and in_memory.language == "en"
    assert in_memory.labels == ["LOC", "PER"] == report.labels
    assert in_memory.meta["held_out"] == report.held_out == 6
    assert in_memory.meta["held_out_indexes"] == report.held_out_indexes
    held = [examples[index] for index in report.held_out_indexes]
    assert in_memory.score(held) == report.scores  # the bytes hold the model that was scored
    assert list(tmp_path.iterdir()) == [tmp_path / "en"]  # train_bytes wrote nothing


def test_a_folder_model_as_bytes_loads_back_the_same(tmp_path: Path) -> None:
    train(english_examples(), "en", tmp_path / "en", iterations=8, seed=0)
    folder = load(tmp_path / "en")
    text = "We called Tom Reddle twice.\r\nNo answer from Lyon yet."

    again = loads(folder.to_bytes())

    assert found(again, text) == found(folder, text)
    assert again.meta == folder.meta


def test_the_arabic_tokenizer_survives_the_bytes() -> None:
    person, place = "أحمد بن سلمان", "الرياض"
    rng = random.Random(0)
    examples = []
    for _ in range(20):
        text = f"وصل {person} إلى {place} أمس، وقال و{person} إنه سعيد ب{place}{rng.choice('.!')}"
        examples.append(
            Example(text=text, spans=spans_of(text, person, "PER") + spans_of(text, place, "LOC"))
        )
    data, _ = train_bytes(examples, "ar", iterations=10)

    model = loads(data)

    text = f"قال و{person} إنه في {place}."
    assert (person, "PER") in found(model, text)  # its و cut off, as the folder's model does


@pytest.mark.parametrize(
    "data", [b"", b"not a model", BYTES_TAG + b"\x00\x00\x00\x05{bad", BYTES_TAG + b"\x00\x00"]
)
def test_bytes_that_are_not_a_model_are_a_clear_error(data: bytes) -> None:
    with pytest.raises(LearningError):
        loads(data)
