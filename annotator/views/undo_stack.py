"""The undo stack of a session: the last actions taken on each document, newest last, each
as annotator.services.undo records it (offsets, labels, statuses, decisions, chosen
pseudonyms and ids, never an original). It lives in the session, so a person's tabs share
it and it goes when they log out."""

from __future__ import annotations

from typing import Any

from annotator.models import Document
from annotator.views.access import ProjectRequest

# What the Undo button says it takes back, by action.
UNDO_LABELS = {
    "accept": "the accept",
    "reject": "the reject",
    "label": "the new label",
    "move": "the boundary move",
    "decide": "the decision",
    "flag": "the flag",
    "add": "the span added",
    "bulk-accepted": "accept all",
    "bulk-rejected": "reject all",
}
# The session keeps this many actions a document, for this many documents.
UNDO_DEPTH = 30
UNDO_DOCUMENTS = 10
UNDO_KEY = "cloak_undo"


def stacks_of(request: ProjectRequest) -> dict[str, list[dict[str, Any]]]:
    stacks: dict[str, list[dict[str, Any]]] = request.session.get(UNDO_KEY, {})
    return stacks


def undo_label(request: ProjectRequest, document: Document) -> str:
    """What undo would take back on `document`, for the button; "" when nothing."""
    stack = stacks_of(request).get(str(document.pk))
    return UNDO_LABELS.get(stack[-1]["what"], "the last action") if stack else ""


def push(request: ProjectRequest, document: Document, what: str,
          entry: list[dict[str, Any]], comment: int | None = None) -> None:  # fmt: skip
    if not entry and comment is None:
        return
    stacks = stacks_of(request)
    key = str(document.pk)
    stack = stacks.pop(key, [])[-(UNDO_DEPTH - 1) :]
    stack.append({"what": what, "spans": entry, "comment": comment})
    stacks[key] = stack  # the most recent document last: the oldest go first
    for old in list(stacks)[:-UNDO_DOCUMENTS]:
        del stacks[old]
    request.session[UNDO_KEY] = stacks
