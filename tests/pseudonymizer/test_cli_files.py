"""The command line's inputs and outputs, on their own (the commands are tested through
`python -m pseudonymizer` in test_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudonymizer.cli.files import (
    CliError,
    batches,
    document_language,
    document_name,
    output_stream,
    read_inputs,
)
from pseudonymizer.formats import ImportedDocument


def test_batches_cut_documents_in_lists_of_the_size_the_last_shorter() -> None:
    documents = [ImportedDocument(text=str(number)) for number in range(5)]
    assert [[d.text for d in batch] for batch in batches(documents, 2)] == [
        ["0", "1"],
        ["2", "3"],
        ["4"],
    ]


def test_a_document_is_named_by_its_id_else_its_file_and_line() -> None:
    assert document_name(ImportedDocument("x", external_id="doc-7", filename="a.jsonl")) == "doc-7"
    assert document_name(ImportedDocument("x", filename="a.jsonl", line=3)) == "a.jsonl:3"
    assert document_name(ImportedDocument("x", filename="notes.txt")) == "notes.txt"


def test_a_document_without_a_language_is_a_usage_error() -> None:
    with pytest.raises(CliError, match="give --lang") as raised:
        document_language(ImportedDocument("x", filename="notes.txt"))
    assert raised.value.status == 2


def test_lang_overrides_what_the_documents_say_and_a_missing_file_is_a_usage_error(
    tmp_path: Path,
) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("Moshe wrote.", encoding="utf-8")
    assert [d.language for d in read_inputs([str(source)], "auto", "fr")] == ["fr"]
    with pytest.raises(CliError) as raised:
        list(read_inputs([str(tmp_path / "absent.txt")], "auto", None))
    assert raised.value.status == 2


def test_an_output_file_appears_only_when_the_run_succeeds(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    with pytest.raises(RuntimeError), output_stream(str(target)) as stream:
        stream.write("half")
        raise RuntimeError("the run failed")
    assert not target.exists() and list(tmp_path.iterdir()) == []
    with output_stream(str(target)) as stream:
        stream.write("whole")
    assert target.read_text(encoding="utf-8") == "whole"
