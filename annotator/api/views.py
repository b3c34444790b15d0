"""The REST API: thin views over the same permissions and services as the pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.db.models import Count, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.serializers import (
    DocumentListSerializer,
    DocumentSerializer,
    ImportCreateSerializer,
    ImportJobSerializer,
    MembershipSerializer,
    ProjectSerializer,
)
from annotator.models import Document, ImportJob, Membership, Project
from annotator.permissions import Can, ProjectPermission, can_view_document, visible_documents
from annotator.services.imports import import_job_create

if TYPE_CHECKING:
    from rest_framework.permissions import _PermissionClass


class ProjectList(generics.ListAPIView[Project]):
    """The projects the caller is a member of."""

    serializer_class = ProjectSerializer

    def get_queryset(self) -> QuerySet[Project]:
        return Project.objects.for_user(self.request.user)


class ProjectScoped:
    """Mixin: the project comes from the URL's slug; ProjectPermission checks the capability."""

    permission_classes: Sequence[_PermissionClass] = [IsAuthenticated, ProjectPermission]
    required_capability: Can = Can.VIEW_PROJECT
    capability_by_method: dict[str, Can] = {}
    kwargs: dict[str, Any]

    def get_project(self) -> Project:
        if not hasattr(self, "_project"):
            self._project = get_object_or_404(Project, slug=self.kwargs["slug"])
        return self._project


class ProjectDetail(ProjectScoped, generics.RetrieveAPIView[Project]):
    serializer_class = ProjectSerializer

    def get_object(self) -> Project:
        return self.get_project()


class MemberList(ProjectScoped, generics.ListAPIView[Membership]):
    serializer_class = MembershipSerializer
    required_capability = Can.VIEW_MEMBERS

    def get_queryset(self) -> QuerySet[Membership]:
        return Membership.objects.filter(project=self.get_project()).select_related("user")


class DocumentList(ProjectScoped, generics.ListAPIView[Document]):
    """Documents the caller may open (an annotator: those of their languages)."""

    serializer_class = DocumentListSerializer

    def get_queryset(self) -> QuerySet[Document]:
        documents = visible_documents(self.request.user, self.get_project())
        language = self.request.query_params.get("language")
        if language:
            documents = documents.filter(language=language)
        status_ = self.request.query_params.get("status")
        if status_:
            documents = documents.filter(status=status_)
        return documents.annotate(span_count=Count("spans")).order_by("id")


class DocumentDetail(ProjectScoped, generics.RetrieveAPIView[Document]):
    serializer_class = DocumentSerializer

    def get_object(self) -> Document:
        document = get_object_or_404(
            Document.objects.prefetch_related("spans"),
            project=self.get_project(),
            pk=self.kwargs["pk"],
        )
        if not can_view_document(self.request.user, document):
            raise Http404("No such document.")
        return document


class ImportJobList(ProjectScoped, generics.ListAPIView[ImportJob]):
    """Upload a file to import (202: the import runs in a worker) or list past imports."""

    serializer_class = ImportJobSerializer
    required_capability = Can.IMPORT
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self) -> QuerySet[ImportJob]:
        return ImportJob.objects.filter(project=self.get_project())

    @extend_schema(request=ImportCreateSerializer, responses={202: ImportJobSerializer})
    def post(self, request: Request, slug: str) -> Response:
        form = ImportCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        job = import_job_create(
            project=self.get_project(),
            upload=form.validated_data["file"],
            fmt=form.validated_data["format"],
            language=form.validated_data.get("language") or None,
            actor=request.user,
        )
        return Response(ImportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ImportJobDetail(ProjectScoped, generics.RetrieveAPIView[ImportJob]):
    serializer_class = ImportJobSerializer
    required_capability = Can.IMPORT

    def get_object(self) -> ImportJob:
        return get_object_or_404(ImportJob, project=self.get_project(), pk=self.kwargs["pk"])
