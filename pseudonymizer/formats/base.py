"""What every reader yields, and the one error every reader raises."""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from pseudonymizer.graphemes import widen_spans
from pseudonymizer.spans import Span


class FormatError(ValueError):
    """A file Cloak refuses: names the file, the line (1-based, 0 when unknown) and why."""

    def __init__(self, filename: str, line: int, reason: str) -> None:
        self.filename = filename
        self.line = line
        self.reason = reason
        where = f"{filename}:{line}" if line else filename
        super().__init__(f"{where}: {reason}")


# A JSON record of a file, and so a document's metadata, nests no deeper than this: Python's
# decoder recurses once per level (100,000 are a RecursionError), and metadata is written out
# as JSON (the database's jsonb, a release) and read back by code that recurses as well.
MAX_JSON_DEPTH = 64
SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable(value: object, *, nul: bool = False) -> str | None:
    """Why `value` (a document's id, or its metadata as a file gave it) cannot be written as
    UTF-8 JSON text, or None: a lone surrogate (JSON can spell one, "\\ud800"; UTF-8 cannot), a
    number JSON cannot write (NaN, an infinity), nesting deeper than MAX_JSON_DEPTH; and with
    `nul`, a NUL character (PostgreSQL's text and jsonb hold none). Walks without recursion."""
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if nul and "\x00" in item:
                return "a NUL character"
            if SURROGATE.search(item):
                return "a lone surrogate (invalid Unicode)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"a number that is not finite ({item})"
        elif isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                return f"values nested more than {MAX_JSON_DEPTH} levels deep"
            if isinstance(item, dict):
                pending.extend((key, depth + 1) for key in item)
                pending.extend((child, depth + 1) for child in item.values())
            else:
                pending.extend((child, depth + 1) for child in item)
    return None


class UnknownFormat(FormatError):
    """A file whose format neither its name nor its content tells: the caller names it
    (the command line's --format, the upload form's format field)."""


@dataclass
class ImportedDocument:
    """One document read from a file, with the spans the file carried (as `import` spans)."""

    text: str
    external_id: str | None = None
    language: str | None = None
    metadata: dict[str, object] = field(default_factory=dict)
    spans: list[Span] = field(default_factory=list)
    # Where it came from, for error messages: the file (or zip member) and its first line.
    filename: str = ""
    line: int = 0


def validate_document(document: ImportedDocument, labels: Collection[str] | None) -> None:
    """Refuse an empty document, a span outside its text, or a label outside the schema;
    widen a span that cuts a character (half an emoji, a letter without its accent) to the
    whole characters, as every machine proposal is (`pseudonymizer.graphemes`)."""
    where = (document.filename, document.line)
    if document.text == "" or document.text.strip() == "":
        raise FormatError(*where, "empty document")
    length = len(document.text)
    for span in document.spans:
        if span.end > length:
            raise FormatError(
                *where,
                f"span [{span.start}, {span.end}) lies outside the text ({length} characters)",
            )
        if labels is not None and span.label not in labels:
            raise FormatError(*where, f"unknown label {span.label!r}")
    document.spans = widen_spans(document.text, document.spans)


def check_labels(document: ImportedDocument, labels: Collection[str]) -> None:
    """Refuse a span whose label is not one of `labels`: the schema part of
    `validate_document`, for a document a reader has already checked without one."""
    for span in document.spans:
        if span.label not in labels:
            raise FormatError(document.filename, document.line, f"unknown label {span.label!r}")
