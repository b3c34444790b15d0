from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, detect_format, read_documents
from tests.pseudonymizer.formats.helpers import ACUTE, surfaces

EXPECTED = [
    ("PER", "Moshe Chaya"),
    ("LOC", f"Orl{ACUTE}ans"),
    ("PER", "Ahmed Benali"),
    ("ADDRESS", "Rue Alphonse Metayer"),
]


@pytest.mark.parametrize("member", ["post-7.ann", "post-7.txt"])
def test_it_reads_a_pair_from_either_file(data: Path, member: str) -> None:
    assert detect_format(data / "brat" / member) == "brat"

    (document,) = read_documents(data / "brat" / member, language="en")

    assert document.external_id == "post-7"
    assert surfaces(document) == EXPECTED
    assert document.language == "en"


def test_it_counts_crlf_as_two_characters_and_keeps_it(data: Path) -> None:
    (document,) = read_documents(data / "brat" / "post-7.ann")

    assert document.text == (data / "brat" / "post-7.txt").read_bytes().decode("utf-8")
    assert document.text.count("\r\n") == 2


def test_it_refuses_an_ann_without_its_txt(data: Path, tmp_path: Path) -> None:
    shutil.copy(data / "brat" / "post-7.ann", tmp_path / "alone.ann")

    with pytest.raises(FormatError, match=r"no \.txt file beside it"):
        list(read_documents(tmp_path / "alone.ann"))


def test_it_refuses_a_span_whose_stated_text_differs(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("Moshe Chaya wrote.", encoding="utf-8")
    (tmp_path / "d.ann").write_text("T1\tPER 0 11\tMoshe Chaya\nT2\tPER 0 5\tChaya\n")

    with pytest.raises(FormatError) as error:
        list(read_documents(tmp_path / "d.ann"))

    assert (error.value.filename, error.value.line) == ("d.ann", 2)
    assert error.value.reason == "span text 'Chaya' does not match the document ('Moshe')"
