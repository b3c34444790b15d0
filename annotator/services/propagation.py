"""Propagation: a choice new to the correspondence table is proposed wherever its surface
occurs, in every document and language of the project.

The database narrows the documents to those whose folded text (`Document.search_text`: case,
accents, Arabic letter variants and spaces folded as the known-entity matcher folds them)
holds a folded surface (`annotator.selectors.corpus`); the engine's matcher then finds the
exact occurrences, Arabic proclitics included, in those documents only.
For each occurrence:

- a proposal at the same place takes the choice (decision, entity), and stays a proposal for
  the annotator of that document to confirm;
- a span a person decided the same way is left alone; one decided otherwise becomes a review
  item for the lead ("one surface, two decisions"): a person's decision is never overwritten;
- a stretch a person rejected (not an identifier here) stays rejected: the pass never proposes
  it again, nor reopens the document for it (the release's check finds the name, if it is
  one); a proposal rejected by nobody (set aside by another span) does not count;
- a person's span that overlaps it keeps it out, and so does a wider proposal that holds it
  (an e-mail address or a handle with the name in it): no proposal is destroyed or cut by
  another machine's, so nothing a detector found goes unseen;
- elsewhere, a new proposal (source `known`) carries the choice, beside any proposal it only
  overlaps (the person accepting one rejects the others).

A document marked done that receives a proposal goes back to in progress.

Decisions made close together are propagated in one pass. A decision that makes a choice new
to the table (what follows a decision, `annotator.services.after_decision`, or a
lead's resolution) records it as a `PendingPropagation` row in its own transaction, so that
the choice to propagate commits or rolls back with the decision; once it commits, one
`propagate` task per project is sent CLOAK_PROPAGATION_WINDOW seconds later, however many
decisions come meanwhile (a key in the cache says one is on its way). The pass claims every
pending row of its project, builds one finder over all their surfaces (and the token-level
aliases cut from them), narrows the documents once, reads each candidate once, and writes.

The worker never waits for a person: it writes a few documents at a time, each group in a
short transaction of its own, locking them in id order with SKIP LOCKED. A document a
person's write holds is left for a later pass: the pass's rows stay pending for those
documents only (`document_ids`), and the task sends itself again. A pass that fails puts its
rows back; one whose worker died leaves them claimed, and a later pass takes them over once
the claim is CLOAK_JOB_STALE_AFTER seconds old (the pass renews it as it goes). Every pass is
idempotent: a choice proposed twice finds its proposals in place.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import NamedTuple

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, transaction
from django.db.models import F, Q
from django.utils import timezone

from annotator.models import (
    Document,
    DocumentStatus,
    PendingPropagation,
    Project,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
    Span,
    SpanSource,
    SpanStatus,
    span_held_by_person,
)
from annotator.selectors.corpus import documents_holding, in_chunks
from annotator.services.jobs import BROKER_ERRORS, task
from annotator.services.proposals import Proposal, propose
from annotator.services.span_events import Decided
from annotator.services.table import Choice, alias_family
from pseudonymizer.folding import fold_key
from pseudonymizer.recognizers.known import KnownEntityRecognizer, search_pattern
from pseudonymizer.spans import Span as PlainSpan
from pseudonymizer.spans import select_non_overlapping

logger = logging.getLogger(__name__)

# Candidate documents read at once.
CHUNK = 2000
# Documents, and occurrences, written per transaction at most: what bounds how long a person's
# write to one of them may wait.
GROUP = 50
GROUP_OCCURRENCES = 400
# How often a pass renews its claim, in seconds.
RENEW_EVERY = 30
# Passes sent again for documents a person's write held; then they wait for the next pass.
RETRIES = 5


def new_choices_propagate(event: Decided) -> None:
    """Propose each choice the decision made new to the table everywhere else, once it
    commits (`annotator.services.after_decision`)."""
    for new in event.new_choices:
        propagation_request(
            project_id=event.project.pk, alias_id=new.alias_id, source_span_id=new.span_id
        )


def propagation_request(
    *, project_id: int, alias_id: int, source_span_id: int | None = None
) -> None:
    """Record, in the caller's transaction, that the choice of alias `alias_id` is to be
    proposed wherever its surfaces occur; once it commits, make sure a pass is coming."""
    PendingPropagation.objects.create(
        project_id=project_id, alias_id=alias_id, source_span_id=source_span_id
    )
    transaction.on_commit(lambda: _pass_send(project_id))


def _pass_key(project_id: int) -> str:
    return f"cloak:propagation-pass:{project_id}"


def _pass_send(project_id: int, *, retry: int = 0) -> bool:
    """Send the project's next pass, unless one is on its way; True when this call sent it.
    A broker that cannot take it is logged: the rows stay pending for the next pass."""
    window = settings.CLOAK_PROPAGATION_WINDOW
    countdown = window * 2**retry
    try:
        # The key outlives the wait a little: a pass whose worker is busy elsewhere for longer
        # lets the next decision send another (which finds the rows claimed, or none).
        if not cache.add(_pass_key(project_id), 1, timeout=countdown + 5):
            return False
        task("propagate").apply_async(
            args=[project_id], kwargs={"retry": retry}, countdown=countdown
        )
    except BROKER_ERRORS as error:
        cache.delete(_pass_key(project_id))
        logger.error("a propagation pass could not be sent (%s)", type(error).__name__)
        return False
    return True


def propagation_sweep() -> int:
    """Send a pass to each project whose pending choices no pass is coming for: the broker or
    the cache was away when they were decided, a worker died holding them, or documents a
    person held outlasted their retries. Run with the job reaper (beat); the number of passes
    sent."""
    now = timezone.now()
    window = settings.CLOAK_PROPAGATION_WINDOW
    waited = now - timedelta(seconds=max(60, 10 * window))
    stale = now - timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    forgotten = PendingPropagation.objects.filter(
        Q(claim__isnull=True) | Q(claimed_at__lt=stale), created_at__lt=waited
    )
    projects = sorted(set(forgotten.values_list("project_id", flat=True)))
    return sum(_pass_send(project_id) for project_id in projects)


@dataclass
class PropagationSummary:
    choices: int = 0  # pending rows the pass took
    documents_searched: int = 0
    proposed: int = 0
    updated: int = 0
    conflicts: int = 0
    skipped: int = 0  # documents a person's write held: left for a later pass


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


class _Finder:
    """The occurrences of the targets' surfaces in a text, as the known-entity matcher finds
    them. With a few targets, looked for only around what their search patterns hit: most of
    a long document is never normalised. With many, the matcher reads the whole text once
    (its automaton costs the same for any number of surfaces, an alternation of patterns
    does not)."""

    # Enough text on each side for the matcher to see word edges and proclitics (و+ب+ال).
    MARGIN = 8
    # Beyond this many patterns, one run of the matcher over the whole text costs less (on
    # posts of 60-100 words: 7 µs a document for 1 pattern, 18 for 4, 138 for 8, against
    # 35-47 for the matcher whatever their number).
    FEW = 4

    def __init__(self, targets: list[_Target]) -> None:
        self.search: re.Pattern[str] | None = None
        if len(targets) <= self.FEW:  # building a pattern costs more than reading a text
            patterns = [p for t in targets if (p := search_pattern(t.surface)) is not None]
            if patterns:
                self.search = re.compile("|".join(f"(?:{p})" for p in patterns))
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

    def occurrences(self, text: str) -> list[tuple[int, int, _Target]]:
        result = []
        for span in self._spans(text):
            target = self.by_key.get(fold_key(text[span.start : span.end]))
            if target is not None:
                result.append((span.start, span.end, target))
        return result

    def _spans(self, text: str) -> list[PlainSpan]:
        if self.search is None:
            return self.matcher.recognize_one(text)
        found: list[PlainSpan] = []
        for hit in self.search.finditer(text):
            low = max(0, hit.start() - self.MARGIN)
            high = min(len(text), hit.end() + self.MARGIN)
            for span in self.matcher.recognize_one(text[low:high]):
                start, end = span.start + low, span.end + low
                if start < hit.end() and end > hit.start():
                    found.append(PlainSpan(start, end, span.label))
        return select_non_overlapping(
            list(dict.fromkeys(found)), lambda s: (s.start - s.end, s.start)
        )


def propagate_choice(
    *, project_id: int, alias_id: int, source_span_id: int | None = None
) -> PropagationSummary:
    """Propose the choice of alias `alias_id` (and of its token-level aliases) at every
    occurrence of their surfaces in the project, now, in a pass with whatever else of the
    project is pending (tests and management code; people's decisions go through
    `propagation_request`). Idempotent."""
    PendingPropagation.objects.create(
        project_id=project_id, alias_id=alias_id, source_span_id=source_span_id
    )
    return propagation_pass(project_id=project_id)


def propagation_run(*, project_id: int, retry: int = 0) -> PropagationSummary:
    """The `propagate` task: one pass; when a person's write held documents, another pass
    for them later (up to RETRIES times in a row, each waiting twice as long)."""
    summary = propagation_pass(project_id=project_id)
    if summary.skipped and retry < RETRIES:
        _pass_send(project_id, retry=retry + 1)
    return summary


def propagation_pass(*, project_id: int) -> PropagationSummary:
    """Claim every pending choice of the project and propose them all in one pass; the
    claimed rows are deleted once written, or kept for the documents a person's write held.
    Idempotent."""
    summary = PropagationSummary()
    # Before the claim: a decision that commits from now on sends a pass of its own, and
    # one that committed before is claimed here.
    cache.delete(_pass_key(project_id))
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return summary
    claim = uuid.uuid4()
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    claimable = Q(claim__isnull=True) | Q(claimed_at__lt=stale)
    PendingPropagation.objects.filter(claimable, project_id=project_id).update(
        claim=claim, claimed_at=now
    )
    claimed = PendingPropagation.objects.filter(claim=claim)
    rows = list(claimed.values_list("alias_id", "source_span_id", "document_ids"))
    if not rows:
        return summary
    summary.choices = len(rows)
    try:
        skipped = _propagate(project, rows, claim, summary)
    except BaseException:
        _release(claim)
        raise
    if skipped:
        # The documents a person held: those alone, next time.
        claimed.update(document_ids=sorted(skipped), claim=None, claimed_at=None)
    else:
        claimed.delete()
    summary.skipped = len(skipped)
    logger.info(
        "propagated %s choices in %s: %s documents searched, %s proposed, %s updated, "
        "%s conflicts, %s documents left for a later pass",
        summary.choices,
        project.slug,
        summary.documents_searched,
        summary.proposed,
        summary.updated,
        summary.conflicts,
        summary.skipped,
    )
    return summary


def _release(claim: uuid.UUID) -> None:
    """Put a failed pass's rows back, for the next pass (or its retry)."""
    try:
        PendingPropagation.objects.filter(claim=claim).update(claim=None, claimed_at=None)
    except DatabaseError:
        # The database is away: the claim goes stale, and a later pass takes the rows over.
        logger.warning("a failed propagation pass could not put its choices back")


def _propagate(
    project: Project,
    rows: list[tuple[int, int | None, list[int] | None]],
    claim: uuid.UUID,
    summary: PropagationSummary,
) -> set[int]:
    """Propose the rows' choices; the documents skipped (a person's write held them)."""
    targets = [
        _Target(choice, surface)
        for choice, surface in alias_family(project, {alias_id for alias_id, _, _ in rows})
    ]
    finder = _Finder(targets)
    if not finder.keys:
        return set()
    sources = {span_id for _, span_id, _ in rows if span_id is not None}
    within: set[int] | None = None
    if all(documents is not None for _, _, documents in rows):
        within = {document_id for _, _, documents in rows for document_id in documents or ()}
    skipped: set[int] = set()
    renewed = time.monotonic()
    for chunk in in_chunks(documents_holding(project.pk, finder.keys, within=within), CHUNK):
        texts = Document.objects.filter(pk__in=chunk).order_by("pk").values_list("pk", "text")
        summary.documents_searched += len(chunk)
        found: dict[int, list[tuple[int, int, _Target]]] = {}
        for document_id, text in texts:
            occurrences = finder.occurrences(text)
            if occurrences:
                found[document_id] = occurrences
        for group in _groups(found):
            skipped |= _occurrences_write(project, group, sources, summary)
            if time.monotonic() - renewed > RENEW_EVERY:
                PendingPropagation.objects.filter(claim=claim).update(claimed_at=timezone.now())
                renewed = time.monotonic()
    return skipped


# What the writer reads of a document's spans (their times and texts it never needs).
class _Existing(NamedTuple):
    """What the writer reads of a span: plain values, not a model (a long document that the
    project's names recur in holds thousands of spans, each pass reads them all)."""

    pk: int | None
    start: int
    end: int
    source: str
    status: str
    decision: str
    keep_reason: str
    entity_id: int | None


# The columns of `_Existing`, in its order, and the span's document.
SPAN_FIELDS = ("pk", "start", "end", "source", "status", "decision", "keep_reason", "entity_id",
               "document_id")  # fmt: skip


def _groups(
    found: dict[int, list[tuple[int, int, _Target]]],
) -> Iterator[dict[int, list[tuple[int, int, _Target]]]]:
    """The documents in id order, cut into transactions of at most GROUP documents and, but
    for a document alone, GROUP_OCCURRENCES occurrences."""
    group: dict[int, list[tuple[int, int, _Target]]] = {}
    occurrences = 0
    for document_id in sorted(found):
        matches = found[document_id]
        if group and (len(group) >= GROUP or occurrences + len(matches) > GROUP_OCCURRENCES):
            yield group
            group, occurrences = {}, 0
        group[document_id] = matches
        occurrences += len(matches)
    if group:
        yield group


class _Placed:
    """A document's spans by place: those overlapping a stretch found by bisection, not by
    looking at every span of a document that may hold thousands."""

    def __init__(self, spans: list[_Existing]) -> None:
        self.spans = sorted(spans, key=lambda span: span.start)  # stable: the read's order
        self.starts = [span.start for span in self.spans]
        self.longest = max((span.end - span.start for span in spans), default=0)

    def overlapping(self, start: int, end: int) -> list[_Existing]:
        found = []
        index = bisect_left(self.starts, start - self.longest)
        while index < len(self.spans) and self.starts[index] < end:
            span = self.spans[index]
            if span.end > start:
                found.append(span)
            index += 1
        return found

    def add(self, span: _Existing) -> None:
        index = bisect_right(self.starts, span.start)
        self.starts.insert(index, span.start)
        self.spans.insert(index, span)
        self.longest = max(self.longest, span.end - span.start)


def _documents_lock(found: Iterable[int]) -> dict[int, str]:
    """Lock the documents that will change, in id order (as every writer does), skipping one
    a person's write holds now (not waited for); the status of each locked, by id. A person's
    write to one of them afterwards waits for this short transaction, and is not lost."""
    return dict(
        Document.objects.select_for_update(skip_locked=True)
        .filter(pk__in=sorted(found))
        .order_by("pk")
        .values_list("pk", "status")
    )


@dataclass(frozen=True)
class _Held:
    """What the rules read of the locked documents: their spans not rejected, placed; the
    stretches a person rejected (never proposed again); the spans with an open conflict."""

    spans: dict[int, _Placed]
    rejected: dict[int, set[tuple[int, int]]]
    open_conflicts: set[int]


def _held_read(project: Project, document_ids: list[int]) -> _Held:
    spans: dict[int, list[_Existing]] = {}
    for *values, document_id in (
        Span.objects.filter(document_id__in=document_ids)
        .exclude(status=SpanStatus.REJECTED)
        .order_by("document_id", "start", "end", "pk")
        .values_list(*SPAN_FIELDS)
    ):
        spans.setdefault(document_id, []).append(_Existing(*values))
    rejected: dict[int, set[tuple[int, int]]] = {}
    for document_id, start, end in Span.objects.filter(
        document_id__in=document_ids, status=SpanStatus.REJECTED, decided_by__isnull=False
    ).values_list("document_id", "start", "end"):
        rejected.setdefault(document_id, set()).add((start, end))
    open_conflicts = set(
        ReviewItem.objects.filter(
            project=project,
            kind=ReviewKind.SURFACE_CONFLICT,
            status=ReviewStatus.OPEN,
            span__document_id__in=document_ids,
        ).values_list("span_id", flat=True)
    )
    placed = {document_id: _Placed(spans.get(document_id, [])) for document_id in document_ids}
    return _Held(placed, rejected, open_conflicts)


@dataclass
class _Plan:
    """What a pass writes to the documents it locked, decided occurrence by occurrence
    (`_occurrence_plan`) and then written at once (`_plan_write`)."""

    created: list[Proposal] = field(default_factory=list)
    # (decision, keep reason, entity, whether a person sees a change) → proposals to give
    # that choice: one UPDATE each.
    updated: dict[tuple[str, str, int, bool], list[int]] = field(default_factory=dict)
    conflicts: list[ReviewItem] = field(default_factory=list)
    reopened: set[int] = field(default_factory=set)


def _occurrence_plan(
    plan: _Plan,
    project: Project,
    held: _Held,
    sources: set[int],
    document_id: int,
    occurrence: tuple[int, int, _Target],
    *,
    done: bool,
) -> None:
    """The rules for one occurrence of a choice in a document: what the pass does there."""
    start, end, target = occurrence
    if (start, end) in held.rejected.get(document_id, set()):
        return  # a person rejected this stretch: never proposed again
    existing = held.spans[document_id]
    overlapping = existing.overlapping(start, end)
    same = [s for s in overlapping if s.start == start and s.end == end]
    if any(s.pk in sources for s in overlapping):
        return
    if same:
        span = same[0]
        if span.pk is None:
            return  # proposed by this pass, for another of its choices: that stays
        if span_held_by_person(span.status, span.source):
            if span.decision != target.decision and span.pk not in held.open_conflicts:
                held.open_conflicts.add(span.pk)
                plan.conflicts.append(
                    ReviewItem(
                        project=project,
                        kind=ReviewKind.SURFACE_CONFLICT,
                        document_id=document_id,
                        span_id=span.pk,
                        entity_id=target.alias.entity_id,
                        detail={"decisions": [span.decision, target.decision]},
                    )
                )
            return
        if span.entity_id == target.alias.entity_id and span.decision == target.decision:
            return
        # Only a change a person sees (the decision, its reason) is a new version: a
        # proposal that merely learns its entity keeps the version the page holds.
        seen = span.decision != target.decision or span.keep_reason != target.keep_reason
        key = (target.decision, target.keep_reason, target.alias.entity_id, seen)
        plan.updated.setdefault(key, []).append(span.pk)
        return
    if any(span_held_by_person(s.status, s.source) for s in overlapping):
        return
    if any(s.start <= start and end <= s.end for s in overlapping):
        # A wider proposal holds the occurrence (an address, a handle, a longer name): it
        # stays, whole, for the person to decide; a word of it alone would leave the rest of
        # it unseen in a release.
        return
    # Proposals that only overlap it are another machine's: they stay beside it.
    plan.created.append(
        Proposal(
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
    )
    existing.add(
        _Existing(None, start, end, SpanSource.KNOWN, SpanStatus.PROPOSED,
                  target.decision, target.keep_reason, target.alias.entity_id)
    )  # fmt: skip
    if done:
        plan.reopened.add(document_id)


def _plan_write(plan: _Plan) -> None:
    now = timezone.now()
    for (decision, keep_reason, entity_id, seen), ids in plan.updated.items():
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
    if plan.created:
        propose(plan.created)
    if plan.conflicts:
        ReviewItem.objects.bulk_create(plan.conflicts)
    if plan.reopened:
        Document.objects.filter(pk__in=plan.reopened).update(
            status=DocumentStatus.IN_PROGRESS, updated_at=now
        )


@transaction.atomic
def _occurrences_write(
    project: Project,
    found: dict[int, list[tuple[int, int, _Target]]],
    sources: set[int],
    summary: PropagationSummary,
) -> set[int]:
    """Write the occurrences of a few documents, in a transaction of their own: lock them,
    read what the rules need, decide each occurrence, write the plan. The documents skipped
    because a person's write holds them."""
    statuses = _documents_lock(found)
    skipped = set(found) - statuses.keys()
    if not statuses:
        return skipped
    held = _held_read(project, list(statuses))
    plan = _Plan()
    for document_id in (document_id for document_id in found if document_id in statuses):
        done = statuses[document_id] == DocumentStatus.DONE
        for occurrence in found[document_id]:
            _occurrence_plan(plan, project, held, sources, document_id, occurrence, done=done)
    _plan_write(plan)
    summary.proposed += len(plan.created)
    summary.updated += sum(len(ids) for ids in plan.updated.values())
    summary.conflicts += len(plan.conflicts)
    return skipped
