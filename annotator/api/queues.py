"""Queues in the API: who holds how many documents, the caller's next one, and reassignment.

GET  /api/projects/{slug}/queues/             every queue (leads, admins) or one's own
GET  /api/projects/{slug}/queues/next/        the caller's next document not done
POST /api/projects/{slug}/documents/assign/   {"documents": [id, …], "assignee": name|null}
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.parsers import BoundedJSONParser
from annotator.api.views import ProjectScoped
from annotator.models import DocumentStatus
from annotator.permissions import Can, access_for
from annotator.selectors.queues import next_document, project_queues, queues_of
from annotator.services.assignments import MAX_ASSIGN, documents_assign


class QueueSerializer(serializers.Serializer[Any]):
    assignee = StrictCharField(allow_null=True, help_text="null: documents nobody holds")
    counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text=f"Documents by status ({', '.join(DocumentStatus.values)})",
    )
    total = serializers.IntegerField()
    to_do = serializers.IntegerField()
    finished = serializers.IntegerField(help_text="done or reviewed")


class NextQuery(serializers.Serializer[Any]):
    after = serializers.IntegerField(
        min_value=0, max_value=2**63 - 1, required=False,
        help_text="The document you are on: the next one after it (wrapping round)",
    )  # fmt: skip


class AssignSerializer(serializers.Serializer[Any]):
    documents = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        min_length=1,
        max_length=MAX_ASSIGN,
    )
    assignee = StrictCharField(
        max_length=150, allow_null=True, help_text="A member's username; null for nobody"
    )


class QueueList(ProjectScoped):
    """Every queue of the project for leads and admins; for an annotator, their own."""

    @extend_schema(responses={200: QueueSerializer(many=True)})
    def get(self, request: Request, slug: str) -> Response:
        project = self.get_project()
        if access_for(request.user, project).can(Can.VIEW_ALL_DOCUMENTS):
            queues = project_queues(project)
        else:
            queues = [queues_of([project], request.user)[project.pk]]
        return Response(QueueSerializer(queues, many=True).data)


class NextDocument(ProjectScoped):
    """The caller's next document that is not done, in id order; null when none is left."""

    required_capability = Can.ANNOTATE
    query_serializer = NextQuery

    @extend_schema(
        responses={
            200: inline_serializer(
                "NextDocument", {"document": serializers.IntegerField(allow_null=True)}
            )
        }
    )
    def get(self, request: Request, slug: str) -> Response:
        document = next_document(request.user, self.get_project(), after=self.query.get("after"))
        return Response({"document": document.pk if document is not None else None})


class DocumentAssign(ProjectScoped):
    """Give documents to a member who may open them, or to nobody; all of them or none."""

    required_capability = Can.ASSIGN
    parser_classes = [BoundedJSONParser]

    @extend_schema(
        request=AssignSerializer,
        responses={200: inline_serializer("Assigned", {"changed": serializers.IntegerField()})},
    )
    def post(self, request: Request, slug: str) -> Response:
        form = AssignSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        changed = documents_assign(
            project=self.get_project(),
            actor=request.user,
            document_ids=form.validated_data["documents"],
            assignee=form.validated_data["assignee"] or None,
        )
        return Response({"changed": changed}, status=status.HTTP_200_OK)
