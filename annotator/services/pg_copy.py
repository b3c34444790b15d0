"""Rows written with PostgreSQL's COPY, as text this process formats itself.

Formatting rows here from a template, rather than handing psycopg a tuple per row or the ORM
a model per row, takes most of a bulk write's time off the process: an import's documents and
spans (`annotator.services.imports`) and the proposals a run or a propagation pass writes
(`annotator.services.proposals`) go this way. Lines are sent a bounded chunk at a time, so the
process's memory stays flat however many rows there are.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from typing import Any

from django.db import connection, models

# Characters of COPY text sent in one write.
CHUNK_CHARS = 1 << 18


def copy_field(value: Any) -> str:
    """`value` as a field of COPY's text format."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        return copy_text(value)
    return str(value)


def copy_text(value: str) -> str:
    """A string as a field of COPY's text format: its backslashes and the characters that
    end a field or a row escaped. Most fields hold none, and `in` finds that fastest."""
    if "\\" in value:
        value = value.replace("\\", "\\\\")
    if "\t" in value:
        value = value.replace("\t", "\\t")
    if "\n" in value:
        value = value.replace("\n", "\\n")
    if "\r" in value:
        value = value.replace("\r", "\\r")
    return value


def copy_template(
    columns: Iterable[str], varying: Collection[str] | Mapping[str, str], row: Mapping[str, Any]
) -> str:
    """A row of COPY text as a `str.format` template: a field for each column in `varying`
    (named as the column, or as `varying` maps it: two columns may take one value), the
    value `row` gives for each other column written out."""
    names = varying if isinstance(varying, Mapping) else {column: column for column in varying}
    fields = [
        f"{{{names[column]}}}"
        if column in names
        else copy_field(row[column]).replace("{", "{{").replace("}", "}}")
        for column in columns
    ]
    return "\t".join(fields) + "\n"


def copy_statement(model: type[models.Model], columns: Iterable[str]) -> str:
    """COPY into `model`'s table, these columns in this order, from the client."""
    return f"COPY {table_columns(model, columns)} FROM STDIN"


def table_columns(model: type[models.Model], columns: Iterable[str]) -> str:
    quote = connection.ops.quote_name
    return f"{quote(model._meta.db_table)} ({', '.join(quote(c) for c in columns)})"


def copy_lines(cursor: Any, statement: str, lines: Iterable[str]) -> None:
    """Send `lines` (each a row of COPY text, its newline included) through `statement` on a
    psycopg cursor, CHUNK_CHARS at a time."""
    with cursor.copy(statement) as copy:
        chunk: list[str] = []
        size = 0
        for line in lines:
            chunk.append(line)
            size += len(line)
            if size >= CHUNK_CHARS:
                copy.write("".join(chunk))
                chunk, size = [], 0
        if chunk:
            copy.write("".join(chunk))
