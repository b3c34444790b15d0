from __future__ import annotations

from pathlib import Path

import pytest

from pseudonymizer.formats import FORMATS, FormatError, detect_format


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("cloak.jsonl", "jsonl"),
        ("doccano.jsonl", "doccano"),
        ("corpus.csv", "csv"),
        ("conll2003.conll", "conll"),
        ("brat/post-7.ann", "brat"),
        ("labelstudio.json", "labelstudio"),
        ("webanno.tsv", "webanno"),
        ("inline_cloaked.txt", "inline"),
        ("inline_multigrascco.txt", "inline"),
    ],
)
def test_it_tells_each_fixture_format(data: Path, name: str, fmt: str) -> None:
    assert detect_format(data / name) == fmt
    assert fmt in FORMATS


@pytest.mark.parametrize(
    ("source", "fmt"),
    [
        ("webanno.tsv", "webanno"),
        ("conll2003.conll", "conll"),
        ("cloak.jsonl", "jsonl"),
        ("doccano.jsonl", "doccano"),
        ("labelstudio.json", "labelstudio"),
        ("inline_multigrascco.txt", "inline"),
    ],
)
def test_without_a_known_extension_it_looks_at_the_content(
    data: Path, tmp_path: Path, source: str, fmt: str
) -> None:
    path = tmp_path / "upload.dat"
    path.write_bytes((data / source).read_bytes())

    assert detect_format(path) == fmt


def test_it_says_when_it_cannot_tell(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Some notes\n\nNothing to see.\n", encoding="utf-8")

    with pytest.raises(FormatError) as error:
        detect_format(path)

    assert error.value.reason == (
        "cannot tell the format of notes.md from its name or its content: name its format"
    )


def test_a_tsv_that_is_not_webanno_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "table.tsv"
    path.write_text("id\ttext\n1\tHello\n", encoding="utf-8")

    with pytest.raises(FormatError, match="WebAnno TSV 3"):
        detect_format(path)
