"""The lead's review queue: what the system finds wrong in the project's decisions, what
annotators flag, and the lead's resolution of each.

Items come from three places:

- an annotator's flag (`annotator.services.spans`), with their comment;
- a choice refused by the correspondence table: an annotator asked for a decision or a
  pseudonym that the surface's recorded choice contradicts (409, `SurfaceConflict`); the
  attempt is recorded here (`review_attempt_record`) rather than lost;
- `review_scan`, which looks over the whole project (a task, queued when the lead opens the
  queue or asks for it; see `review_scan_request`).

What `review_scan` raises, each kind defined on what the project holds now (accepted spans of
the corpus, never of a replica given to a second annotator, and the correspondence table):

- SURFACE_CONFLICT, one surface with two decisions: the accepted spans of one entity whose
  surface is the same (compared as the table compares surfaces: NFC, case and spaces folded)
  carry more than one decision, counting the entity's own decision in the table. One item a
  surface of an entity.
- KEEP_CONFLICT, kept in one language and replaced in another: an entity with an accepted
  span decided `keep` in one language and an accepted span decided otherwise in another
  language. It stands in for the surface conflicts of that entity (one item, not several).
- ENTITY_CONFLICT, one entity with two pseudonyms for the same words: two aliases of one
  entity in one language (full or token-level, with a replacement) map one word of their
  originals to two different pieces of their replacements. A word is paired with a piece
  when the original and its replacement have as many words (one word to the whole
  replacement for a one-word original); words replaced by themselves, or with fewer than two
  letters or digits, are not paired (as `pseudonymizer.keytable.token_aliases`). "Moshe" →
  "Raj" beside "Moshe Cohen" → "Dov Levi" after a merge is one.
- ORIGINAL_REPLACEMENT, a pseudonym that is an original somewhere: a replacement of the table,
  folded as the known-entity matcher folds text (`pseudonymizer.recognizers.known.fold`),
  occurs as whole words in the folded text (`Document.search_text`) of a document of the
  project.

Every found conflict has a fingerprint (its kind and what it is about, hashed; a pseudonym in
it as its keyed digest): a scan never raises a conflict that is open already, nor one the lead
dismissed in the same state; a conflict the lead resolved that is still there is raised again,
as a new item. An item's `detail` and `resolution` hold ids, labels, decisions and languages,
never an original nor a pseudonym: with the document's text, which the web role reads too, a
pseudonym there would pair an original with its replacement. The pseudonyms of an item (those
in conflict, the one an annotator wanted, the one the lead applied) are kept with the keys
(`annotator.services.table.review_note_write`), and shown to leads through an audited read.

Resolving (`review_resolve`) applies the lead's decision to the entity in the table, to every
span of the entity in the corpus, and proposes it wherever the entity's surfaces occur
(propagation); `review_dismiss` closes an item and changes nothing else. Both need a
rationale, which the annotators see on their documents, and both refuse an item that is
resolved already (409).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.db.models.functions import Substr
from django.utils import timezone

from annotator import tasks
from annotator.models import (
    AuditAction,
    Comment,
    Document,
    Project,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
    Span,
    SpanStatus,
)
from annotator.permissions import acting_user
from annotator.services.audit import audit_record
from annotator.services.decisions import check_decision, check_known_decision, kept_reason
from annotator.services.errors import ConflictError, DomainError, NotFoundError
from annotator.services.table import (
    EntityChange,
    NamedAlias,
    SurfaceConflict,
    alias_of,
    entity_decisions,
    entity_names,
    entity_relabel,
    entity_update,
    normalise_surface,
    pseudonym_digest,
    replaced_groups,
    replacements,
    review_note_write,
    surface_decide,
    surface_digest,
)
from pseudonymizer.pseudonyms.shape import split_whitespace
from pseudonymizer.recognizers.known import fold
from pseudonymizer.vocabulary import REPLACED_DECISIONS, Decision

logger = logging.getLogger(__name__)

MAX_RATIONALE = 5000
MAX_COMMENT = 5000
# How often opening the queue may queue a scan of the project (seconds).
SCAN_INTERVAL = 300
# How many span, alias or document ids an item's detail lists, at most.
DETAIL_IDS = 20
CHUNK = 1000
RESOLVE = "resolve"
DISMISS = "dismiss"
# Whole words of folded text (`fold` keeps letters, digits and punctuation apart).
_WORD = re.compile(r"\w+")


def _fingerprint(kind: str, *parts: object) -> str:
    return hashlib.sha256("\x1f".join([kind, *map(str, parts)]).encode()).hexdigest()


# --- Detection ----------------------------------------------------------------------------


@dataclass
class ScanSummary:
    """How many items a scan raised, by kind."""

    raised: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str) -> None:
        self.raised[kind] = self.raised.get(kind, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.raised.values())


class _Raiser:
    """Opens items, each at most once: not while one with its fingerprint is open, nor when
    the lead dismissed it as it stands."""

    def __init__(self, project: Project, summary: ScanSummary) -> None:
        self.project = project
        self.summary = summary
        quiet = ReviewItem.objects.filter(project=project).exclude(fingerprint="")
        quiet = quiet.filter(Q(status=ReviewStatus.OPEN) | Q(resolution__action=DISMISS))
        self.quiet = set(quiet.values_list("fingerprint", flat=True))
        # Spans already under an open surface conflict (propagation raises those, without a
        # fingerprint): the scan does not raise the same conflict again.
        self.spans_in_conflict = set(
            ReviewItem.objects.filter(
                project=project,
                kind=ReviewKind.SURFACE_CONFLICT,
                status=ReviewStatus.OPEN,
                span__isnull=False,
            ).values_list("span_id", flat=True)
        )

    def raise_item(
        self, kind: str, fingerprint: str, note: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """Open an item of `fields`; `note` holds its pseudonyms, kept with the keys."""
        if fingerprint in self.quiet:
            return
        self.quiet.add(fingerprint)
        try:
            with transaction.atomic():
                item = ReviewItem.objects.create(
                    project=self.project, kind=kind, fingerprint=fingerprint, **fields
                )
        except IntegrityError:
            return  # another scan raised it meanwhile: one open item a conflict
        review_note_write(project=self.project, item_id=item.pk, detail=note)
        self.summary.add(kind)


def _decided_spans(project: Project) -> Any:
    """The corpus's spans a person accepted that point at an entity (no replica's)."""
    return (
        Span.objects.on_originals()
        .filter(document__project=project, status=SpanStatus.ACCEPTED, entity_id__isnull=False)
        .order_by()
    )


def _chunks(values: list[int], size: int = CHUNK) -> Iterator[list[int]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _scan_decisions(
    project: Project, entities: dict[int, tuple[str, str]], raiser: _Raiser
) -> None:
    """Keep conflicts (per entity) and surface conflicts (per surface of an entity)."""
    pairs: dict[int, set[tuple[str, str]]] = defaultdict(set)
    rows = _decided_spans(project).values_list("entity_id", "document__language", "decision")
    for entity_id, language, decision in rows.distinct():
        pairs[entity_id].add((language, decision))
    candidates: list[int] = []
    for entity_id, seen in sorted(pairs.items()):
        if entity_id not in entities:
            continue  # no longer in the table (merged away): nothing to compare with
        decision, label = entities[entity_id]
        kept = sorted({language for language, d in seen if d == Decision.KEEP})
        replaced = sorted({language for language, d in seen if d != Decision.KEEP})
        if any(x != y for x in kept for y in replaced):
            _raise_keep_conflict(project, entity_id, label, kept, replaced, seen, raiser)
        elif len({d for _, d in seen} | {decision}) > 1:
            candidates.append(entity_id)
    for chunk in _chunks(candidates):
        _scan_surfaces(project, chunk, entities, raiser)


def _raise_keep_conflict(
    project: Project,
    entity_id: int,
    label: str,
    kept: list[str],
    replaced: list[str],
    seen: set[tuple[str, str]],
    raiser: _Raiser,
) -> None:
    span = (
        _decided_spans(project)
        .filter(entity_id=entity_id, decision=Decision.KEEP)
        .order_by("pk")
        .values_list("pk", "document_id", "document__language")
        .first()
    )
    if span is None:
        return
    decisions = {language: sorted(d for lang, d in seen if lang == language) for language in
                 sorted({lang for lang, _ in seen})}  # fmt: skip
    raiser.raise_item(
        ReviewKind.KEEP_CONFLICT,
        _fingerprint(ReviewKind.KEEP_CONFLICT, entity_id, kept, replaced),
        document_id=span[1],
        span_id=span[0],
        entity_id=entity_id,
        detail={
            "entity_id": entity_id,
            "label": label,
            "language": span[2],
            "kept_in": kept,
            "replaced_in": replaced,
            "decisions_by_language": decisions,
        },
    )


def _scan_surfaces(
    project: Project,
    entity_ids: list[int],
    entities: dict[int, tuple[str, str]],
    raiser: _Raiser,
) -> None:
    # The surface is cut from the text by the database, for these spans only, and is held
    # only long enough to take its keyed digest.
    rows = (
        _decided_spans(project)
        .filter(entity_id__in=entity_ids)
        .annotate(surface=Substr("document__text", F("start") + 1, F("end") - F("start")))
        .values_list("pk", "entity_id", "document_id", "document__language", "decision", "surface")
        .order_by("pk")
    )
    groups: dict[tuple[int, str], list[tuple[int, int, str, str]]] = defaultdict(list)
    for pk, entity_id, document_id, language, decision, surface in rows:
        digest = surface_digest(project, surface)
        groups[(entity_id, digest)].append((pk, document_id, language, decision))
    for (entity_id, digest), spans in groups.items():
        recorded, label = entities[entity_id]
        decisions = sorted({d for *_, d in spans})
        if len(set(decisions) | {recorded}) < 2:
            continue
        if any(pk in raiser.spans_in_conflict for pk, *_ in spans):
            continue
        dissent = next((s for s in spans if s[3] != recorded), spans[0])
        raiser.raise_item(
            ReviewKind.SURFACE_CONFLICT,
            _fingerprint(ReviewKind.SURFACE_CONFLICT, entity_id, digest, decisions, recorded),
            document_id=dissent[1],
            span_id=dissent[0],
            entity_id=entity_id,
            detail={
                "entity_id": entity_id,
                "label": label,
                "language": dissent[2],
                "languages": sorted({s[2] for s in spans}),
                "decisions": decisions,
                "recorded": recorded,
                "spans": [s[0] for s in spans][:DETAIL_IDS],
            },
        )


def _word_pieces(original: str, replacement: str) -> list[tuple[str, str]]:
    """The (word, piece) pairs of an alias, both normalised (see the module's docstring)."""
    words, _ = split_whitespace(original.strip())
    pieces, _ = split_whitespace(replacement.strip())
    if len(words) == 1:
        pairs = [(words[0], replacement)]
    elif len(words) == len(pieces):
        pairs = list(zip(words, pieces, strict=True))
    else:
        return []
    found = []
    for word, piece in pairs:
        key, value = normalise_surface(word), normalise_surface(piece)
        if sum(char.isalnum() for char in key) < 2 or not value or key == value:
            continue
        found.append((key, value))
    return found


def _scan_aliases(project: Project, raiser: _Raiser) -> None:
    """Entity conflicts. Decrypts the originals of the entities with two aliases in one
    language, in memory only."""
    for entity_id, language, members in replaced_groups(project, CHUNK):
        _raise_entity_conflict(entity_id, language, members, raiser)


def _raise_entity_conflict(
    entity_id: int, language: str, members: list[NamedAlias], raiser: _Raiser
) -> None:
    pieces: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for alias in members:
        for word, piece in _word_pieces(alias.original, alias.replacement):
            pieces[word][piece].add(alias.id)
    involved: set[int] = set()
    for by_piece in pieces.values():
        if len(by_piece) > 1:
            for ids in by_piece.values():
                involved |= ids
    if not involved:
        return
    chosen = [alias for alias in members if alias.id in involved]
    # The newest alias (a full one before a word cut from it) is the one to re-pseudonymize.
    subject = max(chosen, key=lambda alias: (alias.parent_id is None, alias.id))
    project = raiser.project
    raiser.raise_item(
        ReviewKind.ENTITY_CONFLICT,
        _fingerprint(
            ReviewKind.ENTITY_CONFLICT,
            entity_id,
            language,
            sorted((alias.id, pseudonym_digest(project, alias.replacement)) for alias in chosen),
        ),
        note={"replacements": sorted({alias.replacement for alias in chosen})},
        entity_id=entity_id,
        detail={
            "entity_id": entity_id,
            "label": members[0].label,
            "language": language,
            "alias_id": subject.id,
            "alias_ids": sorted(alias.id for alias in chosen),
        },
    )


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(fold(text)))


def _scan_originals(project: Project, raiser: _Raiser) -> None:
    """Replacements that occur as whole words in the corpus: every document's folded text is
    read once, in chunks, and its runs of words looked up among the replacements'."""
    index: dict[tuple[str, ...], list[tuple[int, int, str, str, str]]] = defaultdict(list)
    for pk, entity_id, language, replacement, label in replacements(project, CHUNK):
        words = _words(replacement)
        if words:
            index[words].append((pk, entity_id, language, replacement, label))
    if not index:
        return
    sizes = sorted({len(words) for words in index})
    found: dict[tuple[str, ...], list[int]] = defaultdict(list)
    documents = (
        Document.objects.filter(project=project)
        .originals()
        .values_list("pk", "search_text")
        .order_by("pk")
    )
    for document_id, search_text in documents.iterator(chunk_size=200):
        tokens = _WORD.findall(search_text)
        hits: set[tuple[str, ...]] = set()
        for size in sizes:
            for start in range(len(tokens) - size + 1):
                run = tuple(tokens[start : start + size])
                if run in index:
                    hits.add(run)
        for run in hits:
            found[run].append(document_id)
    for run, document_ids in found.items():
        for pk, entity_id, language, replacement, label in index[run]:
            raiser.raise_item(
                ReviewKind.ORIGINAL_REPLACEMENT,
                _fingerprint(
                    ReviewKind.ORIGINAL_REPLACEMENT, pk, pseudonym_digest(project, replacement)
                ),
                note={"replacement": replacement},
                document_id=document_ids[0],
                entity_id=entity_id,
                detail={
                    "entity_id": entity_id,
                    "label": label,
                    "language": language,
                    "alias_id": pk,
                    "documents": document_ids[:DETAIL_IDS],
                    "occurrences": len(document_ids),
                },
            )


def review_scan(*, project: Project) -> ScanSummary:
    """Look over the project for every kind of conflict (the module's docstring) and open an
    item for each not raised yet. Safe to run twice, and concurrently."""
    summary = ScanSummary()
    raiser = _Raiser(project, summary)
    entities = entity_decisions(project)
    _scan_decisions(project, entities, raiser)
    _scan_aliases(project, raiser)
    _scan_originals(project, raiser)
    cache.set(_scanned_key(project.pk), timezone.now().isoformat(), timeout=None)
    logger.info("review scan of %s raised %s item(s)", project.slug, summary.total)
    return summary


def _scanned_key(project_id: int) -> str:
    return f"cloak:review-scanned:{project_id}"


def review_last_scan(project: Project) -> str | None:
    """When the project was last scanned (ISO 8601), if known."""
    value = cache.get(_scanned_key(project.pk))
    return str(value) if value else None


def review_scan_request(*, project: Project, force: bool = False) -> bool:
    """Queue a scan of the project (a task), at most once every SCAN_INTERVAL seconds unless
    `force`: opening the queue asks for one, so the conflicts shown are recent without a scan
    after every click of every annotator. True when one was queued."""
    key = f"cloak:review-scan-queued:{project.pk}"
    if force:
        cache.set(key, 1, timeout=SCAN_INTERVAL)
    elif not cache.add(key, 1, timeout=SCAN_INTERVAL):
        return False
    project_id = project.pk
    transaction.on_commit(lambda: tasks.review_scan.delay(project_id))
    return True


# --- A choice the table refused -------------------------------------------------------------


def review_attempt_record(
    *,
    document: Document,
    actor: Any,
    conflict: SurfaceConflict,
    decision: str | None,
    replacement: str | None = None,
    keep_reason: str = "",
    span_id: int | None = None,
    start: int | None = None,
    end: int | None = None,
) -> ReviewItem | None:
    """Record an annotator's choice that the table refused (`conflict`) as an open surface
    conflict for the lead: what they wanted beside what the table holds. Called after the
    refused write rolled back; the same attempt twice is one item. `decision` None: the
    span's own."""
    current = None
    if span_id is not None:
        current = Span.objects.filter(pk=span_id).values_list("decision", "start", "end").first()
    if current is not None:
        decision = decision or current[0]
        start, end = current[1], current[2]
    if decision is None:
        return None
    winner = conflict.winner
    project = document.project
    fingerprint = _fingerprint(
        "attempt",
        document.pk,
        span_id if span_id is not None else f"{start}:{end}",
        decision,
        pseudonym_digest(project, replacement or ""),
        winner.entity_id,
    )
    user = acting_user(actor)
    try:
        with transaction.atomic():
            if ReviewItem.objects.filter(
                project_id=document.project_id, fingerprint=fingerprint, status=ReviewStatus.OPEN
            ).exists():
                return None
            item = ReviewItem.objects.create(
                project_id=document.project_id,
                kind=ReviewKind.SURFACE_CONFLICT,
                document=document,
                span_id=span_id if current is not None else None,
                entity_id=winner.entity_id,
                raised_by=user,
                fingerprint=fingerprint,
                detail={
                    "entity_id": winner.entity_id,
                    "label": winner.label,
                    "language": document.language,
                    "start": start,
                    "end": end,
                    "wanted": {"decision": decision},
                    "recorded": {"decision": winner.decision},
                },
            )
            wanted = kept_reason(decision, keep_reason)
            if wanted:
                body = f"Wanted to keep it: {wanted}"
                Comment.objects.create(review_item=item, author=user, body=body[:MAX_COMMENT])
    except IntegrityError:
        return None  # recorded meanwhile
    review_note_write(
        project=project,
        item_id=item.pk,
        detail={
            "wanted": {"replacement": replacement or ""},
            "recorded": {"replacement": winner.replacement},
        },
    )
    return item


# --- Resolution ------------------------------------------------------------------------------


def _locked_open(item: ReviewItem) -> ReviewItem:
    locked = (
        ReviewItem.objects.select_for_update(of=("self",))
        .select_related("project", "span", "document")
        .get(pk=item.pk)
    )
    if locked.status != ReviewStatus.OPEN:
        raise ConflictError(
            f"review item {locked.pk} is already resolved"
            + (f" ({locked.resolution.get('action')})" if locked.resolution else "")
        )
    return locked


def _check_rationale(rationale: str) -> str:
    rationale = (rationale or "").strip()
    if not rationale:
        raise DomainError("give a rationale: the annotators read it on their documents")
    if len(rationale) > MAX_RATIONALE:
        raise DomainError(f"a rationale is at most {MAX_RATIONALE} characters")
    return rationale


@dataclass(frozen=True)
class Applied:
    """What a resolution changed in the table."""

    aliases: list[int]  # the full aliases of the entity, to propagate
    replacement: str  # the subject alias's replacement now ("" when none)


def _apply_decision(
    *,
    project: Project,
    entity_id: int,
    decision: str,
    keep_reason: str,
    label: str | None,
    replacement: str | None,
    subject_alias_id: int | None,
    actor: Any,
    ip_address: str | None,
) -> Applied:
    """The lead's decision for an entity, in the correspondence table, through the keys'
    own edit (`annotator.services.table.entity_update`, audited as a key edit): its decision and
    reason, a fresh pseudonym for each surface that needs one, the pseudonym the lead typed
    for the subject alias; then its label."""
    if replacement and subject_alias_id is None:
        raise DomainError(
            "this item names no single surface to give a pseudonym: give a decision only"
        )
    replacements = {subject_alias_id: replacement} if replacement and subject_alias_id else {}
    try:
        entity_update(
            project=project,
            entity_id=entity_id,
            actor=actor,
            version=None,
            change=EntityChange(
                decision=decision, keep_reason=keep_reason, replacements=replacements
            ),
            ip_address=ip_address,
        )
    except NotFoundError:
        raise DomainError(
            "the entity of this item is no longer in the table (merged or removed): "
            "dismiss the item"
        ) from None
    if label:
        entity_relabel(project, entity_id, label)
    names = entity_names(project, entity_id)
    return Applied(list(names), names.get(subject_alias_id, "") if subject_alias_id else "")


def _subject_alias(project: Project, item: ReviewItem) -> int | None:
    """The alias a replacement the lead types is for: the one the item names, else the alias
    of its span's surface."""
    alias_id = item.detail.get("alias_id") if isinstance(item.detail, dict) else None
    if alias_id:
        return int(alias_id)
    if item.span is None:
        return None
    text = Document.objects.filter(pk=item.span.document_id).values_list("text", flat=True)[0]
    return alias_of(project, text[item.span.start : item.span.end])


def _entity_for_span(project: Project, span: Span, decision: str, actor: Any) -> int:
    """The entity of a span that has none yet (a flagged proposal): its surface's, recorded
    now if the table has none."""
    document = Document.objects.get(pk=span.document_id)
    try:
        choice = surface_decide(
            project=project,
            surface=document.text[span.start : span.end],
            language=document.language,
            label=span.label,
            decision=decision,
            actor=actor,
        )
    except SurfaceConflict as conflict:
        return conflict.winner.entity_id
    return choice.entity_id


def _propagate_on_commit(project_id: int, alias_id: int) -> None:
    transaction.on_commit(lambda: tasks.propagate.delay(project_id, alias_id, None))


@transaction.atomic
def review_resolve(
    *,
    item: ReviewItem,
    actor: Any,
    rationale: str,
    decision: str,
    replacement: str | None = None,
    label: str | None = None,
    keep_reason: str = "",
    ip_address: str | None = None,
) -> ReviewItem:
    """Apply the lead's `decision` (and pseudonym, label) to the item's entity: in the table,
    on every span of the entity in the corpus (a flagged proposal is accepted), and wherever
    its surfaces occur (propagation, a task). Raises DomainError (nothing changed) for a bad
    input, ConflictError when the item is resolved already."""
    rationale = _check_rationale(rationale)
    check_known_decision(decision)
    replacement = (replacement or "").strip() or None
    if replacement and decision not in REPLACED_DECISIONS:
        raise DomainError(f"a decision to {decision} takes no pseudonym")
    item = _locked_open(item)
    project = item.project
    if label and label not in project.labels:
        raise DomainError(f"unknown label {label!r}; the project's labels are "
                          f"{', '.join(project.labels)}")  # fmt: skip
    # Kept without a reason of its own: the rationale says why, when it fits as one.
    reason = (keep_reason or "").strip() or (rationale if decision == Decision.KEEP else "")
    keep_reason = check_decision(decision, reason, subject="entity")
    user = acting_user(actor)
    span = item.span
    entity_id = item.entity_id or (span.entity_id if span is not None else None)
    if entity_id is None:
        if span is None:
            raise DomainError("this item names no entity to decide: dismiss it")
        entity_id = _entity_for_span(project, span, decision, user)
    applied = _apply_decision(
        project=project,
        entity_id=entity_id,
        decision=decision,
        keep_reason=keep_reason,
        label=label,
        replacement=replacement,
        subject_alias_id=_subject_alias(project, item),
        actor=user,
        ip_address=ip_address,
    )
    now = timezone.now()
    changes: dict[str, Any] = {
        "decision": decision,
        "keep_reason": keep_reason,
        "version": F("version") + 1,
        "updated_by": user,
        "updated_at": now,
    }
    if label:
        changes["label"] = label
    # The keys' edit has the spans of the entity follow its decision; those it left (a label
    # changed, a keep reason) follow here, each changed once.
    behind = ~Q(decision=decision) | ~Q(keep_reason=changes["keep_reason"])
    if label:
        behind |= ~Q(label=label)
    following = Span.objects.on_originals().filter(document__project=project, entity_id=entity_id)
    following.exclude(status=SpanStatus.REJECTED).filter(behind).update(**changes)
    if span is not None and span.status != SpanStatus.REJECTED:
        # The item's own span: the lead's decision accepts it (a flagged proposal too).
        own = {**changes, "entity_id": entity_id}
        if span.status == SpanStatus.PROPOSED:
            own.update(status=SpanStatus.ACCEPTED, decided_by=user, decided_at=now)
        Span.objects.filter(pk=span.pk).filter(
            behind | Q(status=SpanStatus.PROPOSED) | ~Q(entity_id=entity_id)
        ).update(**own)
    for alias_id in applied.aliases:
        _propagate_on_commit(project.pk, alias_id)
    resolution: dict[str, Any] = {
        "action": RESOLVE,
        "decision": decision,
        "entity_id": entity_id,
    }
    if label:
        resolution["label"] = label
    if applied.replacement:
        # The pseudonym applied, beside the item's span: kept with the keys.
        review_note_write(
            project=project, item_id=item.pk, resolution={"replacement": applied.replacement}
        )
    return _close(item, user, rationale, resolution, ip_address)


@transaction.atomic
def review_dismiss(
    *, item: ReviewItem, actor: Any, rationale: str, ip_address: str | None = None
) -> ReviewItem:
    """Close the item as it stands, changing nothing else: the lead judged there is nothing
    to change. A scan does not raise the same conflict again while it stays the same."""
    rationale = _check_rationale(rationale)
    item = _locked_open(item)
    return _close(item, acting_user(actor), rationale, {"action": DISMISS}, ip_address)


def _close(
    item: ReviewItem,
    user: Any,
    rationale: str,
    resolution: dict[str, Any],
    ip_address: str | None,
) -> ReviewItem:
    item.status = ReviewStatus.RESOLVED
    item.rationale = rationale
    item.resolution = resolution
    item.resolved_by = user
    item.resolved_at = timezone.now()
    item.save(update_fields=["status", "rationale", "resolution", "resolved_by", "resolved_at"])
    audit_record(
        action=AuditAction.REVIEW_RESOLVE,
        actor=user,
        project=item.project,
        target=f"review:{item.pk}",
        # Ids and decisions only: never a surface, nor the rationale's free text.
        detail={
            "kind": item.kind,
            "action": resolution["action"],
            "decision": resolution.get("decision", ""),
            "entity_id": resolution.get("entity_id", item.entity_id),
        },
        ip_address=ip_address,
    )
    return item


def review_comment(*, item: ReviewItem, actor: Any, body: str) -> Comment:
    """A comment on an item, open or resolved."""
    body = (body or "").strip()
    if not body:
        raise DomainError("a comment cannot be empty")
    if len(body) > MAX_COMMENT:
        raise DomainError(f"a comment is at most {MAX_COMMENT} characters")
    return Comment.objects.create(review_item=item, author=acting_user(actor), body=body)
