"""Readers stream: a big file is never held in memory whole."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

from pseudonymizer.formats import jsonl, read_documents
from pseudonymizer.formats._common import Context

LINES = 20_000


def _write_jsonl(path: Path) -> int:
    filler = "Moshe Chaya wrote from Rue Alphonse Metayer. " * 50
    with path.open("w", encoding="utf-8") as out:
        for number in range(LINES):
            text = f"🎉 {filler}{number}"
            span = {"start": 2, "end": 13, "label": "PER", "text": "Moshe Chaya"}
            out.write(json.dumps({"id": f"d{number}", "text": text, "spans": [span]}) + "\n")
    return path.stat().st_size


def test_a_big_jsonl_file_is_read_in_little_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    size = _write_jsonl(path)

    tracemalloc.start()
    try:
        count = sum(1 for _ in read_documents(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert count == LINES
    assert size > 45_000_000
    # The ids seen (for duplicates) are kept; the documents themselves are not.
    assert peak < size / 5


def test_the_first_document_comes_before_the_file_is_read() -> None:
    body = b"".join(
        json.dumps({"id": n, "text": f"document {n}"}).encode() + b"\n" for n in range(5000)
    )
    stream = io.BytesIO(body)

    documents = jsonl.read(stream, Context(name="big.jsonl", stem="big"))
    first = next(documents)

    assert first.external_id == "0"
    assert stream.tell() < len(body) / 10


def test_a_reader_that_leaves_ids_to_its_caller_holds_none(tmp_path: Path) -> None:
    """An importer whose database refuses a repeated id asks the reader to keep no ids:
    what it holds then does not grow with the number of documents."""
    path = tmp_path / "ids.jsonl"
    path.write_text(
        "".join(json.dumps({"id": f"document-{n:07d}", "text": "t"}) + "\n" for n in range(LINES))
    )

    def peak(**options: bool) -> int:
        tracemalloc.start()
        try:
            assert sum(1 for _ in read_documents(path, **options)) == LINES
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak()  # once first, so that neither measure holds what the first reading caches
    # 20,000 ids take megabytes to remember; a document at a time, the read buffer's size.
    assert peak(unique_ids=False) * 4 < peak()


def test_a_reader_that_leaves_ids_to_its_caller_passes_a_repeated_one(tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    path.write_text('{"id": "a", "text": "one"}\n{"id": "a", "text": "two"}\n')
    assert [d.external_id for d in read_documents(path, unique_ids=False)] == ["a", "a"]
