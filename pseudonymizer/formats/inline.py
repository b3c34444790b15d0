"""Text with inline tags: `<to_pseudonym type="PER">…</to_pseudonym>` or `<NAME_PATIENT>…</…>`.

One file is one document (id: the file's stem). Tags are taken out and the spans counted on
the text without them. Only `to_pseudonym` and UPPER_SNAKE names are tags: anything else that
looks like one (`a < b`, `<br>`) is text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from pseudonymizer.formats._common import Context, finish_document, read_text
from pseudonymizer.formats.base import ImportedDocument
from pseudonymizer.spans import Span

_NAME = r"to_pseudonym|[A-Z][A-Z0-9_]*"
_ATTRIBUTE = r"""\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"<>]*"|'[^'<>]*')"""
TAG = re.compile(rf"<(?P<close>/)?(?P<name>{_NAME})(?P<attributes>(?:{_ATTRIBUTE})*)\s*>")
_TYPE = re.compile(r"""\btype\s*=\s*(?:"([^"]*)"|'([^']*)')""")

# For detection: an UPPER_SNAKE tag opened and closed somewhere in the text.
_OPEN_NAMES = re.compile(r"<([A-Z][A-Z0-9_]*)(?:\s[^<>]*)?>")
_CLOSE_NAMES = re.compile(r"</([A-Z][A-Z0-9_]*)\s*>")


def looks_inline(text: str) -> bool:
    """True when `text` carries `<to_pseudonym` or a matching `<NAME>`…`</NAME>` pair."""
    if "<to_pseudonym" in text:
        return True
    opened = set(_OPEN_NAMES.findall(text))
    return bool(opened) and not opened.isdisjoint(_CLOSE_NAMES.findall(text))


def _label(match: re.Match[str], ctx: Context, line: int) -> str:
    name = match["name"]
    if name != "to_pseudonym":
        return name
    found = _TYPE.search(match["attributes"] or "")
    label = (found[1] if found[1] is not None else found[2]) if found else None
    if not label or not label.strip():
        raise ctx.error(line, 'a <to_pseudonym> tag needs a type="LABEL" attribute')
    return label


def parse(raw: str, ctx: Context) -> ImportedDocument:
    """The document of an inline-tagged text: the text without tags, the tags as spans."""
    pieces: list[str] = []
    spans: list[Span] = []
    length = 0  # code points written to `pieces` so far
    consumed = 0  # index in `raw` up to which text has been copied
    line = 1
    counted = 0  # index in `raw` up to which newlines are counted in `line`
    open_tag: tuple[str, str, int, int] | None = None  # name, label, start, line

    for match in TAG.finditer(raw):
        line += raw.count("\n", counted, match.start())
        counted = match.start()
        piece = raw[consumed : match.start()]
        pieces.append(piece)
        length += len(piece)
        consumed = match.end()
        name = match["name"]
        if match["close"]:
            if open_tag is None:
                raise ctx.error(line, f"closing tag </{name}> without an opening tag")
            if open_tag[0] != name:
                raise ctx.error(
                    line,
                    f"closing tag </{name}> does not match <{open_tag[0]}> "
                    f"opened on line {open_tag[3]}",
                )
            if length == open_tag[2]:
                raise ctx.error(open_tag[3], f"empty tag <{name}>")
            spans.append(Span(open_tag[2], length, open_tag[1], source="import"))
            open_tag = None
        else:
            if open_tag is not None:
                raise ctx.error(
                    line, f"tag <{name}> inside <{open_tag[0]}> (opened on line {open_tag[3]})"
                )
            open_tag = (name, _label(match, ctx, line), length, line)
    if open_tag is not None:
        raise ctx.error(open_tag[3], f"tag <{open_tag[0]}> is never closed")
    pieces.append(raw[consumed:])
    text = "".join(pieces)
    return finish_document(
        ctx, text=text, line=1, spans=spans, external_id=ctx.stem, language=ctx.language
    )


def read(stream: BinaryIO, ctx: Context) -> Iterator[ImportedDocument]:
    """Read an inline-tagged file as one document."""
    yield parse(read_text(stream, ctx.name), ctx)
