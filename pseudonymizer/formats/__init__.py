"""Import readers: files in, `ImportedDocument`s out, streamed, refused whole on any fault.

    for document in read_documents(Path("corpus.jsonl"), language="en"):
        ...

Every reader decodes strictly as UTF-8 (a leading BOM is dropped), keeps the text byte for
byte ("\\r\\n" stays "\\r\\n", nothing is normalised), gives offsets in code points, and
raises `FormatError` naming the file, the line and the reason. Labels are not checked against
a schema here: the caller does that with `validate_document`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from pseudonymizer.formats import (
    brat,
    conll,
    doccano,
    inline,
    jsonl,
    labelstudio,
    tabular,
    txt,
    webanno,
    zip,
)
from pseudonymizer.formats._common import Context, IdTracker, ReadLimits, UncheckedIds
from pseudonymizer.formats.base import FormatError, ImportedDocument, validate_document
from pseudonymizer.formats.detect import detect_format

__all__ = [
    "FORMATS",
    "FormatError",
    "ImportedDocument",
    "ReadLimits",
    "detect_format",
    "read_documents",
    "validate_document",
]

FORMATS = (
    "txt",
    "zip",
    "jsonl",
    "csv",
    "conll",
    "brat",
    "doccano",
    "labelstudio",
    "webanno",
    "inline",
)

DEFAULT_LIMITS = ReadLimits()

_STREAM_READERS: dict[str, Callable[[BinaryIO, Context], Iterator[ImportedDocument]]] = {
    "txt": txt.read,
    "jsonl": jsonl.read,
    "doccano": doccano.read,
    "csv": tabular.read,
    "conll": conll.read,
    "labelstudio": labelstudio.read,
    "webanno": webanno.read,
    "inline": inline.read,
}


def _brat_pair(path: Path, ctx: Context) -> Iterator[ImportedDocument]:
    """A BRAT document from either of its files: the `.txt` and the `.ann` beside it."""
    given = Path(ctx.name)
    if path.suffix.lower() == ".ann":
        ann_path, text_path = path, path.with_suffix(".txt")
        ann_name, text_name = ctx.name, given.with_suffix(".txt").name
    else:
        ann_path, text_path = path.with_suffix(".ann"), path
        ann_name, text_name = given.with_suffix(".ann").name, ctx.name
    missing = text_path if not text_path.is_file() else ann_path
    if not (text_path.is_file() and ann_path.is_file()):
        raise ctx.error(0, f"no {missing.suffix} file beside it ({missing.name})")
    total = text_path.stat().st_size + ann_path.stat().st_size
    if total > ctx.limits.max_bytes:
        raise ctx.error(0, f"the pair is {total} bytes, over the limit of {ctx.limits.max_bytes}")
    text_ctx = ctx.member(text_name, Path(text_name).stem)
    ann_ctx = ctx.member(ann_name, Path(text_name).stem)
    with text_path.open("rb") as text_stream, ann_path.open("rb") as ann_stream:
        yield brat.read_pair(text_stream, text_ctx, ann_stream, ann_ctx)


def read_documents(
    path: Path,
    fmt: str = "auto",
    *,
    language: str | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
    text_column: str = "text",
    filename: str | None = None,
    on_position: Callable[[int], None] | None = None,
    unique_ids: bool = True,
) -> Iterator[ImportedDocument]:
    """Yield the documents of the file at `path`, one at a time, as the file is read.

    `fmt` is one of FORMATS or "auto" (see `detect_format`). `language` is the default for
    documents that do not state their own. `filename` names the file in errors (an upload's
    original name; by default `path.name`). Each document has passed the checks of
    `validate_document` that need no schema, and carries its file and first line. Raises
    FormatError on the first fault, so a caller that stops there has written nothing bad.
    Nothing is opened until the first document is asked for; the size check comes first.
    `on_position`, for a progress bar, hears before each document how many bytes of the file
    have been read (of a zip: how far into the archive its members' reading is).
    `unique_ids=False` leaves a repeated document id to the caller, who then holds the ids
    (or a database's unique constraint does) instead of this reader.
    """
    name = filename or path.name
    size = path.stat().st_size
    if size > limits.max_bytes:
        raise FormatError(name, 0, f"file is {size} bytes, over the limit of {limits.max_bytes}")
    if fmt == "auto":
        fmt = detect_format(path, name)
    if fmt not in FORMATS:
        raise FormatError(name, 0, f"unknown format {fmt!r}; formats are {', '.join(FORMATS)}")
    ctx = Context(
        name=name,
        stem=Path(name).stem,
        language=language,
        text_column=text_column,
        limits=limits,
        ids=IdTracker() if unique_ids else UncheckedIds(),
    )
    if fmt == "brat" and path.suffix.lower() != ".zip":
        yield from _brat_pair(path, ctx)
        return
    with path.open("rb") as stream:
        if fmt in ("zip", "brat"):
            documents = zip.read(stream, ctx)
        else:
            documents = _STREAM_READERS[fmt](stream, ctx)
        for document in documents:
            if on_position is not None:
                on_position(stream.tell())
            yield document
