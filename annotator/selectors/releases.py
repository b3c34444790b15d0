"""What a release reads: the documents it renders, in chunks, and the documents whose names it
sends to the `ner` queue. (The originals and known surfaces it checks for are the keys',
read through `annotator.services.table.release_aliases`.)

Documents come in id order, a chunk at a time (keyset pagination: no cursor held open, no
list of the corpus), each chunk with its spans, its correspondence-table choices (looked up
by the `choices_of` the Domain hands in: the keys are the Domain's to reach), the NER hits
stored for the release and the hits people dismissed, in one query each, so that a release
costs a few queries per chunk and none per document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from django.db.models import Count, Q

from annotator.models import (
    Document,
    DocumentQuerySet,
    DocumentStatus,
    HitDismissal,
    JobStatus,
    Project,
    Release,
    ReleaseBatch,
    ReleaseNerHits,
    Span,
    SpanStatus,
)
from annotator.selectors.jobs import job_progress
from annotator.selectors.rendering import Choice

# What a release publishes: a document its annotator marked done, or that a lead reviewed.
RELEASED_STATUSES = (DocumentStatus.DONE.value, DocumentStatus.REVIEWED.value)
CHUNK_SIZE = 1000


def release_documents(project: Project, language: str = "") -> DocumentQuerySet:
    """The project's original documents (never a replica) of `language` (or all)."""
    documents = Document.objects.for_project(project).originals()
    return documents.filter(language=language) if language else documents


def documents_not_finished(
    project: Project, language: str = ""
) -> Iterator[tuple[int, str, str, datetime | None]]:
    """(id, external_id, status, finished_at) of the documents not finished now (not done, not
    reviewed), in id order, without their texts; `finished_at` is when a person last marked
    one done before it was reopened (None: never)."""
    rows = (
        release_documents(project, language)
        .exclude(status__in=RELEASED_STATUSES)
        .order_by("id")
        .values_list("id", "external_id", "status", "finished_at")
    )
    yield from rows.iterator(chunk_size=2000)


def documents_in_scope_count(project: Project, language: str = "") -> int:
    """Every document a release of `language` (or all) covers, finished or not."""
    return int(release_documents(project, language).count())


def documents_finished_count(project: Project, language: str = "") -> int:
    documents = release_documents(project, language)
    return int(documents.filter(status__in=RELEASED_STATUSES).count())


class ChunkSpan(NamedTuple):
    """A span as a release reads it: the columns it needs, no model instance to build."""

    id: int
    start: int
    end: int
    label: str
    source: str
    score: float | None
    status: str
    decision: str
    entity_id: int | None
    # Who decided it: none for a proposal set aside by a machine's rule or as a side effect
    # of another span (`annotator.services.spans._proposals_give_way`), which no person saw.
    decided_by_id: int | None


@dataclass
class ChunkDocument:
    id: int
    external_id: str
    language: str
    text: str
    # Every span of it, rejected ones too (a person's rejection covers a detector's hit), by
    # offset.
    spans: list[ChunkSpan] = field(default_factory=list)
    # The table's choice for each accepted span, by span id.
    choices: dict[int, Choice] = field(default_factory=dict)
    # What the NER model found in it on the `ner` queue for the release: (digest of the text
    # it read, [[start, end, label], ...]); None when it has not looked.
    ner: tuple[str, list[list[Any]]] | None = None
    # The hits people dismissed in it: (start, end, detector) → [(fingerprint, dismissal id)].
    dismissals: dict[tuple[int, int, str], list[tuple[str, int]]] = field(default_factory=dict)


# The surfaces whose choices a release keeps between chunks (the same names recur across a
# corpus); past this many it starts afresh, so that memory stays bounded.
CHOICES_KEPT = 100_000


def finished_document_chunks(
    project: Project,
    language: str = "",
    *,
    choices_of: Callable[[set[str]], Mapping[str, Choice]],
    chunk_size: int | None = None,
    release: Release | None = None,
) -> Iterator[list[ChunkDocument]]:
    """The finished documents (`RELEASED_STATUSES`) in id order, `chunk_size` at a time, each
    with its spans, choices (`choices_of` a set of surfaces: the table's choice of each that
    has one) and dismissed hits, and the NER hits stored for `release`. Five queries a chunk
    at most, whatever its size; rows, not model instances."""
    finished = release_documents(project, language).filter(status__in=RELEASED_STATUSES)
    documents = finished.order_by("id").values_list("id", "external_id", "language", "text")
    size = chunk_size or CHUNK_SIZE
    known: dict[str, Choice | None] = {}
    last = 0
    while True:
        chunk = list(documents.filter(id__gt=last)[:size])
        if not chunk:
            return
        # The chunk's documents as a subquery, not a list of ids: binding hundreds of
        # parameters per query costs more than the query itself.
        ids = finished.filter(id__gt=last, id__lte=chunk[-1][0]).order_by().values("id")
        last = chunk[-1][0]
        by_id = {row[0]: ChunkDocument(*row) for row in chunk}
        spans = (
            Span.objects.filter(document_id__in=ids)
            .order_by("document_id", "start", "end", "id")
            .values_list("document_id", *ChunkSpan._fields)
        )
        surfaces: dict[int, str] = {}
        for row in spans:
            item = by_id[row[0]]
            span = ChunkSpan._make(row[1:])
            item.spans.append(span)
            if span.status == SpanStatus.ACCEPTED:
                surfaces[span.id] = item.text[span.start : span.end]
        wanted = set(surfaces.values()) - known.keys()
        if len(known) + len(wanted) > CHOICES_KEPT:
            known.clear()
            wanted = set(surfaces.values())
        found = choices_of(wanted)
        known.update((surface, found.get(surface)) for surface in wanted)
        for item in by_id.values():
            for span in item.spans:
                choice = known.get(surfaces.get(span.id, ""))
                if choice is not None:
                    item.choices[span.id] = choice
        if release is not None:
            stored = ReleaseNerHits.objects.filter(release=release, document_id__in=ids)
            for document_id, digest, hits in stored.values_list("document_id", "digest", "spans"):
                by_id[document_id].ner = (digest, hits)
        dismissed = (
            HitDismissal.objects.filter(document_id__in=ids)
            .order_by()  # the model's ordering would join the documents for nothing
            .values_list("document_id", "start", "end", "detector", "fingerprint", "pk")
        )
        for document_id, start, end, detector, fingerprint, pk in dismissed:
            places = by_id[document_id].dismissals
            places.setdefault((start, end, detector), []).append((fingerprint, pk))
        yield list(by_id.values())


def ner_documents(
    project: Project, language: str, ner_languages: set[str]
) -> list[tuple[str, int]]:
    """(language, id) of the finished documents a release covers whose language has a NER
    model, by language then id: what a release sends to the `ner` queue."""
    if not ner_languages:
        return []
    rows = (
        release_documents(project, language)
        .filter(status__in=RELEASED_STATUSES, language__in=sorted(ner_languages))
        .order_by("language", "id")
        .values_list("language", "id")
    )
    return list(rows)


def release_progress(release: Release) -> dict[str, Any]:
    """Where a release stands, as pages and the API show it: {"status", "done", "total",
    "percent", "error", "ner"}; `ner` is {"done", "total"} batches of its documents' names on
    the `ner` queue while it waits for them (None when it sends none)."""
    done, total = release.documents_done, release.documents_total
    if release.status == JobStatus.RUNNING:
        reported = job_progress(release)
        done = reported.done
        total = reported.total if reported.total is not None else total
    if release.status == JobStatus.DONE or release.status == JobStatus.REFUSED:
        percent = 100
    else:
        percent = min(100, int(100 * done / total)) if total else 0
    ner: dict[str, int] | None = None
    if release.status == JobStatus.QUEUED:
        counts = ReleaseBatch.objects.filter(release_id=release.pk).aggregate(
            total=Count("pk"), done=Count("pk", filter=Q(status=JobStatus.DONE))
        )
        if counts["total"]:
            ner = {"done": int(counts["done"]), "total": int(counts["total"])}
    return {
        "status": release.status,
        "done": done,
        "total": total,
        "percent": percent,
        "error": release.error,
        "ner": ner,
    }
