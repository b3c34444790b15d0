"""WebAnno TSV 3 (3.3 as INCEpTION writes it): one file is one document, its id the stem.

The file declares its layers (`#T_SP=…|feature|…`, `#T_CH=`, `#T_RL=`), one column per
feature; then each sentence gives its text on `#Text=` lines (one per line of the sentence)
and its tokens, one per line: `1-2<TAB>6-11<TAB>Chaya<TAB>PER[1]<TAB>…`. Offsets count UTF-16
units (Java). The text is rebuilt as INCEpTION rebuilds it: each sentence placed at its first
token, "\\n" after it, spaces to fill a longer gap. Spans come from the `value` feature of the
NamedEntity layer (else the first feature of the first span layer); a value `PER[3]` on
several tokens is one span.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from pseudonymizer.formats._common import (
    Context,
    finish_document,
    iter_lines,
    make_span,
    offset_from,
    strip_eol,
    utf16_length,
)
from pseudonymizer.formats.base import ImportedDocument
from pseudonymizer.spans import Span, Utf16Index

FORMAT_PREFIX = "#FORMAT=WebAnno TSV 3"
NAMED_ENTITY = "de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity"
_FORMAT = re.compile(r"#FORMAT=WebAnno TSV (?P<major>\d+)\.(?P<minor>\d+)\s*")
_LAYER_PREFIXES = ("#T_SP=", "#T_CH=", "#T_RL=")
_OFFSETS = re.compile(r"(\d+)-(\d+)")
_STACK_SEP = re.compile(r"(?<!\\)\|")
_VALUE_ESCAPE = re.compile(r"\\(\\|\[|\]|\||_|->|;|t|n|\*)")
_VALUE_UNESCAPED = {"t": "\t", "n": "\n"}
_TEXT_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_TEXT_UNESCAPED = {"t": "\t", "n": "\n", "f": "\f", "r": "\r", "b": "\b", "\\": "\\"}
_TEXT_UNESCAPED.update({chr(code): chr(code) for code in range(32) if not 7 < code < 14})
_JAVA_ESCAPE = re.compile(r"\\(u+[0-9a-fA-F]{4}|.)", re.DOTALL)
_JAVA_UNESCAPED = {"t": "\t", "n": "\n", "f": "\f", "r": "\r", "b": "\b", "\\": "\\"}
_JAVA_UNESCAPED.update({"'": "'", '"': '"'})


def unescape_value(value: str) -> str:
    """A feature value or token as TSV 3 escapes them (`\\_`, `\\|`, `\\[` …) made plain."""
    return _VALUE_ESCAPE.sub(lambda m: _VALUE_UNESCAPED.get(m[1], m[1]), value)


def unescape_text(text: str, minor: int) -> str:
    """A `#Text=` line made plain: TSV 3.2+ escapes control characters and the backslash;
    3.0 and 3.1 used Java string escapes."""
    if minor >= 2:
        return _TEXT_ESCAPE.sub(lambda m: _TEXT_UNESCAPED.get(m[1], m[0]), text)

    def java(match: re.Match[str]) -> str:
        escape = match[1]
        if escape.startswith("u"):
            return chr(int(escape[-4:], 16))
        return _JAVA_UNESCAPED.get(escape, match[0])

    return _JAVA_ESCAPE.sub(java, text)


@dataclass(frozen=True)
class _Column:
    layer: str
    feature: str | None


@dataclass
class _Unit:
    """A token or sub-token line."""

    line: int
    begin: int  # UTF-16 units
    end: int
    token: str
    cell: str  # the label column


def _label_column(columns: list[tuple[str, _Column]]) -> int | None:
    for index, (kind, column) in enumerate(columns):
        is_entity = column.layer == NAMED_ENTITY or column.layer.endswith(".NamedEntity")
        if kind == "#T_SP=" and is_entity and column.feature == "value":
            return index
    return next((index for index, (kind, _) in enumerate(columns) if kind == "#T_SP="), None)


def _cell_values(cell: str) -> Iterator[tuple[str, str | None]]:
    """`(label, id or None)` for each stacked value of a cell; `*` (no value) gives none."""
    if cell in ("_", ""):
        return
    for value in _STACK_SEP.split(cell):
        ident = None
        if value.endswith("]") and not value.endswith("\\]") and "[" in value:
            cut = value.rindex("[")
            value, ident = value[:cut], value[cut + 1 : -1]
        if value in ("*", "", "_"):
            continue
        yield unescape_value(value), ident


def read(stream: BinaryIO, ctx: Context) -> Iterator[ImportedDocument]:
    """Read a WebAnno TSV 3 file as one document."""
    lines = iter_lines(stream, ctx.name)
    first = next(lines, None)
    header = _FORMAT.fullmatch(strip_eol(first[1])) if first else None
    # A minor version of thousands of digits is none (and more than Python reads as an int).
    if header is None or header["major"] != "3" or len(header["minor"]) > 6:
        raise ctx.error(1, "not WebAnno TSV 3: the first line must be #FORMAT=WebAnno TSV 3.x")
    minor = int(header["minor"])

    columns: list[tuple[str, _Column]] = []
    for number, raw in lines:
        line = strip_eol(raw)
        if not line.strip():
            break
        kind = line[:6]
        if kind not in _LAYER_PREFIXES:
            raise ctx.error(number, "expected a layer declaration (#T_SP=, #T_CH=, #T_RL=)")
        layer, *names = line[6:].split("|")
        features: list[str | None] = list(names) or [None]  # a layer without features: 1 column
        for feature in features:
            columns.append((kind, _Column(layer, feature)))
    label_index = _label_column(columns)

    pieces: list[str] = []
    length16 = 0  # UTF-16 length of "".join(pieces)
    sentence: list[str] = []  # the #Text lines of the sentence being read
    in_tokens = False
    units: list[_Unit] = []
    for number, raw in lines:
        line = strip_eol(raw)
        if not line:
            in_tokens = False
            continue
        if line.startswith("#"):
            if in_tokens:
                raise ctx.error(number, "expected a token line or a blank line")
            if line.startswith("#Text="):
                sentence.append(unescape_text(line[6:], minor) + "\n")
            continue
        fields = line.split("\t")
        if len(fields) < 3 + len(columns):
            raise ctx.error(number, f"expected {3 + len(columns)} columns, found {len(fields)}")
        offsets = _OFFSETS.fullmatch(fields[1])
        if offsets is None:
            raise ctx.error(number, f"invalid offsets {fields[1]!r}")
        begin, end = offset_from(offsets[1], ctx, number), offset_from(offsets[2], ctx, number)
        is_subtoken = "." in fields[0]
        if not in_tokens:
            if is_subtoken or not sentence:
                raise ctx.error(number, "a token line must follow a sentence's #Text lines")
            # The sentence before ends with "\n"; drop it if this one starts right after.
            if length16 > begin:
                if length16 != begin + 1 or not pieces[-1].endswith("\n"):
                    raise ctx.error(number, "this sentence overlaps the one before")
                pieces[-1] = pieces[-1][:-1]
                length16 -= 1
            if length16 < begin:
                pieces.append(" " * (begin - length16))
                length16 = begin
            text = "".join(sentence)
            pieces.append(text)
            length16 += utf16_length(text)
            sentence = []
            in_tokens = True
        cell = fields[3 + label_index] if label_index is not None else "_"
        units.append(_Unit(number, begin, end, fields[2], cell))

    text = "".join(pieces)
    offsets16 = Utf16Index(text)
    spans: list[Span] = []
    groups: dict[str, tuple[str, int, int, int]] = {}  # id: label, start, end, first line
    for unit in units:
        try:
            start, stop = offsets16.to_codepoint(unit.begin), offsets16.to_codepoint(unit.end)
        except ValueError as error:
            raise ctx.error(unit.line, str(error)) from None
        found = text[start:stop]
        if found != unit.token and found != unescape_value(unit.token):
            raise ctx.error(
                unit.line,
                f"token {unit.token!r} does not match the text at "
                f"{unit.begin}-{unit.end} ({found!r})",
            )
        for label, ident in _cell_values(unit.cell):
            if ident is None:
                spans.append(make_span(ctx, unit.line, text, start, stop, label))
            elif ident in groups:
                known = groups[ident]
                groups[ident] = (known[0], min(known[1], start), max(known[2], stop), known[3])
            else:
                groups[ident] = (label, start, stop, unit.line)
    for group_label, group_start, group_stop, group_line in groups.values():
        spans.append(make_span(ctx, group_line, text, group_start, group_stop, group_label))
    yield finish_document(
        ctx, text=text, line=1, spans=spans, external_id=ctx.stem, language=ctx.language
    )
