"""The REST API: thin views over the same permissions and services as the pages."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import MethodNotAllowed, ParseError
from rest_framework.mixins import ListModelMixin
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator import selectors
from annotator.api.parsers import BoundedJSONParser
from annotator.api.serializers import (
    DocumentFilterSerializer,
    DocumentListSerializer,
    DocumentSerializer,
    ErrorSerializer,
    ImportCreateSerializer,
    ImportJobSerializer,
    ProjectCreateSerializer,
    ProjectSerializer,
)
from annotator.models import Document, DocumentStatus, ImportJob, Project
from annotator.permissions import Can, ProjectPermission, can_create_projects, document_or_404
from annotator.services.draw_ahead import draw_ahead_ask
from annotator.services.imports import import_job_create
from annotator.services.projects import project_create, schema_compose
from annotator.services.spans import document_status_set

if TYPE_CHECKING:
    from rest_framework.permissions import _PermissionClass


class StrictQueryMixin(APIView):
    """Base of every API view: the query string holds only what the schema documents, once each.

    A GET reads its filters through `query_serializer` (another method through
    `query_serializer_by_method`); its fields are the operation's query parameters in the
    schema too, and the validated values land in `self.query`. A list also takes its
    paginator's parameters. Anything else, or a parameter given twice, is a 400.
    `conflict_responses` (True for every write, or the methods) documents a 409; see
    annotator.api.schema for the other codes.
    """

    rejects_unknown_query = True
    query_serializer: type[serializers.Serializer[Any]] | None = None
    query_serializer_by_method: dict[str, type[serializers.Serializer[Any]]] = {}
    conflict_responses: bool | Collection[str] = False
    query: dict[str, Any]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # A method the URL never answers is a 405 for everyone, before authentication and
        # permissions: it depends on the URL pattern alone, so it tells nobody anything.
        method = (request.method or "GET").lower()
        if method not in self.http_method_names or not hasattr(self, method):
            raise MethodNotAllowed(request.method or "")
        # After authentication and permissions: a stranger learns nothing from a 400.
        super().initial(request, *args, **kwargs)
        self.query = self.read_query(request)

    def get_query_serializer_class(self, method: str) -> type[serializers.Serializer[Any]] | None:
        default = self.query_serializer if method in ("GET", "HEAD") else None
        return self.query_serializer_by_method.get(method, default)

    def query_parameter_names(self, request: Request) -> set[str]:
        method = request.method or "GET"
        names: set[str] = set()
        query_serializer = self.get_query_serializer_class(method)
        if query_serializer is not None:
            names |= set(query_serializer().fields)
        paginator = getattr(self, "paginator", None)
        if method in ("GET", "HEAD") and paginator is not None and isinstance(self, ListModelMixin):
            names |= {p["name"] for p in paginator.get_schema_operation_parameters(self)}
        return names

    def read_query(self, request: Request) -> dict[str, Any]:
        method = request.method or "GET"
        if method.lower() not in self.http_method_names or not hasattr(self, method.lower()):
            return {}  # dispatch answers 405
        params = request.query_params
        unknown = sorted(set(params) - self.query_parameter_names(request))
        if unknown:
            raise ParseError(f"unknown query parameter: {', '.join(unknown)}")
        repeated = sorted(name for name in params if len(params.getlist(name)) > 1)
        if repeated:
            raise ParseError(f"query parameter given more than once: {', '.join(repeated)}")
        query_serializer = self.get_query_serializer_class(method)
        if query_serializer is None:
            return {}
        form = query_serializer(data=params.dict(), context={"request": request, "view": self})
        form.is_valid(raise_exception=True)
        return dict(form.validated_data)


class ProjectCreatePermission(BasePermission):
    """Anyone signed in lists their projects; creating one is outside any project, for whom
    `can_create_projects` allows (a project's admin role does not: it is a role in that
    project only)."""

    message = "Only Cloak's administrators create projects."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.method in SAFE_METHODS or can_create_projects(request.user)


class ProjectList(StrictQueryMixin, generics.ListAPIView[Project]):
    """The projects the caller is a member of; POST creates one, whose admin the caller
    becomes. Its labels come from a preset, some kept, some added: never a schema of the
    caller's own, which nothing would check the way the pages do."""

    serializer_class = ProjectSerializer
    permission_classes = [IsAuthenticated, ProjectCreatePermission]
    # JSON only: a form cannot carry the nested `schema`.
    parser_classes = [BoundedJSONParser]

    def get_queryset(self) -> QuerySet[Project]:
        return Project.objects.for_user(self.request.user)

    @extend_schema(
        request=ProjectCreateSerializer,
        responses={
            201: ProjectSerializer,
            403: OpenApiResponse(
                ErrorSerializer,
                description="Only Cloak's administrators (and whoever holds the "
                "annotator.add_project permission) create projects.",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        form = ProjectCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        project = project_create(
            slug=data["slug"],
            languages=data["languages"],
            schema=label_schema_from(data["schema"]),
            name=data["name"],
            description=data["description"],
            created_by=request.user,
        )
        body = ProjectSerializer(project, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)


def label_schema_from(spec: dict[str, Any]) -> str | dict[str, Any]:
    """The schema a project is created with from the body's `schema`: the preset's name when
    it is taken whole (the project then records which preset it uses), else the preset
    edited as asked (DomainError for a label it lacks or one the engine refuses)."""
    keep, extra = spec.get("keep"), spec.get("extra") or []
    if keep is None and not extra:
        return str(spec["preset"])
    labels = [(label["name"], label["description"]) for label in extra]
    return schema_compose(spec["preset"], keep, labels)


class ProjectScoped(StrictQueryMixin):
    """Base of views under /api/projects/{slug}/: the project comes from the URL's slug, and
    ProjectPermission checks the capability (the schema then documents 403 and 404)."""

    permission_classes: Sequence[_PermissionClass] = [IsAuthenticated, ProjectPermission]
    required_capability: Can = Can.VIEW_PROJECT
    capability_by_method: dict[str, Can] = {}

    def get_project(self) -> Project:
        if not hasattr(self, "_project"):
            self._project = get_object_or_404(Project, slug=self.kwargs["slug"])
        return self._project


class ProjectDetail(ProjectScoped, generics.RetrieveAPIView[Project]):
    serializer_class = ProjectSerializer

    def get_object(self) -> Project:
        return self.get_project()


class DocumentList(ProjectScoped, generics.ListAPIView[Document]):
    """Documents the caller may open (an annotator: those of their languages)."""

    serializer_class = DocumentListSerializer
    query_serializer = DocumentFilterSerializer

    def get_queryset(self) -> QuerySet[Document]:
        return selectors.document_list(self.request.user, self.get_project(), **self.query)


class DocumentStatusSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(
        choices=[DocumentStatus.DONE, DocumentStatus.IN_PROGRESS],
        help_text="done: every proposal is decided; in_progress: reopen the document",
    )
    version = serializers.IntegerField(
        min_value=1, max_value=2**31 - 1, required=False, help_text="The version you read"
    )


class DocumentDetail(ProjectScoped, generics.RetrieveAPIView[Document]):
    """A document with its text and spans; PATCH marks it done (no proposal left) or reopens
    it."""

    serializer_class = DocumentSerializer
    capability_by_method = {"PATCH": Can.ANNOTATE}
    conflict_responses = ("PATCH",)

    def get_object(self) -> Document:
        documents = Document.objects.prefetch_related("spans")
        return document_or_404(self.request.user, self.get_project(), self.kwargs["pk"], documents)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        document = self.get_object()
        # Opened to be worked: the worker draws its proposals' pseudonyms ahead.
        draw_ahead_ask(document)
        return Response(self.get_serializer(document).data)

    @extend_schema(request=DocumentStatusSerializer, responses={200: DocumentSerializer})
    def patch(self, request: Request, slug: str, pk: int) -> Response:
        form = DocumentStatusSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        document_status_set(
            document=self.get_object(),
            actor=request.user,
            status=form.validated_data["status"],
            version=form.validated_data.get("version"),
        )
        return Response(DocumentSerializer(self.get_object()).data)


class ImportJobList(ProjectScoped, generics.ListAPIView[ImportJob]):
    """Upload a file to import (202: the import runs in a worker) or list past imports."""

    serializer_class = ImportJobSerializer
    required_capability = Can.IMPORT
    # A file comes only in a multipart body: a urlencoded form cannot carry one.
    parser_classes = [MultiPartParser]

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
