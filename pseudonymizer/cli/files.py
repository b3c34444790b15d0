"""The command line's inputs and outputs: documents read from files or standard input,
written to standard output or atomically to a file, and the one-line failure to report."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from pseudonymizer.formats import ImportedDocument, read_documents
from pseudonymizer.formats.writers import OutputDocument, write_conll, write_csv, write_jsonl


class CliError(Exception):
    """A failure to report in one line, with the exit status to leave with."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def _stdin_format(data: bytes) -> str:
    return "jsonl" if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") else "txt"


def read_inputs(paths: Sequence[str], fmt: str, language: str | None) -> Iterator[ImportedDocument]:
    """The documents of every input in turn; "-" reads standard input. `language` (from
    `--lang`) overrides what the documents say."""
    for name in paths:
        if name == "-":
            data = sys.stdin.buffer.read()
            chosen = _stdin_format(data) if fmt == "auto" else fmt
            with tempfile.TemporaryDirectory(prefix="cloak-stdin-") as folder:
                path = Path(folder) / f"stdin.{chosen}"
                path.write_bytes(data)
                documents = read_documents(path, chosen, language=language, filename="stdin")
                yield from _with_language(documents, language)
            continue
        path = Path(name)
        if not path.is_file():
            raise CliError(f"{name}: no such file", 2)
        yield from _with_language(read_documents(path, fmt, language=language), language)


def _with_language(
    documents: Iterable[ImportedDocument], language: str | None
) -> Iterator[ImportedDocument]:
    for document in documents:
        if language:
            document.language = language
        yield document


def document_name(document: ImportedDocument) -> str:
    """How a message names a document: its id, else its file (and line)."""
    if document.external_id:
        return document.external_id
    return f"{document.filename}:{document.line}" if document.line else document.filename


def document_language(document: ImportedDocument) -> str:
    """The document's language; none is a usage error (`--lang` gives one)."""
    if not document.language:
        raise CliError(f"document {document_name(document)} has no language: give --lang", 2)
    return document.language


def batches(documents: Iterable[ImportedDocument], size: int) -> Iterator[list[ImportedDocument]]:
    """`documents` in lists of `size` (the last one shorter)."""
    batch: list[ImportedDocument] = []
    for document in documents:
        batch.append(document)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def progress(documents: Iterable[ImportedDocument]) -> Iterable[ImportedDocument]:
    """A progress bar on standard error when it is a terminal, shown once a run is slow."""
    if not sys.stderr.isatty():
        return documents
    from tqdm import tqdm

    return tqdm(documents, unit="doc", file=sys.stderr, delay=1.0, leave=False)


@contextlib.contextmanager
def output_stream(target: str | None) -> Iterator[TextIO]:
    """Standard output, or a temporary file beside `target` renamed onto it on success."""
    if target is None or target == "-":
        with contextlib.suppress(AttributeError, ValueError):
            sys.stdout.reconfigure(newline="")  # type: ignore[union-attr]
        yield sys.stdout
        sys.stdout.flush()
        return
    path = Path(target)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise CliError(f"{target}: cannot write: {error.strerror}", 2) from error
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as stream:
            yield stream
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def write_documents(documents: Iterable[OutputDocument], target: str | None, fmt: str) -> int:
    """Write `documents` in `fmt` (jsonl, csv, conll) to `target` (stdout when None)."""
    writers: dict[str, Callable[[Iterable[OutputDocument], TextIO], int]] = {
        "jsonl": write_jsonl,
        "csv": write_csv,
        "conll": write_conll,
    }
    with output_stream(target) as stream:
        return writers[fmt](documents, stream)


def warn(message: str) -> None:
    """Say something on standard error and go on."""
    print(f"warning: {message}", file=sys.stderr)
