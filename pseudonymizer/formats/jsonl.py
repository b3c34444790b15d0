"""Cloak's own JSON Lines: `{"id", "lang", "text", "spans": [{"start", "end", "label", …}]}`.

Each span may state its `text`, which must equal the document's slice, a `decision` and a
`score`. Other top-level keys become the document's metadata. Blank lines are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from pseudonymizer.formats._common import (
    Context,
    iter_json_lines,
    make_span,
    record_document,
)
from pseudonymizer.formats.base import ImportedDocument
from pseudonymizer.spans import Span

_RESERVED = frozenset({"id", "lang", "language", "text", "spans"})


def record_text(record: dict[str, object], ctx: Context, line: int) -> str:
    """The record's `text`, which must be a string."""
    text = record.get("text")
    if text is None:
        raise ctx.error(line, 'the record has no "text"')
    if not isinstance(text, str):
        raise ctx.error(line, f'"text" must be a string, not {type(text).__name__}')
    return text


def document_from(record: dict[str, object], line: int, ctx: Context) -> ImportedDocument:
    """The document of one Cloak JSONL record, found on `line`."""
    text = record_text(record, ctx, line)
    items = record.get("spans") or []
    if not isinstance(items, list):
        raise ctx.error(line, '"spans" must be a list')
    spans: list[Span] = []
    for item in items:
        if not isinstance(item, dict):
            raise ctx.error(line, f"a span must be an object, not {item!r}")
        spans.append(
            make_span(
                ctx,
                line,
                text,
                item.get("start"),
                item.get("end"),
                item.get("label"),
                score=item.get("score"),
                decision=item.get("decision"),
                stated=item.get("text"),
            )
        )
    return record_document(ctx, record, text=text, line=line, spans=spans, reserved=_RESERVED)


def read(stream: BinaryIO, ctx: Context) -> Iterator[ImportedDocument]:
    """Read Cloak JSONL, one document per non-blank line, as the lines come."""
    for line, record in iter_json_lines(stream, ctx):
        yield document_from(record, line, ctx)
