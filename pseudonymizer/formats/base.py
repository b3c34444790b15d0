"""What every reader yields, and the one error every reader raises."""

from __future__ import annotations

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
