"""What every reader shares: strict UTF-8 with line numbers, ids, span and document checks.

Readers work on binary streams and decode themselves, so that no newline is ever translated
and an invalid byte is reported with the line it is on.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import BinaryIO, NoReturn, TypeGuard

from pseudonymizer.formats.base import (
    MAX_JSON_DEPTH,
    SURROGATE,
    FormatError,
    ImportedDocument,
    unstorable,
    validate_document,
)
from pseudonymizer.spans import Span
from pseudonymizer.vocabulary import DecisionRefused, check_known_decision

BOM = b"\xef\xbb\xbf"
CHUNK_SIZE = 1 << 16

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class ReadLimits:
    """How much a reader takes before it refuses a file."""

    max_bytes: int = 512 * 1024 * 1024
    # Uncompressed / compressed size of a zip member (or the whole archive).
    max_zip_ratio: int = 200


class IdTracker:
    """Remembers the external ids seen in one file (or archive) to refuse a second one."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, int]] = {}

    def add(self, external_id: str | None, filename: str, line: int) -> None:
        """Record `external_id`; raise FormatError at `filename:line` if it was seen before."""
        if external_id is None:
            return
        first = self._seen.get(external_id)
        if first is not None:
            first_name, first_line = first
            where = f"line {first_line}" if first_name == filename else f"{first_name}:{first_line}"
            raise FormatError(filename, line, f"duplicate id {external_id!r} (first at {where})")
        self._seen[external_id] = (filename, line)


class UncheckedIds(IdTracker):
    """Remembers nothing: for a caller that refuses a repeated id itself (a database's unique
    constraint), so that a file of a million documents does not hold a million ids."""

    def add(self, external_id: str | None, filename: str, line: int) -> None:
        """Accept `external_id` without remembering it."""


@dataclass
class Context:
    """One file being read: its name for errors, its stem as default id, the caller's options."""

    name: str
    stem: str
    language: str | None = None
    text_column: str = "text"
    limits: ReadLimits = field(default_factory=ReadLimits)
    ids: IdTracker = field(default_factory=IdTracker)

    def error(self, line: int, reason: str) -> FormatError:
        return FormatError(self.name, line, reason)

    def member(self, name: str, stem: str) -> Context:
        """The context of a file inside this one (a zip member), sharing the id tracker."""
        return dataclasses.replace(self, name=name, stem=stem)


# --- Decoding --------------------------------------------------------------------------------


def _invalid_utf8(name: str, line: int, offset: int) -> FormatError:
    return FormatError(name, line, f"invalid UTF-8 at byte {offset}")


def iter_lines(stream: BinaryIO, name: str) -> Iterator[tuple[int, str]]:
    """Yield `(line number, line)` with the line's own ending kept; a leading BOM is dropped.

    Lines end at b"\\n" only, so "\\r\\n" stays inside the line as the file has it.
    """
    offset = 0
    for number, raw in enumerate(stream, start=1):
        start = 0
        if number == 1 and raw.startswith(BOM):
            start = len(BOM)
        try:
            line = raw[start:].decode("utf-8")
        except UnicodeDecodeError as error:
            raise _invalid_utf8(name, number, offset + start + error.start) from None
        offset += len(raw)
        yield number, line


def strip_eol(line: str) -> str:
    """`line` without its line ending ("\\n" or "\\r\\n")."""
    if line.endswith("\n"):
        line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
    return line


def decode_text(data: bytes, name: str) -> str:
    """Decode a whole file strictly as UTF-8, dropping a leading BOM."""
    start = len(BOM) if data.startswith(BOM) else 0
    try:
        return data[start:].decode("utf-8")
    except UnicodeDecodeError as error:
        position = start + error.start
        raise _invalid_utf8(name, data.count(b"\n", 0, position) + 1, position) from None


def read_text(stream: BinaryIO, name: str) -> str:
    """Read and decode a whole stream (a one-document file)."""
    return decode_text(stream.read(), name)


def iter_text_chunks(stream: BinaryIO, name: str, size: int = CHUNK_SIZE) -> Iterator[str]:
    """Decode a stream chunk by chunk, strictly; a character cut by a chunk edge waits."""
    pending = b""
    offset = 0  # file offset of the first byte of `pending`
    line = 1  # line number at that byte
    first = True
    while True:
        chunk = stream.read(size)
        data = pending + chunk
        if first:
            if chunk and len(data) < len(BOM) and BOM.startswith(data):
                pending = data  # may be the start of a BOM
                continue
            first = False
            if data.startswith(BOM):
                data = data[len(BOM) :]
                offset += len(BOM)
        if not data:
            if not chunk:
                return
            pending = b""
            continue
        try:
            text = data.decode("utf-8")
            pending = b""
        except UnicodeDecodeError as error:
            # A multi-byte character cut at the end of the chunk is completed by the next one.
            cut = chunk and error.reason == "unexpected end of data" and error.end == len(data)
            if not cut:
                position = error.start
                raise _invalid_utf8(
                    name, line + data.count(b"\n", 0, position), offset + position
                ) from None
            text = data[: error.start].decode("utf-8")
            pending = data[error.start :]
            data = data[: error.start]
        offset += len(data)
        line += data.count(b"\n")
        if text:
            yield text
        if not chunk:
            if pending:
                raise _invalid_utf8(name, line, offset)
            return


# --- JSON ------------------------------------------------------------------------------------

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
TOO_DEEP = f"invalid JSON: arrays and objects nested more than {MAX_JSON_DEPTH} levels deep"


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON `text` opens more than `limit` arrays and objects inside one another,
    counted by a scan outside its strings, never by recursion (Python's decoder recurses once
    per level: 100,000 `[` are a RecursionError). Malformed JSON is left to the decoder."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for bracket in _NOT_BRACKETS.sub("", _STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def value_depth_exceeds(value: object, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether a decoded JSON `value` nests more than `limit` arrays and objects; walked
    without recursion."""
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Iterable[object] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def refuse_constant(name: str) -> NoReturn:
    """`parse_constant` for json: NaN and Infinity are JavaScript, not JSON."""
    raise ValueError(f"{name} is not a JSON number")


def json_value_error(error: ValueError | RecursionError) -> str:
    """The reason for a ValueError or RecursionError that decoding JSON raised, which is not
    a JSONDecodeError (those say where): a constant, an integer too long, nesting too deep."""
    if isinstance(error, RecursionError):
        return TOO_DEEP
    if "integer string conversion" in str(error):
        return f"invalid JSON: a number of more than {sys.get_int_max_str_digits()} digits"
    return f"invalid JSON: {error}"


def load_json(text: str, ctx: Context, line: int) -> object:
    """The JSON value of `text` (one line of a file at `line`), refused with a FormatError
    when it is not JSON, nests too deeply, or holds NaN, an infinity or a huge integer."""
    if json_depth_exceeds(text):
        raise ctx.error(line, TOO_DEEP)
    try:
        return json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as error:
        raise ctx.error(line, f"invalid JSON: {error.msg} (column {error.colno})") from None
    except (ValueError, RecursionError) as error:
        raise ctx.error(line, json_value_error(error)) from None


def iter_json_lines(stream: BinaryIO, ctx: Context) -> Iterator[tuple[int, dict[str, object]]]:
    """Yield `(line number, object)` for each non-blank line of a JSON Lines stream."""
    for number, line in iter_lines(stream, ctx.name):
        if not line.strip():
            continue
        value = load_json(line, ctx, number)
        if not isinstance(value, dict):
            raise ctx.error(number, f"expected a JSON object, found {type(value).__name__}")
        yield number, value


# --- Fields ----------------------------------------------------------------------------------


def external_id_from(value: object, ctx: Context, line: int) -> str | None:
    """A document id from a file: a string or an integer; empty or missing is None."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ctx.error(line, f"document id must be a string or an integer, not {value!r}")
    return str(value)


def language_from(record: Mapping[str, object], ctx: Context, line: int) -> str | None:
    """The record's own `lang`/`language` when it has one, else the caller's default."""
    for key in ("lang", "language"):
        value = record.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise ctx.error(line, f"{key} must be a string, not {value!r}")
        return value
    return ctx.language


# More digits than any offset into a text Cloak reads (files of at most a few GiB) has.
MAX_OFFSET_DIGITS = 18


def offset_from(digits: str, ctx: Context, line: int) -> int:
    """An offset written in a file's digits; one longer than any text could be is refused
    before Python reads it (it reads no integer of more than 4,300 digits)."""
    if len(digits) > MAX_OFFSET_DIGITS:
        raise ctx.error(line, f"offset of {len(digits)} digits: no text is that long")
    return int(digits)


def is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def make_span(
    ctx: Context,
    line: int,
    text: str,
    start: object,
    end: object,
    label: object,
    *,
    score: object = None,
    decision: object = None,
    stated: object = None,
) -> Span:
    """An `import` span, checked: integer offsets inside the text, a label, the stated text."""
    if isinstance(start, bool) or not isinstance(start, int):
        raise ctx.error(line, f"span start must be an integer, not {start!r}")
    if isinstance(end, bool) or not isinstance(end, int):
        raise ctx.error(line, f"span end must be an integer, not {end!r}")
    if not isinstance(label, str) or not label.strip():
        raise ctx.error(line, f"span label must be a non-empty string, not {label!r}")
    if not 0 <= start < end:
        raise ctx.error(line, f"invalid span [{start}, {end})")
    if end > len(text):
        raise ctx.error(
            line, f"span [{start}, {end}) lies outside the text ({len(text)} characters)"
        )
    if stated is not None:
        if not isinstance(stated, str):
            raise ctx.error(line, f"span text must be a string, not {stated!r}")
        actual = text[start:end]
        if stated != actual:
            raise ctx.error(line, f"span text {stated!r} does not match the document ({actual!r})")
    score_value: float | None = None
    if score is not None:
        if not is_number(score):
            raise ctx.error(line, f"span score must be a number, not {score!r}")
        score_value = float(score)
        if not math.isfinite(score_value):
            raise ctx.error(line, f"span score must be a finite number, not {score!r}")
    decision_value: str | None = None
    if decision is not None:
        if not isinstance(decision, str):
            raise ctx.error(line, f"a decision is a string, not {decision!r}")
        try:
            check_known_decision(decision)
        except DecisionRefused as refused:
            raise ctx.error(line, str(refused)) from None
        decision_value = decision
    return Span(start, end, label, score=score_value, source="import", decision=decision_value)


def finish_document(
    ctx: Context,
    *,
    text: str,
    line: int,
    spans: Iterable[Span] = (),
    external_id: str | None = None,
    language: str | None = None,
    metadata: dict[str, object] | None = None,
    filename: str | None = None,
) -> ImportedDocument:
    """Check a document as `validate_document` would (no schema), note its id, and build it.

    Spans come out sorted, an exact repeat (same offsets and label) dropped.
    """
    where = filename or ctx.name
    unique: dict[tuple[int, int, str], Span] = {}
    for span in spans:
        unique.setdefault((span.start, span.end, span.label), span)
    document = ImportedDocument(
        text=text,
        external_id=external_id,
        language=language,
        metadata=metadata or {},
        spans=[unique[key] for key in sorted(unique)],
        filename=where,
        line=line,
    )
    validate_document(document, None)
    if SURROGATE.search(text):
        # JSON can spell one (\ud800); no UTF-8 file or database can store it.
        raise FormatError(where, line, "the text contains a lone surrogate (invalid Unicode)")
    for part, value in (("document id", external_id), ("language", language)):
        if value is not None and SURROGATE.search(value):
            raise FormatError(
                where, line, f"the {part} contains a lone surrogate (invalid Unicode)"
            )
    fault = unstorable(document.metadata)
    if fault is not None:
        raise FormatError(where, line, f"the metadata holds {fault}")
    ctx.ids.add(external_id, where, line)
    return document


def record_document(
    ctx: Context,
    record: Mapping[str, object],
    *,
    text: str,
    line: int,
    spans: Iterable[Span],
    reserved: Collection[str],
) -> ImportedDocument:
    """`finish_document` for a JSON record: its `id` and language, the rest as metadata."""
    return finish_document(
        ctx,
        text=text,
        line=line,
        spans=spans,
        external_id=external_id_from(record.get("id"), ctx, line),
        language=language_from(record, ctx, line),
        metadata={key: value for key, value in record.items() if key not in reserved},
    )


# --- UTF-16 ----------------------------------------------------------------------------------


def utf16_length(text: str) -> int:
    """How many UTF-16 units `text` takes (astral characters take two)."""
    return len(text) + sum(1 for _ in _ASTRAL.finditer(text))
