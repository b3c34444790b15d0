from __future__ import annotations

from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, detect_format, read_documents
from tests.pseudonymizer.formats.helpers import ACUTE, surfaces


def test_docstart_lines_separate_documents_and_blank_lines_sentences(data: Path) -> None:
    assert detect_format(data / "conll2003.conll") == "conll"

    first, second = read_documents(data / "conll2003.conll", language="en")

    assert first.text == "EU rejects German call .\nMoshe Chaya 🎉 ."
    assert surfaces(first) == [("ORG", "EU"), ("MISC", "German"), ("PER", "Moshe Chaya")]
    assert (first.external_id, first.line, first.language) == (None, 1, "en")
    assert second.external_id == "doc-b"
    assert second.line == 14  # its -DOCSTART- line


def test_it_reads_iob1_and_bioes_tags(data: Path) -> None:
    _, second = read_documents(data / "conll2003.conll")

    assert second.text == f"Peter Blackburn met Jos{ACUTE} in New York قابلت Ahmed Benali ."
    assert surfaces(second) == [
        ("PER", "Peter Blackburn"),  # I-PER I-PER (IOB1)
        ("PER", f"Jos{ACUTE}"),  # S-PER
        ("LOC", "New York"),  # B-LOC E-LOC
        ("PER", "Ahmed Benali"),  # B-PER L-PER
    ]


def test_without_docstart_every_block_is_a_document(tmp_path: Path) -> None:
    path = tmp_path / "tweets.conll"
    path.write_text(
        "# id = t1\n#savethewhales\tB-HASHTAG\nby\tO\n@moshe\tB-USERNAME\n\r\n"
        "Moshe B-PER\nChaya I-PER\nLOC I-LOC\n",
        encoding="utf-8",
    )

    first, second = read_documents(path)

    assert (first.external_id, first.line, first.text) == ("t1", 1, "#savethewhales by @moshe")
    assert surfaces(first) == [("HASHTAG", "#savethewhales"), ("USERNAME", "@moshe")]
    # An I- tag with another label than the open span starts a new span.
    assert surfaces(second) == [("PER", "Moshe Chaya"), ("LOC", "LOC")]
    assert second.line == 6


def test_it_refuses_a_line_without_a_tag(tmp_path: Path) -> None:
    path = tmp_path / "bad.conll"
    path.write_text("Moshe B-PER\nChaya\n", encoding="utf-8")

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert (error.value.line, error.value.reason) == (
        2,
        "expected a token and a tag, found 'Chaya'",
    )
