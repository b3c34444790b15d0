"""Files a hostile tester made, which the readers let through as a RecursionError, a
ValueError or a value no UTF-8 file can hold: each is a FormatError naming the file, the line
and the reason, as every bad file is."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, detect_format, read_documents
from pseudonymizer.formats.base import MAX_JSON_DEPTH

GOOD = json.dumps({"id": "a", "text": "Moshe Chaya wrote this."})
DEEP = "[" * 100_000 + "]" * 100_000


def _refusal(path: Path, fmt: str = "auto") -> FormatError:
    with pytest.raises(FormatError) as error:
        list(read_documents(path, fmt))
    return error.value


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ('{"text": "Moshe", "meta": ' + DEEP + "}", "nested more than 64 levels deep"),
        ('{"text": "Moshe", "id": ' + "7" * 5000 + "}", "a number of more than 4300 digits"),
        ('{"text": "Moshe", "x": NaN}', "NaN is not a JSON number"),
        ('{"text": "Moshe", "x": -Infinity}', "-Infinity is not a JSON number"),
    ],
)
@pytest.mark.parametrize("fmt", ["auto", "jsonl", "doccano"])
def test_a_json_line_the_decoder_cannot_take_is_refused(
    tmp_path: Path, record: str, reason: str, fmt: str
) -> None:
    path = tmp_path / "posts.jsonl"
    path.write_text(f"{GOOD}\n{record}\n")

    error = _refusal(path, fmt)

    assert (error.filename, error.line) == ("posts.jsonl", 2)
    assert reason in error.reason


def test_nesting_to_the_limit_is_read_and_past_it_refused(tmp_path: Path) -> None:
    path = tmp_path / "posts.jsonl"
    # The record itself is one level: metadata may nest MAX_JSON_DEPTH - 1 more.
    inside = _nested(MAX_JSON_DEPTH - 1)
    path.write_text(json.dumps({"text": "Moshe"})[:-1] + f', "m": {inside}}}\n')
    (document,) = read_documents(path)
    assert document.metadata["m"] == json.loads(inside)

    path.write_text(json.dumps({"text": "Moshe"})[:-1] + f', "m": {_nested(MAX_JSON_DEPTH)}}}\n')
    assert "nested more than" in _refusal(path).reason


def test_brackets_inside_strings_are_not_nesting(tmp_path: Path) -> None:
    path = tmp_path / "posts.jsonl"
    text = "[" * 500 + "{" * 500 + ' \\" ]'
    path.write_text('{"text": "' + text + '"}\n')
    (document,) = read_documents(path)
    assert document.text.startswith("[[[")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ('"x\\ud800"', "document id contains a lone surrogate"),
        ("1e999", "document id must be a string or an integer"),
    ],
)
def test_an_id_no_utf8_file_can_hold_is_refused(tmp_path: Path, value: str, reason: str) -> None:
    path = tmp_path / "posts.jsonl"
    path.write_text(f"{GOOD}\n" + '{"text": "Moshe", "id": ' + value + "}\n")

    error = _refusal(path)

    assert (error.filename, error.line) == ("posts.jsonl", 2)
    assert reason in error.reason


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ('{"k": ["\\udfff"]}', "a lone surrogate"),
        ('{"\\udfff": 1}', "a lone surrogate"),
        ('{"k": 1e999}', "a number that is not finite"),
    ],
)
def test_metadata_no_utf8_json_can_hold_is_refused(
    tmp_path: Path, metadata: str, reason: str
) -> None:
    path = tmp_path / "posts.jsonl"
    path.write_text('{"text": "Moshe", "meta": ' + metadata + "}\n")

    error = _refusal(path)

    assert (error.filename, error.line) == ("posts.jsonl", 1)
    assert reason in error.reason


def test_an_infinite_span_score_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "posts.jsonl"
    span = '{"start": 0, "end": 5, "label": "PER", "score": 1e999}'
    path.write_text('{"text": "Moshe", "spans": [' + span + "]}\n")
    assert "finite" in _refusal(path).reason


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".ndjson", ".dat"])
@pytest.mark.parametrize(
    "first",
    ['{"text": "Moshe", "m": ' + DEEP + "}", '{"text": "Moshe", "n": ' + "7" * 5000 + "}", DEEP],
)
def test_detecting_the_format_of_such_a_file_names_it_without_failing(
    tmp_path: Path, suffix: str, first: str
) -> None:
    path = tmp_path / f"posts{suffix}"
    path.write_text(first + "\n")

    detect_format(path)  # no RecursionError, no ValueError
    error = _refusal(path)

    assert (error.filename, error.line) == (path.name, 1)


def test_a_label_studio_export_the_decoder_cannot_take_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    task = {"id": 1, "data": {"text": "Moshe"}}
    cases = {
        '{"data": {"text": "Moshe"}, "m": ' + DEEP + "}": "nested more than",
        '{"data": {"text": "Moshe"}, "m": ' + _nested(200) + "}": "nested more than",
        '{"data": {"text": "Moshe", "n": ' + "1" * 5000 + "}}": "digits",
        '{"data": {"text": "Moshe", "n": NaN}}': "NaN",
        '{"data": {"text": "Moshe"}, "id": "\\ud800"}': "lone surrogate",
    }
    for bad, reason in cases.items():
        path.write_text("[\n" + json.dumps(task) + ",\n" + bad + "\n]")
        error = _refusal(path)
        assert (error.filename, error.line) == ("export.json", 3), bad[:40]
        assert reason in error.reason


def test_offsets_of_thousands_of_digits_are_refused(tmp_path: Path) -> None:
    huge = "9" * 5000
    brat = tmp_path / "brat.zip"
    with zipfile.ZipFile(brat, "w") as archive:
        archive.writestr("a.txt", "Moshe Chaya")
        archive.writestr("a.ann", f"T1\tPER 0 5\tMoshe\nT2\tPER 6 {huge}\tChaya\n")
    error = _refusal(brat)
    assert (error.filename, error.line) == ("brat.zip/a.ann", 2)
    assert "offset of 5000 digits" in error.reason

    webanno = tmp_path / "doc.tsv"
    webanno.write_text(
        "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Entity|value\n\n\n"
        "#Text=Moshe\n" + f"1-1\t0-{huge}\tMoshe\tPER\t\n"
    )
    error = _refusal(webanno)
    assert (error.filename, error.line) == ("doc.tsv", 6)
    assert "offset of 5000 digits" in error.reason

    webanno.write_text(f"#FORMAT=WebAnno TSV 3.{huge}\n")
    assert "not WebAnno TSV 3" in _refusal(webanno).reason
