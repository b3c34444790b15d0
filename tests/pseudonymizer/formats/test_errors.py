"""A bad file is refused with its name, the line and the reason."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, ReadLimits, read_documents


def _refusal(path: Path, fmt: str = "auto", **options: object) -> FormatError:
    with pytest.raises(FormatError) as error:
        list(read_documents(path, fmt, **options))  # type: ignore[arg-type]
    return error.value


def test_it_refuses_a_file_with_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    good = b'{"text": "caf\xc3\xa9"}\n'
    path.write_bytes(good + good + b'{"text": "caf\xe9"}\n')

    error = _refusal(path)

    assert (error.filename, error.line) == ("c.jsonl", 3)
    assert error.reason == f"invalid UTF-8 at byte {2 * len(good) + 13}"


def test_it_refuses_invalid_utf8_in_a_whole_file_format_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "doc.txt"
    path.write_bytes(b"line one\r\nline two \xff\r\n")

    error = _refusal(path)

    assert (error.filename, error.line, error.reason) == ("doc.txt", 2, "invalid UTF-8 at byte 19")


def test_it_refuses_a_span_outside_the_text(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        json.dumps({"text": "Moshe", "spans": [{"start": 0, "end": 9, "label": "PER"}]}) + "\n"
    )

    error = _refusal(path)

    assert (error.filename, error.line) == ("c.jsonl", 1)
    assert error.reason == "span [0, 9) lies outside the text (5 characters)"


def test_it_refuses_a_span_whose_stated_text_does_not_match(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    # Offsets counted in UTF-16 units, as a browser would: one too far after the emoji.
    span = {"start": 3, "end": 8, "label": "PER", "text": "Moshe"}
    path.write_text("\n" + json.dumps({"text": "🎉 Moshe Chaya", "spans": [span]}) + "\n")

    error = _refusal(path)

    assert (error.filename, error.line) == ("c.jsonl", 2)
    assert error.reason == "span text 'Moshe' does not match the document ('oshe ')"


def test_it_refuses_a_duplicate_id_naming_the_second_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    lines = [{"id": "a", "text": "one"}, {"id": "b", "text": "two"}, {"id": "a", "text": "three"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    error = _refusal(path)

    assert (error.filename, error.line, error.reason) == (
        "c.jsonl",
        3,
        "duplicate id 'a' (first at line 1)",
    )


def test_it_refuses_an_empty_document(tmp_path: Path) -> None:
    path = tmp_path / "blank.txt"
    path.write_bytes(b" \r\n\t\r\n")

    error = _refusal(path)

    assert (error.filename, error.line, error.reason) == ("blank.txt", 1, "empty document")


def test_it_refuses_a_discontinuous_brat_span(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("Moshe and Chaya", encoding="utf-8")
    (tmp_path / "d.ann").write_text("T1\tPER 0 5\tMoshe\nT2\tPER 0 5;10 15\tMoshe Chaya\n")

    error = _refusal(tmp_path / "d.ann")

    assert (error.filename, error.line, error.reason) == (
        "d.ann",
        2,
        "discontinuous span T2 is not supported",
    )


def test_it_refuses_a_zip_bomb(tmp_path: Path) -> None:
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("ok.txt", b"a real document")
        archive.writestr("zeros.txt", bytes(4 * 1024 * 1024))

    error = _refusal(path)

    assert error.filename == "bomb.zip/zeros.txt"
    assert error.reason.endswith("over the limit of 200: looks like a zip bomb")


def test_it_refuses_a_file_over_the_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 2000)

    error = _refusal(path, limits=ReadLimits(max_bytes=1000), filename="upload.txt")

    assert (error.filename, error.line) == ("upload.txt", 0)
    assert error.reason == "file is 2000 bytes, over the limit of 1000"


def test_it_refuses_a_bad_conll_tag(tmp_path: Path) -> None:
    path = tmp_path / "ner.conll"
    path.write_text("-DOCSTART- -X- -X- O\n\nMoshe B-PER\nChaya PER\n", encoding="utf-8")

    error = _refusal(path)

    assert (error.filename, error.line) == ("ner.conll", 4)
    assert error.reason.startswith("invalid tag 'PER'")


def test_it_refuses_an_unclosed_inline_tag(tmp_path: Path) -> None:
    path = tmp_path / "tagged.txt"
    path.write_text("Hello\r\n<NAME_PATIENT>John Smith\r\nand more</NAME_PATIENT> <DATE>today")

    error = _refusal(path)

    assert (error.filename, error.line, error.reason) == (
        "tagged.txt",
        3,
        "tag <DATE> is never closed",
    )


def test_it_refuses_a_csv_without_its_text_column(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text("id,body,lang\n1,Hello,en\n", encoding="utf-8")

    error = _refusal(path)

    assert (error.filename, error.line) == ("c.csv", 1)
    assert error.reason == "no 'text' column; the columns are: id, body, lang"


def test_it_refuses_an_unknown_format_name(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("Hello", encoding="utf-8")

    error = _refusal(path, "docx")

    assert error.reason.startswith("unknown format 'docx'")
