from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, labelstudio, read_documents
from pseudonymizer.formats._common import Context, iter_text_chunks
from tests.pseudonymizer.formats.helpers import surfaces


def test_it_takes_the_last_annotation_that_was_not_cancelled(data: Path) -> None:
    task = next(read_documents(data / "labelstudio.json"))

    assert task.external_id == "12"
    assert task.line == 2
    # The cancelled annotation (Moshe as LOC), the prediction, the relation and the choice
    # are not imported.
    assert surfaces(task) == [
        ("USERNAME", "@marie.delattre1"),
        ("PER", "Moshe Chaya"),
        ("ADDRESS", "Rue Alphonse Metayer"),
    ]
    assert task.language == "en"
    assert task.metadata == {"source": "telegram"}
    assert all(span.score is None for span in task.spans)


def test_without_annotations_it_takes_the_first_prediction_with_its_scores(data: Path) -> None:
    _, task, _ = read_documents(data / "labelstudio.json")

    # This export counted UTF-16 units (two emoji before the spans): converted.
    assert surfaces(task) == [("PER", "Tom Reddle"), ("PHONE", "+44 7700 900461")]
    assert [span.score for span in task.spans] == [0.93, 0.87]


def test_the_text_is_the_first_string_of_data_when_there_is_no_text_key(data: Path) -> None:
    *_, task = read_documents(data / "labelstudio.json", language="en")

    assert task.text == "قابلت Moshe في Paris"
    assert task.language == "ar"
    assert surfaces(task) == [("PER", "Moshe"), ("LOC", "Paris")]


def test_it_reads_a_file_holding_one_task_object(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    task = {"id": 7, "data": {"text": "Hi Moshe"}, "annotations": [], "predictions": []}
    path.write_text(json.dumps(task), encoding="utf-8")

    (document,) = read_documents(path)

    assert (document.external_id, document.text, document.spans) == ("7", "Hi Moshe", [])


def test_it_parses_the_array_incrementally_across_chunk_edges(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def tiny_chunks(stream: io.BufferedIOBase, name: str) -> Iterator[str]:
        return iter_text_chunks(stream, name, size=7)  # type: ignore[arg-type]

    whole = list(read_documents(data / "labelstudio.json"))
    monkeypatch.setattr(labelstudio, "iter_text_chunks", tiny_chunks)

    chunked = list(read_documents(data / "labelstudio.json"))

    assert [(d.text, d.spans, d.line) for d in chunked] == [
        (d.text, d.spans, d.line) for d in whole
    ]


def test_it_refuses_a_region_whose_text_matches_neither_count(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    region = {"start": 0, "end": 5, "text": "Tom R", "labels": ["PER"]}
    result = [{"type": "labels", "value": region}]
    tasks = [{"id": 1, "data": {"text": "Moshe Chaya"}, "annotations": [{"result": result}]}]
    path.write_text(json.dumps(tasks, indent=2), encoding="utf-8")

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert (error.value.filename, error.value.line) == ("export.json", 2)
    assert error.value.reason == "span text 'Tom R' does not match the document ('Moshe')"


def test_it_names_the_line_of_a_json_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text('[\n  {"id": 1, "data": {"text": "a"}},\n  {"id": 2,, }\n]', encoding="utf-8")

    documents = read_documents(path)
    assert next(documents).external_id == "1"
    with pytest.raises(FormatError) as error:
        next(documents)

    assert error.value.line == 3
    assert error.value.reason.startswith("invalid JSON")


def test_a_stream_reader_reads_no_further_than_it_needs(tmp_path: Path) -> None:
    tasks = [{"id": n, "data": {"text": f"text {n} " + "x" * 5000}} for n in range(200)]
    raw = io.BytesIO(json.dumps(tasks).encode())

    documents = labelstudio.read(raw, Context(name="big.json", stem="big"))
    assert next(documents).external_id == "0"

    assert raw.tell() < len(raw.getvalue()) / 10
