"""Telling a file's format from its extension and a look at its first bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

from pseudonymizer.formats import conll, doccano, inline, webanno
from pseudonymizer.formats._common import BOM
from pseudonymizer.formats.base import FormatError, UnknownFormat

SNIFF_BYTES = 64 * 1024
BY_EXTENSION = {
    ".zip": "zip",
    ".csv": "csv",
    ".conll": "conll",
    ".bio": "conll",
    ".iob": "conll",
    ".ann": "brat",
    ".json": "labelstudio",
}
JSONL_EXTENSIONS = (".jsonl", ".ndjson")
TEXT_EXTENSIONS = (".txt", ".xml")
_ZIP_MAGIC = b"PK\x03\x04"


def _head_text(head: bytes) -> str:
    # Only for guessing: the reader decodes strictly and names any bad byte.
    return head.removeprefix(BOM).decode("utf-8", errors="ignore")


def jsonl_flavour(head: bytes, stream: IO[bytes]) -> str:
    """ "doccano" when the first record is doccano's, else "jsonl" (Cloak's own)."""
    for raw in head.splitlines(keepends=True):
        if not raw.strip():
            continue
        if not raw.endswith(b"\n"):  # the first record goes on past the head
            raw += stream.readline()
        try:
            record = json.loads(_head_text(raw))
        except (ValueError, RecursionError):
            # Not JSON, or too deep or too long a number to read: the reader says what is
            # wrong, with the line.
            return "jsonl"
        return "doccano" if isinstance(record, dict) and doccano.is_doccano(record) else "jsonl"
    return "jsonl"


def looks_conll(text: str, complete: bool = True) -> bool:
    """True when the first lines are `-DOCSTART-` or tokens with a BIO tag in the last column."""
    lines = text.splitlines()
    if not complete:
        lines = lines[:-1]  # cut by the end of the head
    seen = 0
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        cells = conll.columns(line)
        if cells[0] == conll.DOCSTART:
            return True
        if len(cells) < 2 or not conll.is_tag(cells[-1]):
            return False
        seen += 1
        if seen == 20:
            break
    return seen > 0


def sniff(stream: IO[bytes], name: str) -> str:
    """The format of the file `name` whose content `stream` gives (read from its start)."""
    suffix = Path(name).suffix.lower()
    if suffix in BY_EXTENSION:
        return BY_EXTENSION[suffix]
    head = stream.read(SNIFF_BYTES)
    complete = len(head) < SNIFF_BYTES
    if suffix in JSONL_EXTENSIONS:
        return jsonl_flavour(head, stream)
    text = _head_text(head)
    if suffix in TEXT_EXTENSIONS:
        return "inline" if inline.looks_inline(text) else "txt"
    if text.startswith(webanno.FORMAT_PREFIX):
        return "webanno"
    if suffix == ".tsv":
        if looks_conll(text, complete):
            return "conll"
        raise FormatError(name, 1, "a .tsv file must be WebAnno TSV 3 (#FORMAT=WebAnno TSV 3.x)")
    if head.startswith(_ZIP_MAGIC):
        return "zip"
    stripped = text.lstrip()
    if stripped.startswith("["):
        return "labelstudio"
    if stripped.startswith("{"):
        first_line = stripped.split("\n", 1)[0]
        try:
            record = json.loads(first_line)
        except json.JSONDecodeError:
            return "labelstudio"  # one object over several lines
        except (ValueError, RecursionError):
            return "jsonl"  # a whole line, which its reader refuses with the reason
        return "doccano" if isinstance(record, dict) and doccano.is_doccano(record) else "jsonl"
    if looks_conll(text, complete):
        return "conll"
    if inline.looks_inline(text):
        return "inline"
    raise UnknownFormat(
        name, 0, f"cannot tell the format of {name} from its name or its content: name its format"
    )


def detect_format(path: Path, name: str | None = None) -> str:
    """The format of the file at `path` (named `name` in errors, by default its own name).

    By extension first, then by a look at the content: .zip is a zip (a BRAT zip when it holds
    .ann files); .jsonl/.ndjson is Cloak's JSONL or doccano's; .txt/.xml is inline-tagged or
    plain text (BRAT when an .ann lies beside the .txt); .tsv is WebAnno TSV 3. Raises
    FormatError when it cannot tell.
    """
    name = name or path.name
    with path.open("rb") as stream:
        fmt = sniff(stream, name)
    beside = path.with_suffix(".ann")
    if fmt in ("txt", "inline") and path.suffix.lower() == ".txt" and beside.is_file():
        return "brat"
    return fmt
