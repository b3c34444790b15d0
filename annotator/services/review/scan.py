"""The scan of a project for conflicts, and when to run it.

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
- NAMED_APART, one person or place as two entities: a name that names, through a head word,
  a title or a proclitic ("مدينة الإسكندرية", "brother Victor Kaur"), what a name of another
  entity of the label names ("الإسكندرية", "Victor Kaur"), each with its own pseudonym. New
  decisions join such names to one entity (`annotator.keys.surfaces`); these were decided
  apart before that, or by two people at once. The lead merges them in the key table.
- ORIGINAL_REPLACEMENT, a pseudonym that is an original somewhere: a replacement of the table,
  folded as the known-entity matcher folds text (`pseudonymizer.folding.fold`),
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

from annotator.models import (
    Document,
    Project,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
    Span,
    SpanStatus,
)
from annotator.selectors.review import scanned_key
from annotator.services.jobs import task_send_on_commit
from annotator.services.review.resolve import DISMISS
from annotator.services.table import (
    NamedAlias,
    entity_decisions,
    named_apart,
    normalise_surface,
    pseudonym_digest,
    replaced_groups,
    replacements,
    review_note_write,
    surface_digest,
)
from pseudonymizer.folding import fold
from pseudonymizer.pseudonyms.shape import split_whitespace
from pseudonymizer.vocabulary import Decision

logger = logging.getLogger(__name__)

# How often opening the queue may queue a scan of the project (seconds).
SCAN_INTERVAL = 300
# How many span, alias or document ids an item's detail lists, at most.
DETAIL_IDS = 20
CHUNK = 1000

# Whole words of folded text (`fold` keeps letters, digits and punctuation apart).
_WORD = re.compile(r"\w+")


def review_fingerprint(kind: str, *parts: object) -> str:
    return hashlib.sha256("\x1f".join([kind, *map(str, parts)]).encode()).hexdigest()


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
        review_note_write(self.project, item_id=item.pk, detail=note)
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
        review_fingerprint(ReviewKind.KEEP_CONFLICT, entity_id, kept, replaced),
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
            review_fingerprint(ReviewKind.SURFACE_CONFLICT, entity_id, digest, decisions, recorded),
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
        review_fingerprint(
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
                review_fingerprint(
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


def _scan_named_apart(project: Project, raiser: _Raiser) -> None:
    for wider, held, label in named_apart(project, CHUNK):
        raiser.raise_item(
            ReviewKind.NAMED_APART,
            review_fingerprint(ReviewKind.NAMED_APART, wider, held),
            entity_id=wider,
            detail={"entities": [wider, held], "label": label},
        )


def review_scan(*, project: Project) -> ScanSummary:
    """Look over the project for every kind of conflict (the module's docstring) and open an
    item for each not raised yet. Safe to run twice, and concurrently."""
    summary = ScanSummary()
    raiser = _Raiser(project, summary)
    entities = entity_decisions(project)
    _scan_decisions(project, entities, raiser)
    _scan_aliases(project, raiser)
    _scan_named_apart(project, raiser)
    _scan_originals(project, raiser)
    cache.set(scanned_key(project.pk), timezone.now().isoformat(), timeout=None)
    logger.info("review scan of %s raised %s item(s)", project.slug, summary.total)
    return summary


def review_scan_request(*, project: Project, force: bool = False) -> bool:
    """Queue a scan of the project (a task), at most once every SCAN_INTERVAL seconds unless
    `force`: opening the queue asks for one, so the conflicts shown are recent without a scan
    after every click of every annotator. True when one was queued."""
    key = f"cloak:review-scan-queued:{project.pk}"
    if force:
        cache.set(key, 1, timeout=SCAN_INTERVAL)
    elif not cache.add(key, 1, timeout=SCAN_INTERVAL):
        return False
    task_send_on_commit("review_scan", project.pk)
    return True
