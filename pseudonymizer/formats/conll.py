"""CoNLL-style token-per-line files with BIO tags (IOB2, IOB1, BIOES/BILOU).

Columns are split on tabs when the line has one, else on whitespace; the token is the first
column and the tag the last. When the file starts with `-DOCSTART-` (CoNLL-2003), those lines
separate documents and blank lines separate sentences; otherwise every blank-line-separated
block is a document. The text is rebuilt: tokens joined by one space, sentences by "\\n".
`# id = X` or `# doc_id = X` names the document; other `#` lines are comments.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from pseudonymizer.formats._common import Context, finish_document, iter_lines, strip_eol
from pseudonymizer.formats.base import ImportedDocument
from pseudonymizer.spans import Span

DOCSTART = "-DOCSTART-"
TAG = re.compile(r"(?:O|(?P<prefix>[BIESLU])-(?P<label>\S+))")
_ID_COMMENT = re.compile(r"#\s*(?:doc_id|id)\s*=\s*(?P<id>.*?)\s*")
KEY_COMMENT = re.compile(r"#\s*[\w.-]+(?:\s+[\w.-]+)?\s*=")


def columns(line: str) -> list[str]:
    """The columns of a token line: tab-separated if it has a tab, else whitespace-separated."""
    if "\t" in line:
        return [column.strip() for column in line.strip().split("\t")]
    return line.split()


def is_tag(value: str) -> bool:
    return TAG.fullmatch(value) is not None


@dataclass
class _Builder:
    """One document being rebuilt from its tokens."""

    line: int
    external_id: str | None = None
    pieces: list[str] = field(default_factory=list)
    length: int = 0
    spans: list[Span] = field(default_factory=list)
    sentence_open: bool = False  # a token of the current sentence has been written
    # The span being extended: label, start, end.
    open_span: tuple[str, int, int] | None = None

    def add_token(self, token: str, prefix: str | None, label: str | None) -> None:
        if self.length:
            separator = " " if self.sentence_open else "\n"
            self.pieces.append(separator)
            self.length += len(separator)
        start = self.length
        self.pieces.append(token)
        self.length += len(token)
        self.sentence_open = True
        if prefix is None or label is None:
            self.close_span()
            return
        continues = self.open_span is not None and self.open_span[0] == label
        if prefix in "IEL" and continues and self.open_span is not None:
            self.open_span = (label, self.open_span[1], self.length)
        else:  # B, S, U, or an I/E/L that starts a span (IOB1)
            self.close_span()
            self.open_span = (label, start, self.length)
        if prefix in "ESLU":
            self.close_span()

    def close_span(self) -> None:
        if self.open_span is not None:
            label, start, end = self.open_span
            self.spans.append(Span(start, end, label, source="import"))
            self.open_span = None

    def end_sentence(self) -> None:
        self.close_span()
        self.sentence_open = False


def read(stream: BinaryIO, ctx: Context) -> Iterator[ImportedDocument]:
    """Read a CoNLL file, one document at a time, as the lines come."""
    docstart_mode: bool | None = None  # decided by the first line that is not blank or a comment
    builder: _Builder | None = None

    def finish(current: _Builder | None) -> ImportedDocument | None:
        if current is None:
            return None
        current.end_sentence()
        if not current.pieces:
            return None
        return finish_document(
            ctx,
            text="".join(current.pieces),
            line=current.line,
            spans=current.spans,
            external_id=current.external_id,
            language=ctx.language,
        )

    for number, raw in iter_lines(stream, ctx.name):
        line = strip_eol(raw)
        if not line.strip():
            if docstart_mode:
                if builder is not None:
                    builder.end_sentence()
            else:
                document = finish(builder)
                builder = None
                if document is not None:
                    yield document
            continue
        cells = columns(line)
        if line.startswith("#"):
            named = _ID_COMMENT.fullmatch(line)
            if named:
                if builder is None:
                    builder = _Builder(number)
                if builder.external_id is None:
                    builder.external_id = named["id"] or None
                continue
            # "#hashtag B-HASHTAG" is a token; "# sent_id = 3" and "# anything" are comments.
            if KEY_COMMENT.match(line) or len(cells) < 2 or not is_tag(cells[-1]):
                continue
        if cells[0] == DOCSTART:
            if docstart_mode is None:
                docstart_mode = True
            if docstart_mode and (builder is None or builder.pieces):
                # (A builder without tokens holds an `# id` given before this line: keep it.)
                document = finish(builder)
                builder = _Builder(number)
                if document is not None:
                    yield document
            continue
        if docstart_mode is None:
            docstart_mode = False
        if len(cells) < 2:
            raise ctx.error(number, f"expected a token and a tag, found {line.strip()!r}")
        tag = TAG.fullmatch(cells[-1])
        if tag is None:
            raise ctx.error(
                number,
                f"invalid tag {cells[-1]!r}: expected O or B-, I-, E-, S-, L-, U- and a label",
            )
        if builder is None:
            builder = _Builder(number)
        builder.add_token(cells[0], tag["prefix"], tag["label"])
    document = finish(builder)
    if document is not None:
        yield document
