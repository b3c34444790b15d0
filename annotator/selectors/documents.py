"""Reads of documents, the same for the pages and the API."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from annotator.models import Document, Project, Span
from annotator.permissions import visible_documents


def document_list(
    user: Any,
    project: Project,
    *,
    language: str | None = None,
    status: str | None = None,
    q: str | None = None,
) -> QuerySet[Document]:
    """The documents of `project` that `user` may open, filtered, in id order.

    Each row carries `span_count` and its assignee; `q` matches part of the external id.
    Replicas (blind double annotation) are listed to their own annotator only
    (`annotator.permissions.visible_documents`).
    """
    # A correlated count runs for the rows of one page only, not for the whole project.
    span_count = (
        Span.objects.filter(document=OuterRef("pk"))
        .order_by()
        .values("document")
        .annotate(n=Count("id"))
        .values("n")
    )
    documents = (
        visible_documents(user, project)
        .select_related("assignee")
        .only(
            "id",
            "external_id",
            "language",
            "status",
            "updated_at",
            "assignee__id",
            "assignee__username",
        )
        .annotate(span_count=Coalesce(Subquery(span_count, output_field=IntegerField()), Value(0)))
        .order_by("id")
    )
    if language:
        documents = documents.filter(language=language)
    if status:
        documents = documents.filter(status=status)
    if q:
        documents = documents.filter(external_id__icontains=q)
    return documents


def replica_pairs(project: Project, *, language: str | None = None) -> QuerySet[Document]:
    """The replicas of `project` (blind double annotation), each with its original and both
    annotators, by original then replica: for the people who assign them, never for a list
    an annotator reads."""
    replicas = (
        Document.objects.for_project(project)
        .replicas()
        .select_related("assignee", "replica_of", "replica_of__assignee")
        .defer(
            "text",
            "search_text",
            "metadata",
            "replica_of__text",
            "replica_of__search_text",
            "replica_of__metadata",
        )  # fmt: skip
        .order_by("replica_of_id", "id")
    )
    if language:
        replicas = replicas.filter(language=language)
    return replicas


def double_candidates(project: Project, language: str, annotator: Any) -> list[int]:
    """The documents of `language` that `annotator` may annotate a second time: originals
    someone else holds that have no replica yet."""
    return list(
        Document.objects.for_project(project)
        .originals()
        .filter(language=language, assignee__isnull=False, replicas__isnull=True)
        .exclude(assignee=annotator)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
