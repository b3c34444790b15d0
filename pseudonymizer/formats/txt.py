"""Plain text: the whole file is one document, its id the file's stem."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from pseudonymizer.formats._common import Context, finish_document, read_text
from pseudonymizer.formats.base import ImportedDocument


def parse(text: str, ctx: Context) -> ImportedDocument:
    """The document a plain-text file holds (no spans)."""
    return finish_document(ctx, text=text, line=1, external_id=ctx.stem, language=ctx.language)


def read(stream: BinaryIO, ctx: Context) -> Iterator[ImportedDocument]:
    """Read a plain-text file as one document."""
    yield parse(read_text(stream, ctx.name), ctx)
