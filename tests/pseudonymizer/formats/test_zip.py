from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, ReadLimits, detect_format, read_documents
from pseudonymizer.formats.zip import _Budget, _Counted
from tests.pseudonymizer.formats.helpers import surfaces


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def test_each_text_member_is_a_document_named_by_its_path(tmp_path: Path) -> None:
    path = _zip(
        tmp_path / "letters.zip",
        {
            "letters/a.txt": "Cher Moshe,\r\nà bientôt".encode(),
            "letters/b.txt": b'Shoutout to <to_pseudonym type="PER">Tom</to_pseudonym>',
            "letters/": b"",
            "__MACOSX/letters/._a.txt": b"\x00\x05junk",
            "letters/.DS_Store": b"\x00\x00",
        },
    )
    assert detect_format(path) == "zip"

    first, second = read_documents(path, language="fr")

    assert (first.external_id, first.text, first.filename) == (
        "letters/a",
        "Cher Moshe,\r\nà bientôt",
        "letters.zip/letters/a.txt",
    )
    assert first.language == "fr"
    assert second.text == "Shoutout to Tom"
    assert surfaces(second) == [("PER", "Tom")]


def test_a_zip_with_ann_files_is_read_as_brat_pairs(data: Path, tmp_path: Path) -> None:
    brat = data / "brat"
    path = _zip(
        tmp_path / "brat.zip",
        {
            "corpus/post-7.txt": (brat / "post-7.txt").read_bytes(),
            "corpus/post-7.ann": (brat / "post-7.ann").read_bytes(),
            "corpus/post-8.txt": b"Nothing annotated <NAME> here </NAME>",
            "annotation.conf": b"[entities]\nPER\n",
        },
    )

    with_spans, without = read_documents(path)

    assert with_spans.external_id == "corpus/post-7"
    assert [label for label, _ in surfaces(with_spans)] == ["PER", "LOC", "PER", "ADDRESS"]
    assert "\r\n" in with_spans.text
    # Not an inline file in a BRAT zip: the tags stay text.
    assert (without.external_id, without.spans) == ("corpus/post-8", [])


def test_members_in_line_formats_are_read_with_their_own_reader(data: Path, tmp_path: Path) -> None:
    path = _zip(
        tmp_path / "mixed.zip",
        {
            "cloak.jsonl": (data / "cloak.jsonl").read_bytes(),
            "doccano.jsonl": (data / "doccano.jsonl").read_bytes(),
            "corpus.csv": (data / "corpus.csv").read_bytes(),
            "conll2003.conll": (data / "conll2003.conll").read_bytes(),
        },
    )

    documents = list(read_documents(path))

    assert len(documents) == 3 + 2 + 3 + 2
    assert documents[3].filename == "mixed.zip/doccano.jsonl"
    assert surfaces(documents[3])[0] == ("ORG", "EU")


def test_errors_name_the_member_and_its_line(tmp_path: Path) -> None:
    path = _zip(tmp_path / "up.zip", {"a.jsonl": b'{"text": "ok"}\n{"text": ""}\n'})

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert (error.value.filename, error.value.line, error.value.reason) == (
        "up.zip/a.jsonl",
        2,
        "empty document",
    )


def test_duplicate_ids_across_members_are_refused(tmp_path: Path) -> None:
    path = _zip(
        tmp_path / "up.zip",
        {"a.jsonl": b'{"id": "x", "text": "one"}\n', "b.jsonl": b'{"id": "x", "text": "two"}\n'},
    )

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert (error.value.filename, error.value.line) == ("up.zip/b.jsonl", 1)
    assert error.value.reason == "duplicate id 'x' (first at up.zip/a.jsonl:1)"


def test_it_refuses_a_member_it_cannot_read(tmp_path: Path) -> None:
    path = _zip(tmp_path / "up.zip", {"a.txt": b"fine", "scan.pdf": b"%PDF-1.7"})

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert error.value.filename == "up.zip/scan.pdf"


def test_it_refuses_an_archive_declaring_more_than_the_limit(tmp_path: Path) -> None:
    path = _zip(tmp_path / "big.zip", {"a.txt": b"x" * 5000, "b.txt": b"y" * 5000})

    with pytest.raises(FormatError) as error:
        list(read_documents(path, limits=ReadLimits(max_bytes=8000)))

    assert error.value.reason == "the archive expands to 10000 bytes, over the limit of 8000"


def test_bytes_really_decompressed_are_counted_whatever_the_sizes_declare() -> None:
    stream = io.BufferedReader(_Counted(io.BytesIO(b"z" * 100_000), _Budget(50_000, "a.zip")))

    with pytest.raises(FormatError) as error:
        stream.read()

    assert error.value.filename == "a.zip"
    assert "looks like a zip bomb" in error.value.reason
