"""Blind double annotation in the API: the pairs (original, replica), and giving a sample of
a language's documents to a second annotator.

GET  /api/projects/{slug}/double/   the pairs, with both annotators and statuses
POST /api/projects/{slug}/double/   {"language", "percentage", "annotator", "seed"?}

Admins only (Can.ASSIGN), as on the pages (annotator.views.double_annotation).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import PercentageField, StrictCharField
from annotator.api.parsers import BoundedJSONParser
from annotator.api.views import ProjectScoped
from annotator.models import Document
from annotator.permissions import Can
from annotator.selectors.documents import replica_pairs
from annotator.services.double_annotation import double_assign


class HalfSerializer(serializers.Serializer[Any]):
    """One document of a pair."""

    id = serializers.IntegerField()
    external_id = StrictCharField()
    status = StrictCharField()
    assignee = StrictCharField(allow_null=True)


def _half(document: Document) -> dict[str, Any]:
    return {
        "id": document.pk,
        "external_id": document.external_id,
        "status": document.status,
        "assignee": document.assignee.get_username() if document.assignee else None,
    }


class PairSerializer(serializers.Serializer[Any]):
    language = StrictCharField()
    original = serializers.SerializerMethodField()
    replica = serializers.SerializerMethodField()

    @extend_schema(responses=HalfSerializer)  # type: ignore[misc]
    def get_original(self, replica: Document) -> dict[str, Any]:
        assert replica.replica_of is not None  # a pair's replica always has its original
        return _half(replica.replica_of)

    @extend_schema(responses=HalfSerializer)  # type: ignore[misc]
    def get_replica(self, replica: Document) -> dict[str, Any]:
        return _half(replica)


class PairFilterSerializer(serializers.Serializer[Any]):
    language = StrictCharField(required=False, max_length=16)


class DoubleAssignSerializer(serializers.Serializer[Any]):
    language = StrictCharField(max_length=16)
    percentage = PercentageField(
        help_text="More than 0, at most 100: of the documents of the language someone else "
        "holds that have no second annotation yet; rounded up, at least one",
    )
    annotator = StrictCharField(max_length=150, help_text="A member's username")
    seed = StrictCharField(
        max_length=100, required=False, help_text="The same seed draws the same sample"
    )


class DoubleList(ProjectScoped, generics.ListAPIView[Document]):
    """The pairs of the double annotation (GET), or a new sample for a second annotator
    (POST: 201 with the pairs it made)."""

    serializer_class = PairSerializer
    required_capability = Can.ASSIGN
    query_serializer = PairFilterSerializer
    parser_classes = [BoundedJSONParser]

    def get_queryset(self) -> QuerySet[Document]:
        return replica_pairs(self.get_project(), language=self.query.get("language") or None)

    @extend_schema(
        request=DoubleAssignSerializer,
        responses={
            201: inline_serializer(
                "DoubleAssigned",
                {
                    "documents": serializers.IntegerField(),
                    "spans": serializers.IntegerField(help_text="Machine proposals copied"),
                    "pairs": serializers.ListField(
                        child=inline_serializer(
                            "DoublePair",
                            {
                                "original": serializers.IntegerField(),
                                "replica": serializers.IntegerField(),
                            },
                        )
                    ),
                },
            )
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        form = DoubleAssignSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        outcome = double_assign(
            project=self.get_project(),
            language=form.validated_data["language"],
            percentage=form.validated_data["percentage"],
            annotator=form.validated_data["annotator"],
            actor=request.user,
            seed=form.validated_data.get("seed"),
        )
        return Response(
            {
                "documents": outcome.documents,
                "spans": outcome.spans,
                "pairs": [
                    {"original": original, "replica": replica}
                    for original, replica in outcome.pairs
                ],
            },
            status=status.HTTP_201_CREATED,
        )
