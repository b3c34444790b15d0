"""Label Studio's JSON export: an array of tasks (or one task object), parsed as it streams.

A task's text is `data["text"]`, else the first string in `data`. Its spans are those of the
last annotation not cancelled, else of the first prediction (with the score of the result
item or of the prediction). Only `labels` results count; relations, choices and the like are
skipped. Offsets are code points, but an export made in the browser may count UTF-16 units:
the region's `text` tells which.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import BinaryIO

from pseudonymizer.formats._common import (
    TOO_DEEP,
    Context,
    external_id_from,
    finish_document,
    is_number,
    iter_text_chunks,
    json_value_error,
    language_from,
    make_span,
    refuse_constant,
    value_depth_exceeds,
)
from pseudonymizer.formats.base import ImportedDocument
from pseudonymizer.spans import Span, Utf16Index

_WHITESPACE = " \t\r\n"
# Drop what has been parsed from the buffer once it is this long.
_COMPACT_AT = 1 << 20
# Longer than any JSON literal or escape a chunk edge can cut ("-Infinity", "\\ud83d\\ude00").
_LONGEST_TOKEN = 16


class _JsonStream:
    """JSON values read one by one out of a text that arrives in chunks."""

    def __init__(self, chunks: Iterator[str], ctx: Context) -> None:
        self._chunks = chunks
        self._ctx = ctx
        self._decoder = json.JSONDecoder(parse_constant=refuse_constant)
        self.buffer = ""
        self.position = 0
        self.line = 1  # the line number at `position`
        self._eof = False

    def _more(self, at_least: int = 1) -> bool:
        """Append at least `at_least` characters (fewer at the end); False when none came."""
        got = 0
        while got < at_least:
            chunk = next(self._chunks, None)
            if chunk is None:
                self._eof = True
                break
            if self.position >= _COMPACT_AT:
                self.buffer = self.buffer[self.position :]
                self.position = 0
            self.buffer += chunk
            got += len(chunk)
        return got > 0

    def _advance(self, to: int) -> None:
        self.line += self.buffer.count("\n", self.position, to)
        self.position = to

    def peek(self) -> str | None:
        """The next character that is not whitespace (not consumed), or None at the end."""
        while True:
            index = self.position
            while index < len(self.buffer) and self.buffer[index] in _WHITESPACE:
                index += 1
            self._advance(index)
            if index < len(self.buffer):
                return self.buffer[index]
            if not self._more():
                return None

    def take(self, char: str) -> None:
        found = self.peek()
        if found != char:
            what = "the end of the file" if found is None else repr(found)
            raise self._ctx.error(self.line, f"invalid JSON: expected {char!r}, found {what}")
        self._advance(self.position + 1)

    def value(self) -> tuple[object, int]:
        """The next JSON value and the line it starts on."""
        self.peek()
        while True:
            try:
                value, end = self._decoder.raw_decode(self.buffer, self.position)
            except json.JSONDecodeError as error:
                # An error at the end of the buffer most likely means the value goes on in
                # the next chunk: read as much again as the buffer holds, so that a big value
                # is parsed again only a few times. An error well before the end is real.
                truncated = error.msg.startswith("Unterminated string") or (
                    error.pos >= len(self.buffer) - _LONGEST_TOKEN
                )
                wanted = max(len(self.buffer) - self.position, 1 << 16)
                if truncated and not self._eof and self._more(wanted):
                    continue
                line = self.line + self.buffer.count("\n", self.position, error.pos)
                raise self._ctx.error(line, f"invalid JSON: {error.msg}") from None
            except (ValueError, RecursionError) as error:
                raise self._ctx.error(self.line, json_value_error(error)) from None
            line = self.line
            # Nesting the decoder survived, but too deep for what reads the value after it.
            if value_depth_exceeds(value):
                raise self._ctx.error(line, TOO_DEEP)
            self._advance(end)
            return value, line


def _tasks(stream: BinaryIO, ctx: Context) -> Iterator[tuple[int, object]]:
    parser = _JsonStream(iter_text_chunks(stream, ctx.name), ctx)
    first = parser.peek()
    if first == "{":
        task, line = parser.value()
        yield line, task
    elif first == "[":
        parser.take("[")
        if parser.peek() == "]":
            parser.take("]")
        else:
            while True:
                task, line = parser.value()
                yield line, task
                if parser.peek() == "]":
                    parser.take("]")
                    break
                parser.take(",")
    else:
        found = "an empty file" if first is None else repr(first)
        raise ctx.error(parser.line, f"expected a JSON array of tasks, found {found}")
    if parser.peek() is not None:
        raise ctx.error(parser.line, "unexpected data after the end of the JSON")


def _task_text(data: dict[str, object], ctx: Context, line: int) -> tuple[str, str]:
    text = data.get("text")
    if isinstance(text, str):
        return "text", text
    for key, value in data.items():
        if isinstance(value, str):
            return key, value
    raise ctx.error(line, 'the task has no text in "data"')


def _chosen_result(task: dict[str, object], ctx: Context, line: int) -> tuple[list[object], object]:
    """The result items to import and the default score (a prediction's)."""
    for key in ("annotations", "completions"):  # "completions": exports before 1.0
        annotations = task.get(key)
        if annotations is None:
            continue
        if not isinstance(annotations, list):
            raise ctx.error(line, f'"{key}" must be a list')
        for annotation in reversed(annotations):
            if isinstance(annotation, dict) and not annotation.get("was_cancelled"):
                result = annotation.get("result") or []
                if not isinstance(result, list):
                    raise ctx.error(line, 'an annotation\'s "result" must be a list')
                return result, None
    predictions = task.get("predictions")
    if isinstance(predictions, list) and predictions and isinstance(predictions[0], dict):
        prediction = predictions[0]
        result = prediction.get("result") or []
        if not isinstance(result, list):
            raise ctx.error(line, 'a prediction\'s "result" must be a list')
        return result, prediction.get("score")
    return [], None


def _offsets(
    text: str, value: dict[str, object], utf16: list[Utf16Index], ctx: Context, line: int
) -> tuple[object, object]:
    """Code-point offsets of a region, converted from UTF-16 units when its text says so."""
    start, end, stated = value.get("start"), value.get("end"), value.get("text")
    if not (isinstance(start, int) and isinstance(end, int) and isinstance(stated, str)):
        return start, end  # make_span says what is wrong, if anything
    if 0 <= start < end <= len(text) and text[start:end] == stated:
        return start, end
    if not utf16:
        utf16.append(Utf16Index(text))
    try:
        converted = utf16[0].to_codepoint(start), utf16[0].to_codepoint(end)
    except ValueError:
        return start, end
    if text[converted[0] : converted[1]] == stated:
        return converted
    return start, end


def document_from(task: object, line: int, ctx: Context) -> ImportedDocument:
    """The document of one Label Studio task, which starts on `line`."""
    if not isinstance(task, dict):
        raise ctx.error(line, f"expected a task object, found {type(task).__name__}")
    data = task.get("data")
    if not isinstance(data, dict):
        raise ctx.error(line, 'the task has no "data" object')
    text_key, text = _task_text(data, ctx, line)
    result, default_score = _chosen_result(task, ctx, line)
    spans: list[Span] = []
    utf16: list[Utf16Index] = []  # built on first need
    for item in result:
        if not isinstance(item, dict) or item.get("type") != "labels":
            continue
        value = item.get("value")
        if not isinstance(value, dict):
            raise ctx.error(line, 'a "labels" result has no "value" object')
        labels = value.get("labels")
        if not isinstance(labels, list) or not labels:
            raise ctx.error(line, 'a "labels" result has no labels')
        start, end = _offsets(text, value, utf16, ctx, line)
        score = item.get("score", default_score)
        for label in labels:
            spans.append(
                make_span(
                    ctx,
                    line,
                    text,
                    start,
                    end,
                    label,
                    score=score if is_number(score) else None,
                    stated=value.get("text"),
                )
            )
    metadata = {
        key: value for key, value in data.items() if key not in (text_key, "lang", "language")
    }
    return finish_document(
        ctx,
        text=text,
        line=line,
        spans=spans,
        external_id=external_id_from(task.get("id"), ctx, line),
        language=language_from(data, ctx, line),
        metadata=metadata,
    )


def read(stream: BinaryIO, ctx: Context) -> Iterator[ImportedDocument]:
    """Read a Label Studio JSON export, one task at a time, without loading the whole file."""
    for line, task in _tasks(stream, ctx):
        yield document_from(task, line, ctx)
