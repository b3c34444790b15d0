"""Blind double annotation: a sample of a language's documents given again to a second
annotator, so that agreement between annotators can be measured.

The second annotation is made on a replica (`Document.replica_of`): the same text, with the
machine's proposals as the machine made them (regex, NER, import: at the offsets and labels
it proposed, each a proposal again), and nothing of the first annotator's work: no span a
person added, no decision, no entity of the correspondence table, and no known-entity
proposal (those come from people's decisions). Decisions on a replica stay on its spans
(annotator.services.spans): they never reach the correspondence table, the queues of others,
a pre-annotation run, propagation or a release.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from annotator.audit import audit_record
from annotator.errors import DomainError
from annotator.models import (
    AuditAction,
    Document,
    DocumentStatus,
    Project,
    Span,
)
from annotator.permissions import Can, access_for
from annotator.selectors.documents import double_candidates
from annotator.services.assignments import MAX_ASSIGN
from annotator.services.proposals import Proposal, bulk_propose
from pseudonymizer.vocabulary import Decision, Source

# What a machine proposed without knowing any person's decision: copied to a replica.
# Known-entity proposals are people's decisions proposed again, so they stay behind.
COPIED_SOURCES = (Source.REGEX.value, Source.NER.value, Source.IMPORT.value)
# The most replicas one assignment makes: as many documents as one reassignment may name.
MAX_DOUBLE = MAX_ASSIGN
# Pairs named in the audit event (ids only); the counts cover them all.
AUDITED_PAIRS = 200
_EXTERNAL_ID_LENGTH = Document._meta.get_field("external_id").max_length or 255


@dataclass(frozen=True)
class DoubleOutcome:
    """What one assignment made: (original id, replica id) pairs, and the proposals copied."""

    pairs: list[tuple[int, int]]
    spans: int

    @property
    def documents(self) -> int:
        return len(self.pairs)


def double_percentage(value: object) -> Decimal:
    """`value` as a percentage of documents: more than 0, at most 100."""
    if isinstance(value, bool):
        raise DomainError("the percentage is a number, more than 0 and at most 100")
    try:
        percentage = Decimal(str(value).strip())
    except InvalidOperation:
        raise DomainError("the percentage is a number, more than 0 and at most 100") from None
    if not percentage.is_finite() or not Decimal(0) < percentage <= Decimal(100):
        raise DomainError(f"the percentage must be more than 0 and at most 100, not {value}")
    return percentage


def sample_size(percentage: Decimal, available: int) -> int:
    """`percentage` of `available` documents, rounded up: at least one when any is."""
    return min(available, math.ceil(percentage * available / 100))


def double_sample(ids: list[int], percentage: Decimal, seed: object) -> list[int]:
    """The documents `ids` to give again, in id order: the same for the same ids and seed."""
    size = sample_size(percentage, len(ids))
    return sorted(random.Random(str(seed)).sample(sorted(ids), size))


def _second_annotator(project: Project, annotator: Any, language: str) -> Any:
    """The member named by `annotator` (a user or a username), who must work on `language`."""
    user = annotator
    if isinstance(annotator, str):
        user = get_user_model().objects.filter(username=annotator).first()
    name = annotator if isinstance(annotator, str) else getattr(user, "username", "")
    if user is None or getattr(user, "pk", None) is None:
        raise DomainError(f"{name!r} is not a member of {project.slug}")
    access = access_for(user, project)
    if not access.is_member:
        raise DomainError(f"{name!r} is not a member of {project.slug}")
    if not access.can(Can.ANNOTATE) or not access.can_see_language(language):
        raise DomainError(f"{name} does not work on {language}: choose a member who does")
    if access.can(Can.VIEW_ALL_DOCUMENTS):
        # A lead or an admin opens every document, the first annotation included.
        raise DomainError(
            f"{name} can open the first annotation, so theirs would not be blind: "
            "choose an annotator"
        )
    return user


def _replica_id(external_id: str, number: int) -> str:
    suffix = f"#{number}"
    return external_id[: _EXTERNAL_ID_LENGTH - len(suffix)] + suffix


def _replica_ids(project: Project, originals: dict[int, str]) -> dict[int, str]:
    """A new external id for each original's replica, `{id}#2` unless the project has it."""
    wanted = {pk: _replica_id(external_id, 2) for pk, external_id in originals.items()}
    taken = set(
        Document.objects.filter(project=project, external_id__in=list(wanted.values())).values_list(
            "external_id", flat=True
        )
    )
    for pk, name in wanted.items():
        number = 2
        # Every `#2` was asked above; a later number is asked on its own (a rare clash).
        while name in taken or (
            number > 2 and Document.objects.filter(project=project, external_id=name).exists()
        ):
            number += 1
            name = _replica_id(originals[pk], number)
        wanted[pk] = name
        taken.add(name)
    return wanted


def _proposals(original_ids: list[int]) -> dict[int, list[tuple[int, int, str, Span]]]:
    """Each original's machine proposals as the machine made them, (start, end, label, span),
    none overlapping another (the longer first, then the earlier made)."""
    found: dict[int, list[tuple[int, int, str, Span]]] = {}
    spans = Span.objects.filter(document_id__in=original_ids, source__in=COPIED_SOURCES).only(
        "document_id", "start", "end", "label", "source", "sources", "score", "run_id",
        "proposed_start", "proposed_end", "proposed_label",
    )  # fmt: skip
    for span in spans.order_by("document_id", "id"):
        start = span.proposed_start if span.proposed_start is not None else span.start
        end = span.proposed_end if span.proposed_end is not None else span.end
        label = span.proposed_label or span.label
        if start < end:
            found.setdefault(span.document_id, []).append((start, end, label, span))
    kept: dict[int, list[tuple[int, int, str, Span]]] = {}
    for document_id, candidates in found.items():
        chosen: list[tuple[int, int, str, Span]] = []
        for candidate in sorted(candidates, key=lambda c: (c[0] - c[1], c[3].pk)):
            start, end = candidate[0], candidate[1]
            if all(end <= other[0] or start >= other[1] for other in chosen):
                chosen.append(candidate)
        kept[document_id] = sorted(chosen, key=lambda c: (c[0], c[1]))
    return kept


@transaction.atomic
def double_assign(
    *,
    project: Project,
    language: str,
    percentage: object,
    annotator: Any,
    actor: Any,
    seed: object = None,
) -> DoubleOutcome:
    """Give `percentage` of the documents of `language` (rounded up, at least one) to
    `annotator` (a member, or a username) a second time, blind to the first annotation;
    what was made. The sample is drawn from the originals someone else holds that have no
    replica yet, the same for the same `seed` (by default one per project, language and
    annotator). Refused whole, changing nothing, for a percentage outside (0, 100], a
    language not the project's, an annotator who is not a member working on it, or no
    document left to give."""
    share = double_percentage(percentage)
    if language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's ({', '.join(project.languages)})"
        )
    user = _second_annotator(project, annotator, language)
    # One assignment at a time in a project: two at once could both copy a document.
    Project.objects.select_for_update().filter(pk=project.pk).first()
    candidates = double_candidates(project, language, user)
    if not candidates:
        raise DomainError(
            f"no document in {language} is left for {user.username} to annotate a second "
            "time: each has a replica already, is theirs, or nobody holds it yet"
        )
    chosen = double_sample(
        candidates, share, seed if seed is not None else f"{project.pk}:{language}:{user.pk}"
    )
    if len(chosen) > MAX_DOUBLE:
        raise DomainError(
            f"{len(chosen)} documents is more than {MAX_DOUBLE} at once: give a smaller percentage"
        )
    originals = list(
        Document.objects.filter(pk__in=chosen)
        .order_by("pk")
        .only("pk", "external_id", "text", "search_text", "metadata")
    )
    names = _replica_ids(project, {doc.pk: doc.external_id for doc in originals})
    proposals = _proposals(chosen)
    replicas = Document.objects.bulk_create(
        [
            Document(
                project=project,
                language=language,
                external_id=names[original.pk],
                text=original.text,
                search_text=original.search_text,
                metadata=original.metadata,
                status=(
                    DocumentStatus.PREANNOTATED
                    if proposals.get(original.pk)
                    else DocumentStatus.NEW
                ),
                assignee=user,
                replica_of=original,
            )
            for original in originals
        ]
    )
    spans = bulk_propose(
        Proposal(
            document_id=replica.pk,
            start=start,
            end=end,
            label=label,
            source=span.source,
            score=span.score,
            decision=Decision.PSEUDONYMIZE.value,
            run_id=span.run_id,
            sources=tuple(span.sources or ()),
        )
        for original, replica in zip(originals, replicas, strict=True)
        for start, end, label, span in proposals.get(original.pk, [])
    )
    pairs = [
        (original.pk, replica.pk) for original, replica in zip(originals, replicas, strict=True)
    ]
    audit_record(
        action=AuditAction.DOUBLE_ASSIGN,
        actor=actor,
        project=project,
        target=f"user:{user.pk}",
        detail={
            "language": language,
            "percentage": float(share),
            "available": len(candidates),
            "documents": len(pairs),
            "spans": len(spans),
            "pairs": [list(pair) for pair in pairs[:AUDITED_PAIRS]],
        },
    )
    return DoubleOutcome(pairs=pairs, spans=len(spans))
