"""CSV with a header row: a text column (`text` unless told otherwise), optional `id` and
`lang`/`language` columns; every other column goes into the document's metadata.

The file is read record by record; quoted fields keep their line breaks ("\\r\\n" included).
The delimiter is the one of `,` `;` TAB that the header line uses most.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterator
from typing import BinaryIO

from pseudonymizer.formats._common import (
    Context,
    external_id_from,
    finish_document,
    iter_lines,
)
from pseudonymizer.formats.base import ImportedDocument

_DELIMITERS = (",", ";", "\t")
_LANGUAGE_COLUMNS = ("lang", "language")
# csv.field_size_limit takes a C long, which is 32 bits on some platforms.
_MAX_FIELD = 2**31 - 1


class _NumberedLines:
    """Feeds lines to csv.reader and remembers the number of the last one it gave."""

    def __init__(self, lines: Iterator[tuple[int, str]]) -> None:
        self._lines = lines
        self.number = 0

    def __iter__(self) -> _NumberedLines:
        return self

    def __next__(self) -> str:
        self.number, line = next(self._lines)
        return line


def _delimiter(header: str) -> str:
    counts = {delimiter: header.count(delimiter) for delimiter in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda delimiter: counts[delimiter])
    return best if counts[best] else ","


def read(stream: BinaryIO, ctx: Context) -> Iterator[ImportedDocument]:
    """Read a CSV file, one document per record, as the records come."""
    lines = iter_lines(stream, ctx.name)
    first = next(lines, None)
    if first is None:
        raise ctx.error(0, "the file is empty: a header row is required")
    numbered = _NumberedLines(itertools.chain([first], lines))
    if csv.field_size_limit() < min(ctx.limits.max_bytes, _MAX_FIELD):
        csv.field_size_limit(min(ctx.limits.max_bytes, _MAX_FIELD))
    reader = csv.reader(numbered, delimiter=_delimiter(first[1]), strict=True)

    def records() -> Iterator[tuple[int, list[str]]]:
        while True:
            # csv.reader.line_num is where a record ends; a record starts after the last one.
            start = numbered.number + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                raise ctx.error(start, f"invalid CSV: {error}") from None
            if row:  # a blank line
                yield start, row

    rows = records()
    header_line, header = next(rows, (1, []))
    columns = [name.strip() for name in header]
    if not any(columns):
        raise ctx.error(header_line, "the header row is empty")
    duplicates = sorted({name for name in columns if columns.count(name) > 1})
    if duplicates:
        raise ctx.error(header_line, f"duplicate column {duplicates[0]!r} in the header")
    if ctx.text_column not in columns:
        raise ctx.error(
            header_line,
            f"no {ctx.text_column!r} column; the columns are: {', '.join(columns)}",
        )
    text_index = columns.index(ctx.text_column)
    id_index = columns.index("id") if "id" in columns and ctx.text_column != "id" else None
    language_index = next(
        (columns.index(name) for name in _LANGUAGE_COLUMNS if name in columns), None
    )
    special = {text_index, id_index, language_index}
    others = [(index, name) for index, name in enumerate(columns) if index not in special]

    for line, row in rows:
        if len(row) != len(columns):
            raise ctx.error(line, f"expected {len(columns)} fields, found {len(row)}")
        language = row[language_index] if language_index is not None else ""
        yield finish_document(
            ctx,
            text=row[text_index],
            line=line,
            external_id=external_id_from(
                row[id_index] if id_index is not None else None, ctx, line
            ),
            language=language or ctx.language,
            metadata={name: row[index] for index, name in others},
        )
