"""Propagation: a choice new to the correspondence table is proposed wherever its surface
occurs, in every document and language of the project.

The database narrows the documents to those whose folded text (`Document.search_text`: case,
accents, Arabic letter variants and spaces folded as the known-entity matcher folds them)
holds the folded surface; the engine's matcher then finds the exact occurrences, Arabic
proclitics included, around the hits of `search_pattern` in those documents only.
For each occurrence:

- a proposal at the same place takes the choice (decision, entity), and stays a proposal for
  the annotator of that document to confirm;
- a span a person decided the same way is left alone; one decided otherwise becomes a review
  item for the lead ("one surface, two decisions"): a person's decision is never overwritten;
- a person's span that overlaps it keeps it out, and so does a wider proposal that holds it
  (an e-mail address or a handle with the name in it): no proposal is destroyed or cut by
  another machine's, so nothing a detector found goes unseen;
- elsewhere, a new proposal (source `known`) carries the choice, beside any proposal it only
  overlaps (the person accepting one rejects the others).

A document marked done that receives a proposal goes back to in progress.

A person's decision that makes a choice new to the table reaches here through the span
service's after-decision hook (`annotator.services.decided`): the `propagate` task is sent once
the decision commits.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from annotator import tasks
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
from annotator.services.decided import Decided, on_decided
from annotator.services.jobs import task_send_on_commit
from annotator.services.proposals import Proposal, bulk_propose, proposal_span
from annotator.services.table import Choice, alias_family
from pseudonymizer.folding import fold_key
from pseudonymizer.recognizers.known import KnownEntityRecognizer, search_pattern
from pseudonymizer.spans import Span as PlainSpan
from pseudonymizer.spans import select_non_overlapping

logger = logging.getLogger(__name__)

CHUNK = 2000


@on_decided
def _decided(event: Decided) -> None:
    """Propose each choice the decision made new to the table everywhere else, once it
    commits."""
    for new in event.new_choices:
        task_send_on_commit(tasks.propagate, event.project.pk, new.alias_id, new.span_id)


@dataclass
class PropagationSummary:
    documents_searched: int = 0
    proposed: int = 0
    updated: int = 0
    conflicts: int = 0


@dataclass(frozen=True)
class _Target:
    alias: Choice  # the table's choice for the alias: its entity's decision, reason, label
    surface: str

    @property
    def decision(self) -> str:
        return self.alias.decision

    @property
    def keep_reason(self) -> str:
        return self.alias.keep_reason

    @property
    def label(self) -> str:
        return self.alias.label


def _targets(project: Project, alias_id: int) -> list[_Target]:
    """The alias and the token-level aliases cut from it."""
    return [_Target(alias, surface) for alias, surface in alias_family(project, alias_id)]


class _Finder:
    """The occurrences of the targets' surfaces in a text, as the known-entity matcher finds
    them, looked for only around what the search pattern hits: most of a long document is
    never normalised."""

    # Enough text on each side for the matcher to see word edges and proclitics (و+ب+ال).
    MARGIN = 8

    def __init__(self, targets: list[_Target]) -> None:
        self.patterns = [
            pattern for t in targets if (pattern := search_pattern(t.surface)) is not None
        ]
        self.search = re.compile("|".join(f"(?:{p})" for p in self.patterns))
        self.matcher = KnownEntityRecognizer((t.surface, t.label) for t in targets)
        self.by_key: dict[str, _Target] = {}
        self.keys: set[str] = set()
        for target in targets:
            key = fold_key(target.surface)
            if len(key) < 2:
                continue  # the matcher ignores it too
            self.by_key.setdefault(key, target)
            if key.startswith("\u0627\u0644") and len(key) > 3:
                # Found with its article's alef elided ("للقاهرة"): search without the alef.
                self.by_key.setdefault(key[1:], target)
                key = key[1:]
            self.keys.add(key)

    def query(self) -> Q:
        """The documents whose folded text holds a target's folded surface: every document
        the matcher can find one in, and few others."""
        query = Q()
        for key in self.keys:
            query |= Q(search_text__contains=key)
        return query

    def occurrences(self, text: str) -> list[tuple[int, int, _Target]]:
        found: list[PlainSpan] = []
        for hit in self.search.finditer(text):
            low = max(0, hit.start() - self.MARGIN)
            high = min(len(text), hit.end() + self.MARGIN)
            for span in self.matcher.recognize_one(text[low:high]):
                start, end = span.start + low, span.end + low
                if start < hit.end() and end > hit.start():
                    found.append(PlainSpan(start, end, span.label))
        result = []
        for span in select_non_overlapping(
            list(dict.fromkeys(found)), lambda s: (s.start - s.end, s.start)
        ):
            target = self.by_key.get(fold_key(text[span.start : span.end]))
            if target is not None:
                result.append((span.start, span.end, target))
        return result


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
    finder = _Finder(targets)
    if not finder.patterns:
        return summary
    candidates = (
        # Never into a replica: a second annotation stays blind to the project's choices.
        Document.objects.filter(project=project)
        .originals()
        .filter(finder.query())
        .values_list("pk", "text")
        .order_by("pk")
    )
    batch: list[tuple[int, str]] = []
    for row in candidates.iterator(chunk_size=CHUNK):
        batch.append(row)
        if len(batch) >= CHUNK:
            _propagate_batch(project, batch, finder, source_span_id, summary)
            batch = []
    if batch:
        _propagate_batch(project, batch, finder, source_span_id, summary)
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
    finder: _Finder,
    source_span_id: int | None,
    summary: PropagationSummary,
) -> None:
    summary.documents_searched += len(batch)
    found: dict[int, list[tuple[int, int, _Target]]] = {}
    for document_id, text in batch:
        occurrences = finder.occurrences(text)
        if occurrences:
            found[document_id] = occurrences
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
    created: list[Proposal] = []
    # (decision, keep reason, entity, whether a person sees a change) → proposals to give
    # that choice: one UPDATE each.
    updated: dict[tuple[str, str, int, bool], list[int]] = {}
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
                # Only a change a person sees (the decision, its reason) is a new version: a
                # proposal that merely learns its entity keeps the version the page holds.
                seen = span.decision != target.decision or span.keep_reason != target.keep_reason
                key = (target.decision, target.keep_reason, target.alias.entity_id, seen)
                updated.setdefault(key, []).append(span.pk)
                continue
            if any(_is_persons(s) for s in overlapping):
                continue
            if any(s.start <= start and end <= s.end for s in overlapping):
                # A wider proposal holds the occurrence (an address, a handle, a longer
                # name): it stays, whole, for the person to decide; a word of it alone
                # would leave the rest of it unseen in a release.
                continue
            # Proposals that only overlap it are another machine's: they stay beside it.
            new = Proposal(
                document_id=document_id,
                start=start,
                end=end,
                label=target.label,
                source=SpanSource.KNOWN,
                score=1.0,
                decision=target.decision,
                keep_reason=target.keep_reason,
                entity_id=target.alias.entity_id,
            )
            existing.append(proposal_span(new))
            created.append(new)
            if statuses.get(document_id) == DocumentStatus.DONE:
                reopened.add(document_id)
    for (decision, keep_reason, entity_id, seen), ids in updated.items():
        if seen:
            Span.objects.filter(pk__in=ids).update(
                decision=decision,
                keep_reason=keep_reason,
                entity_id=entity_id,
                version=F("version") + 1,
                updated_at=now,
            )
        else:
            Span.objects.filter(pk__in=ids).update(entity_id=entity_id)
    if created:
        bulk_propose(created)
    if conflicts:
        ReviewItem.objects.bulk_create(conflicts)
    if reopened:
        Document.objects.filter(pk__in=reopened).update(
            status=DocumentStatus.IN_PROGRESS, updated_at=now
        )
    summary.proposed += len(created)
    summary.updated += sum(len(ids) for ids in updated.values())
    summary.conflicts += len(conflicts)
