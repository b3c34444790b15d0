"""Pseudonyms drawn ahead for the proposals of a document someone opened: the worker draws
what each decision would draw (`annotator.keys.drawn_ahead`), so that accepting a proposal
whose surface is new to the table takes a pseudonym rather than drawing one in the
annotator's request. Asked once per document every few minutes, on the worker's `default`
queue; it changes when pseudonyms are drawn, never which."""

from __future__ import annotations

import logging

from django.core.cache import cache

from annotator.models import Document, SpanStatus
from annotator.services.jobs import task_send_on_commit
from annotator.services.table import pseudonyms_draw_ahead
from pseudonymizer.vocabulary import Decision

logger = logging.getLogger(__name__)

# How long a document's draw is not asked again: the proposals of a document change with
# runs and propagation, seldom while someone reads it.
ASK_EVERY = 600
TASK = "pseudonyms_draw_ahead"  # annotator.tasks.pseudonyms_draw_ahead


def draw_ahead_ask(document: Document) -> bool:
    """Ask the worker to draw ahead for `document` (opened by someone), unless asked in the
    last `ASK_EVERY` seconds or the document is a blind replica (which never reaches the
    table). Whether it was asked."""
    if document.replica_of_id is not None:
        return False
    try:
        fresh = cache.add(f"cloak:draw-ahead:{document.pk}", 1, timeout=ASK_EVERY)
    except Exception as error:  # noqa: BLE001 - a cache down must not keep a document shut
        logger.warning(
            "pseudonyms not drawn ahead for document %s: the cache failed (%s)",
            document.pk,
            type(error).__name__,
        )
        return False
    if not fresh:
        return False
    task_send_on_commit(TASK, document.pk)
    return True


def document_draw_ahead(document_id: int) -> int:
    """Draw ahead the pseudonyms of the document's proposals to be pseudonymized whose
    surfaces no one decided; how many were drawn."""
    document = (
        Document.objects.select_related("project")
        .only("pk", "text", "language", "replica_of_id", "project")
        .filter(pk=document_id)
        .first()
    )
    if document is None or document.replica_of_id is not None:
        return 0
    proposals = document.spans.filter(
        status=SpanStatus.PROPOSED, decision=Decision.PSEUDONYMIZE.value
    ).values_list("start", "end", "label")
    wanted = {
        (document.text[start:end], label, document.language) for start, end, label in proposals
    }
    drawn = pseudonyms_draw_ahead(document.project, sorted(wanted))
    logger.info("drew %s pseudonyms ahead for document %s", drawn, document_id)
    return drawn
