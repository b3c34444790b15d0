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
