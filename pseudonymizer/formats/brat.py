"""BRAT standoff: a `.txt` and its `.ann`, one document, its id the shared stem.

Text-bound annotations (`T1<TAB>PER 0 5<TAB>Moshe`) become spans; offsets are code points
over the `.txt` as it is, "\\r\\n" counting two. Relations, events, attributes, normalisations
and notes are skipped; a discontinuous span (`0 5;7 10`) is refused.
"""

from __future__ import annotations

import re
from typing import BinaryIO

from pseudonymizer.formats._common import (
    Context,
    finish_document,
    iter_lines,
    make_span,
    offset_from,
    read_text,
    strip_eol,
)
from pseudonymizer.formats.base import ImportedDocument
from pseudonymizer.spans import Span

_FRAGMENT = re.compile(r"(\d+) (\d+)")
# Relations, events, attributes (A and the older M), normalisations, notes.
_SKIPPED = ("R", "E", "A", "M", "N", "#")


def read_spans(stream: BinaryIO, text: str, ctx: Context) -> list[Span]:
    """The text-bound spans of an `.ann` file (`ctx` names the `.ann`), checked against `text`."""
    spans: list[Span] = []
    for number, raw in iter_lines(stream, ctx.name):
        line = strip_eol(raw)
        if not line.strip():
            continue
        if line.startswith(_SKIPPED):
            continue
        if not line.startswith("T"):
            raise ctx.error(number, f"unknown annotation line {line.split(chr(9))[0]!r}")
        parts = line.split("\t", 2)
        if len(parts) < 2:
            raise ctx.error(number, "expected ID<TAB>TYPE START END<TAB>TEXT")
        ident, body = parts[0], parts[1]
        label, _, offsets = body.partition(" ")
        if ";" in offsets:
            raise ctx.error(number, f"discontinuous span {ident} is not supported")
        fragment = _FRAGMENT.fullmatch(offsets.strip())
        if fragment is None:
            raise ctx.error(number, f"invalid offsets {offsets!r} in {ident}")
        stated = parts[2] if len(parts) == 3 else None
        spans.append(
            make_span(
                ctx,
                number,
                text,
                offset_from(fragment[1], ctx, number),
                offset_from(fragment[2], ctx, number),
                label,
                stated=stated,
            )
        )
    return spans


def read_pair(
    text_stream: BinaryIO, text_ctx: Context, ann_stream: BinaryIO | None, ann_ctx: Context
) -> ImportedDocument:
    """The document of a `.txt` (named by `text_ctx`) and its `.ann`, if there is one."""
    text = read_text(text_stream, text_ctx.name)
    spans = read_spans(ann_stream, text, ann_ctx) if ann_stream is not None else []
    return finish_document(
        text_ctx,
        text=text,
        line=1,
        spans=spans,
        external_id=text_ctx.stem,
        language=text_ctx.language,
    )
