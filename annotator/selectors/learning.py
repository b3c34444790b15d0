"""What the project's learned models read: the decided examples they train on, and the models.

`learning_examples` streams a language's finished original documents (done or reviewed, never
a replica) with their decided spans, a chunk at a time (keyset pagination, two queries per
chunk); `learning_partial_examples` the others that hold an occurrence of a decided surface
the table proposed (source `known`, not rejected) or a span a person accepted: partial
examples, whose unmarked text teaches nothing (a name seen once decided is learned in every
context the table finds it in, not only where a person touched it). They read the originals'
texts: only the training task calls them, never a page. Pages read the models
(`learned_models_of`, `learning_overview`): counts, labels and scores, no text.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, QuerySet

from annotator.models import (
    PERSONS_SPANS,
    Document,
    DocumentQuerySet,
    DocumentStatus,
    JobStatus,
    LearnedModel,
    Project,
    Span,
    SpanSource,
    SpanStatus,
)
from pseudonymizer.learning import Example
from pseudonymizer.spans import Span as EngineSpan

# A document a person finished: its spans are decisions, its unmarked text holds no entity.
FINISHED_STATUSES = (DocumentStatus.DONE.value, DocumentStatus.REVIEWED.value)
ACTIVE_STATUSES = (JobStatus.QUEUED.value, JobStatus.RUNNING.value)
CHUNK_SIZE = 200


def learning_documents(project: Project, language: str) -> DocumentQuerySet:
    """The original documents of `language` that a person finished."""
    return (
        Document.objects.for_project(project)
        .originals()
        .filter(language=language, status__in=FINISHED_STATUSES)
    )


def _decided_spans(project: Project, language: str) -> QuerySet[Span]:
    return Span.objects.filter(
        document__in=learning_documents(project, language),
        status__in=[SpanStatus.ACCEPTED, SpanStatus.REJECTED],
    )


def learning_decided_count(project: Project, language: str) -> int:
    """How many spans people accepted (or added) in the language's finished documents: what
    a model learns entities from. Rejected proposals count only as negatives, not here."""
    return _decided_spans(project, language).filter(status=SpanStatus.ACCEPTED).count()


def learning_examples(
    project: Project, language: str, *, ids: Collection[int] | None = None
) -> Iterator[tuple[int, Example]]:
    """One example per finished original of `language` (of those `ids`, when given), in id
    order, with its document's id: its text, the spans people accepted (current offsets and
    label) and the proposals they rejected."""
    documents = learning_documents(project, language).order_by("pk")
    if ids is not None:
        documents = documents.filter(pk__in=list(ids))
    return _examples(documents, PERSONS_SPANS & ~Q(status=SpanStatus.PROPOSED), partial=False)


def learning_partial_examples(project: Project, language: str) -> Iterator[tuple[int, Example]]:
    """One partial example per unfinished original of `language` that holds a span a person
    accepted or an occurrence the table proposed, in id order, with its document's id: those
    spans, and the proposals people rejected."""
    known = Q(status=SpanStatus.PROPOSED, source=SpanSource.KNOWN)
    decided = (PERSONS_SPANS & ~Q(status=SpanStatus.PROPOSED)) | known
    marked = known | Q(status=SpanStatus.ACCEPTED)
    documents = (
        Document.objects.for_project(project)
        .originals()
        .filter(language=language)
        .exclude(status__in=FINISHED_STATUSES)
        .filter(Exists(Span.objects.filter(marked, document=OuterRef("pk"))))
        .order_by("pk")
    )
    return _examples(documents, decided, partial=True)


def _examples(
    documents: DocumentQuerySet, decided: Q, *, partial: bool
) -> Iterator[tuple[int, Example]]:
    """The examples of `documents`, a chunk at a time: their `decided` spans, rejected ones
    as negatives and the others as positives."""
    last = 0
    while True:
        rows = list(documents.filter(pk__gt=last).values_list("pk", "text")[:CHUNK_SIZE])
        if not rows:
            return
        last = rows[-1][0]
        accepted: dict[int, list[EngineSpan]] = {}
        rejected: dict[int, list[EngineSpan]] = {}
        spans = (
            Span.objects.filter(decided, document_id__in=[pk for pk, _ in rows])
            .order_by("document_id", "start", "end", "pk")
            .values_list("document_id", "start", "end", "label", "status", "source")
        )
        for document_id, start, end, label, status, source in spans:
            into = rejected if status == SpanStatus.REJECTED else accepted
            into.setdefault(document_id, []).append(EngineSpan(start, end, label, source=source))
        for pk, text in rows:
            yield (
                pk,
                Example(
                    text=text,
                    spans=accepted.get(pk, []),
                    rejected=rejected.get(pk, []),
                    partial=partial,
                ),
            )


# --- The models ------------------------------------------------------------------------------


def learned_models_of(project: Project, language: str | None = None) -> QuerySet[LearnedModel]:
    """The project's models (of `language`), by language then newest version first."""
    models = LearnedModel.objects.filter(project=project).select_related("created_by")
    if language:
        models = models.filter(language=language)
    return models.order_by("language", "-version")


def learned_latest(project: Project, language: str) -> LearnedModel | None:
    """The newest ready model of the language: the one the next pre-annotation run uses."""
    return (
        LearnedModel.objects.filter(project=project, language=language, status=JobStatus.DONE)
        .order_by("-version")
        .first()
    )


def learned_active(project: Project, language: str) -> LearnedModel | None:
    """The model of the language that is queued or training, if any."""
    return (
        LearnedModel.objects.filter(project=project, language=language, status__in=ACTIVE_STATUSES)
        .order_by("-version")
        .first()
    )


@dataclass(frozen=True)
class LanguageModels:
    """One language's models on the page: the one in use, and every version."""

    language: str
    current: LearnedModel | None
    versions: list[LearnedModel]


def learning_overview(project: Project, languages: Sequence[str]) -> list[LanguageModels]:
    """Per language of `languages` (in that order), its versions and the one in use."""
    by_language: dict[str, list[LearnedModel]] = {}
    for model in learned_models_of(project):
        by_language.setdefault(model.language, []).append(model)
    rows = []
    for language in languages:
        versions = by_language.get(language, [])
        current = next((m for m in versions if m.status == JobStatus.DONE), None)
        rows.append(LanguageModels(language=language, current=current, versions=versions))
    return rows
