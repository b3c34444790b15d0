"""What the open document page shows, and what changed in its document since.

The page renders once and then the document changes under it: propagation decides spans
there, a pre-annotation run deletes and recreates its untouched proposals, another tab or
person acts, a lead resolves a review item or edits the keys, undo puts spans back. The page
says what it shows with every action and every poll: for each row the span's id, the row's
stamp and the offsets it shows, and the document's own stamp (its status and assignee).

The server compares that with the document now (`spans_now`, two indexed queries whatever
was shown: the spans by document, and the pseudonyms their surfaces have in the
correspondence table by digest). Every writer of spans bumps `version`, bulk updates
included, so an unchanged stamp is an unchanged row; a row the page has and the document
lacks was removed; a span the page lacks was added. The offsets the page sends say where the
text shows a span that moved or went, so that the patch re-renders the text there too.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from annotator.models import Document
from annotator.selectors.workspace import DocumentSpans, spans_now
from annotator.services.spans import surface_pseudonyms

# One row as the page sends it: "id:stamp:start:end", the stamp "version" or
# "version.pseudonym-checksum".
_ROW = re.compile(r"(\d{1,18}):(\d{1,10}(?:\.[0-9a-f]{8})?):(\d{1,10}):(\d{1,10})")
_DOCUMENT = re.compile(r"[a-z_]{1,32}\.\d{1,18}")
# More rows than a document could show: a body this big is not the page's.
MAX_ROWS = 100_000


class BadPageState(ValueError):
    """What a request says the page shows cannot be read: a message fit to show."""


def row_stamp(version: int, replacement: str) -> str:
    """What a span's row shows, as far as its `version` does not say it: the pseudonym its
    surface has in the table, which a lead's edit of the keys (or a decision on the same
    surface in another span) changes without touching the span."""
    if not replacement:
        return str(version)
    return f"{version}.{zlib.crc32(replacement.encode()):08x}"


def document_stamp(document: Document) -> str:
    """What the status bar shows of the document itself (the rest follows from its spans)."""
    return f"{document.status}.{document.assignee_id or 0}"


@dataclass(frozen=True)
class Shown:
    """One row of the page: its stamp, and the offsets (code points) of its span there."""

    stamp: str
    start: int
    end: int


@dataclass(frozen=True)
class PageState:
    rows: Mapping[int, Shown]
    document: str


def page_state(data: Mapping[str, str]) -> PageState | None:
    """What a request says the page shows (`known`: the rows, `known_document`); None when
    it says nothing (a form posted by a page without its script). Raises BadPageState."""
    if "known" not in data:
        return None
    rows: dict[int, Shown] = {}
    tokens = data["known"].split()
    if len(tokens) > MAX_ROWS:
        raise BadPageState(f"known lists more than {MAX_ROWS} rows.")
    for token in tokens:
        match = _ROW.fullmatch(token)
        if match is None:
            raise BadPageState(
                "known is a list of rows as 'id:stamp:start:end' separated by spaces; "
                f"'{token[:40]}' is not one."
            )
        span_id, stamp, start, end = match.groups()
        rows[int(span_id)] = Shown(stamp, int(start), int(end))
    document = data.get("known_document", "")
    if document and _DOCUMENT.fullmatch(document) is None:
        raise BadPageState("known_document is the status bar's stamp, 'status.assignee'.")
    return PageState(rows, document)


@dataclass(frozen=True)
class Changes:
    """What differs between the page and the document: spans the page lacks, rows whose span
    changed, rows whose span is gone; where the text shows them (before and after); whether
    the status bar's document changed."""

    added: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    ranges: list[tuple[int, int]] = field(default_factory=list)
    document: bool = False

    @property
    def spans(self) -> list[int]:
        return self.added + self.updated + self.removed

    def __bool__(self) -> bool:
        return bool(self.spans) or self.document

    def without(self, ids: set[int]) -> Changes:
        """These changes but those of `ids` (what the request's own action changed)."""
        return Changes(
            added=[pk for pk in self.added if pk not in ids],
            updated=[pk for pk in self.updated if pk not in ids],
            removed=[pk for pk in self.removed if pk not in ids],
            ranges=self.ranges,
            document=self.document,
        )

    def notice(self) -> str:
        """What the status bar says of them: counts only, never a surface."""
        counts = [
            (len(ids), what)
            for ids, what in (
                (self.added, "added"),
                (self.updated, "changed"),
                (self.removed, "removed"),
            )
            if ids
        ]
        if not counts:
            return ""
        # "2 spans added, 1 changed": the noun once, with the first count.
        (first, what), rest = counts[0], counts[1:]
        parts = [f"{first} span{'s' if first != 1 else ''} {what}"]
        parts += [f"{n} {what}" for n, what in rest]
        return (
            f"Changed meanwhile (by a run, propagation or another person): {', '.join(parts)}; "
            "the list is up to date."
        )


def _within(shown: Shown, length: int) -> tuple[int, int]:
    """Where the page shows a span that changed or went, as it says, kept within the text."""
    start, end = sorted((shown.start, shown.end))
    return min(start, length), min(end, length)


def changes_since(
    document: Document,
    state: PageState,
    *,
    spans: DocumentSpans | None = None,
) -> Changes:
    """What changed in `document` since the page showed `state`: from `spans` (a read of its
    spans, `annotator.views.workspace.patch_reads`) when the caller has one."""
    now = spans_now(document, pseudonyms_of=surface_pseudonyms) if spans is None else spans.now()
    length = len(document.text)
    added: list[int] = []
    updated: list[int] = []
    ranges: list[tuple[int, int]] = []
    for span in now:
        shown = state.rows.get(span.pk)
        if shown is None:
            added.append(span.pk)
        elif shown.stamp != row_stamp(span.version, span.replacement):
            updated.append(span.pk)
            ranges.append(_within(shown, length))
        else:
            continue
        ranges.append((span.start, span.end))
    present = {span.pk for span in now}
    removed = sorted(pk for pk in state.rows if pk not in present)
    ranges += [_within(state.rows[pk], length) for pk in removed]
    return Changes(
        added=added,
        updated=updated,
        removed=removed,
        ranges=ranges,
        document=bool(state.document) and state.document != document_stamp(document),
    )
