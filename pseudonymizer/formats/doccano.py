"""doccano's JSONL exports for sequence labelling, in either of its two shapes.

- `{"id": 1, "text": "…", "label": [[0, 5, "PER"], …]}`
- `{"id": 1, "text": "…", "entities": [{"id": 3, "label": "PER", "start_offset": 0,
  "end_offset": 5}], "relations": […]}`

Offsets are code points (doccano is Python). Other keys become the document's metadata.
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
from pseudonymizer.formats.jsonl import record_text
from pseudonymizer.spans import Span

_TRIPLE_KEYS = ("label", "labels")


def _triples(record: dict[str, object]) -> tuple[str, list[list[object]]] | None:
    """The key holding `[start, end, label]` triples and the triples, if the record has one."""
    for key in _TRIPLE_KEYS:
        value = record.get(key)
        if isinstance(value, list) and all(isinstance(item, list) for item in value):
            return key, value
    return None


def is_doccano(record: dict[str, object]) -> bool:
    """True for a doccano record (`label` triples or `entities`), false for Cloak's JSONL."""
    if "spans" in record:
        return False
    return isinstance(record.get("entities"), list) or _triples(record) is not None


def document_from(record: dict[str, object], line: int, ctx: Context) -> ImportedDocument:
    """The document of one doccano record, found on `line`."""
    text = record_text(record, ctx, line)
    spans: list[Span] = []
    used = {"id", "text", "lang", "language"}
    found = _triples(record)
    if found is not None:
        key, triples = found
        used.add(key)
        for triple in triples:
            if len(triple) != 3:
                raise ctx.error(line, f"expected [start, end, label], found {triple!r}")
            spans.append(make_span(ctx, line, text, *triple))
    entities = record.get("entities")
    if entities is not None:
        if not isinstance(entities, list):
            raise ctx.error(line, '"entities" must be a list')
        used.add("entities")
        for entity in entities:
            if not isinstance(entity, dict):
                raise ctx.error(line, f"an entity must be an object, not {entity!r}")
            spans.append(
                make_span(
                    ctx,
                    line,
                    text,
                    entity.get("start_offset"),
                    entity.get("end_offset"),
                    entity.get("label"),
                )
            )
    return record_document(ctx, record, text=text, line=line, spans=spans, reserved=used)


def read(stream: BinaryIO, ctx: Context) -> Iterator[ImportedDocument]:
    """Read a doccano JSONL export, one document per non-blank line, as the lines come."""
    for line, record in iter_json_lines(stream, ctx):
        yield document_from(record, line, ctx)
