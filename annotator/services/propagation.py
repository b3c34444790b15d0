"""Propagation: a choice new to the correspondence table is proposed wherever its surface
occurs, in every document and language of the project.

The database narrows the documents with a regular expression that every occurrence matches
(`pseudonymizer.recognizers.known.search_pattern`: case, accents and Arabic letter variants
folded); the engine's known-entity matcher then finds the exact occurrences, Arabic
proclitics included, in those documents only. For each occurrence:

- a proposal at the same place takes the choice (decision, entity), and stays a proposal for
  the annotator of that document to confirm;
- a span a person decided the same way is left alone; one decided otherwise becomes a review
  item for the lead ("one surface, two decisions"): a person's decision is never overwritten;
- untouched machine proposals that only overlap it give way to it; a person's span that
  overlaps it keeps it out;
- elsewhere, a new proposal (source `known`) carries the choice.

A document marked done that receives a proposal goes back to in progress.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotator.keys.models import Alias
from annotator.keys.services import alias_family
from annotator.models import (
    Document,
    DocumentStatus,
    Project,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
    Span,
    SpanSource,
    SpanStatus,
)
from pseudonymizer.recognizers.known import (
    KnownEntityRecognizer,
    normalize_alias,
    search_pattern,
)

logger = logging.getLogger(__name__)

CHUNK = 2000


@dataclass
class PropagationSummary:
    documents_searched: int = 0
    proposed: int = 0
    updated: int = 0
    conflicts: int = 0


@dataclass(frozen=True)
class _Target:
    alias: Alias
    surface: str

    @property
    def decision(self) -> str:
        return self.alias.entity.decision

    @property
    def keep_reason(self) -> str:
        return self.alias.entity.keep_reason

    @property
    def label(self) -> str:
        return self.alias.entity.label


def _targets(project: Project, alias_id: int) -> list[_Target]:
    """The alias and the token-level aliases cut from it."""
    return [_Target(alias, surface) for alias, surface in alias_family(project, alias_id)]


def _candidates(project: Project, targets: Iterable[_Target]) -> Q | None:
    patterns = [pattern for t in targets if (pattern := search_pattern(t.surface)) is not None]
    if not patterns:
        return None
    query = Q()
    for pattern in patterns:
        query |= Q(text__regex=pattern)
    return query


def _key(text: str) -> str:
    return normalize_alias(text)


def propagate_choice(
    *, project_id: int, alias_id: int, source_span_id: int | None = None
) -> PropagationSummary:
    """Propose the choice of alias `alias_id` (and of its token-level aliases) at every
    occurrence of their surfaces in the project. Idempotent."""
    summary = PropagationSummary()
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return summary
    targets = _targets(project, alias_id)
    query = _candidates(project, targets)
    if query is None:
        return summary
    by_key: dict[str, _Target] = {}
    for target in targets:
        key = _key(target.surface)
        by_key.setdefault(key, target)
        if key.startswith("\u0627\u0644"):
            by_key.setdefault(key[1:], target)  # found with its article's alef elided
    matcher = KnownEntityRecognizer((t.surface, t.label) for t in targets)
    candidates = (
        Document.objects.filter(project=project)
        .filter(query)
        .values_list("pk", "text")
        .order_by("pk")
    )
    batch: list[tuple[int, str]] = []
    for row in candidates.iterator(chunk_size=CHUNK):
        batch.append(row)
        if len(batch) >= CHUNK:
            _propagate_batch(project, batch, matcher, by_key, source_span_id, summary)
            batch = []
    if batch:
        _propagate_batch(project, batch, matcher, by_key, source_span_id, summary)
    logger.info(
        "propagated alias %s in %s: %s documents searched, %s proposed, %s updated, %s conflicts",
        alias_id,
        project.slug,
        summary.documents_searched,
        summary.proposed,
        summary.updated,
        summary.conflicts,
    )
    return summary


def _is_persons(span: Span) -> bool:
    return span.source == SpanSource.HUMAN or span.status == SpanStatus.ACCEPTED


@transaction.atomic
def _propagate_batch(
    project: Project,
    batch: list[tuple[int, str]],
    matcher: KnownEntityRecognizer,
    by_key: dict[str, _Target],
    source_span_id: int | None,
    summary: PropagationSummary,
) -> None:
    summary.documents_searched += len(batch)
    found: dict[int, list[tuple[int, int, _Target]]] = {}
    for document_id, text in batch:
        for match in matcher.recognize_one(text):
            surface = text[match.start : match.end]
            target = by_key.get(_key(surface))
            if target is not None:
                found.setdefault(document_id, []).append((match.start, match.end, target))
    if not found:
        return
    # Lock the documents that will change, in id order (as every writer does), then read
    # their spans: a person's write to one of them waits, and is not lost.
    locked = list(
        Document.objects.select_for_update()
        .filter(pk__in=sorted(found))
        .order_by("pk")
        .values_list("pk", "status")
    )
    statuses = dict(locked)
    spans: dict[int, list[Span]] = {}
    for span in Span.objects.filter(document_id__in=list(found)).exclude(
        status=SpanStatus.REJECTED
    ):
        spans.setdefault(span.document_id, []).append(span)
    open_conflicts = set(
        ReviewItem.objects.filter(
            project=project,
            kind=ReviewKind.SURFACE_CONFLICT,
            status=ReviewStatus.OPEN,
            span__document_id__in=list(found),
        ).values_list("span_id", flat=True)
    )
    now = timezone.now()
    created: list[Span] = []
    updated: list[Span] = []
    removed: list[int] = []
    conflicts: list[ReviewItem] = []
    reopened: set[int] = set()
    for document_id, matches in found.items():
        existing = spans.get(document_id, [])
        for start, end, target in matches:
            same = [s for s in existing if s.start == start and s.end == end]
            overlapping = [s for s in existing if s.start < end and s.end > start]
            if any(s.pk == source_span_id for s in overlapping):
                continue
            if same:
                span = same[0]
                if _is_persons(span):
                    if span.decision != target.decision and span.pk not in open_conflicts:
                        open_conflicts.add(span.pk)
                        conflicts.append(
                            ReviewItem(
                                project=project,
                                kind=ReviewKind.SURFACE_CONFLICT,
                                document_id=document_id,
                                span=span,
                                entity_id=target.alias.entity_id,
                                detail={"decisions": [span.decision, target.decision]},
                            )
                        )
                    continue
                if span.entity_id == target.alias.entity_id and span.decision == target.decision:
                    continue
                span.decision = target.decision
                span.keep_reason = target.keep_reason
                span.entity_id = target.alias.entity_id
                span.version += 1
                span.updated_at = now
                updated.append(span)
                continue
            if any(_is_persons(s) for s in overlapping):
                continue
            removed.extend(s.pk for s in overlapping)
            existing[:] = [s for s in existing if s not in overlapping]
            new = Span(
                document_id=document_id,
                start=start,
                end=end,
                label=target.label,
                source=SpanSource.KNOWN,
                score=1.0,
                status=SpanStatus.PROPOSED,
                decision=target.decision,
                keep_reason=target.keep_reason,
                entity_id=target.alias.entity_id,
                created_at=now,
                updated_at=now,
            )
            existing.append(new)
            created.append(new)
            if statuses.get(document_id) == DocumentStatus.DONE:
                reopened.add(document_id)
    if removed:
        Span.objects.filter(pk__in=removed).delete()
    if updated:
        Span.objects.bulk_update(
            updated, ["decision", "keep_reason", "entity_id", "version", "updated_at"]
        )
    if created:
        Span.objects.bulk_create(created, batch_size=5000)
    if conflicts:
        ReviewItem.objects.bulk_create(conflicts)
    if reopened:
        Document.objects.filter(pk__in=reopened).update(
            status=DocumentStatus.IN_PROGRESS, updated_at=now
        )
    summary.proposed += len(created)
    summary.updated += len(updated)
    summary.conflicts += len(conflicts)
