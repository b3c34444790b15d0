"""Releases in the API: cut one (202, a job to poll), list them, follow one, download its data
and its manifest.

Admins only (Can.RELEASE), as on the pages (annotator.views.releases). A release holds counts,
offsets and labels, never text; its leak report names documents and offsets, never what it
found. A download is audited.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.views import ProjectScoped
from annotator.models import STRATEGY_CHOICES, Release, ReleaseFormat
from annotator.permissions import Can
from annotator.selectors.release_pages import (
    CONTENT_TYPES,
    DATA,
    MANIFEST,
    MANIFEST_CONTENT_TYPE,
    releases_of,
)
from annotator.services.audit import client_ip
from annotator.services.releases import release_create, release_progress
from annotator.views.releases import release_file


class ReleaseProgressSerializer(serializers.Serializer[Any]):
    done = serializers.IntegerField(help_text="Documents written so far")
    total = serializers.IntegerField(help_text="Documents to write (0 until it is known)")
    percent = serializers.IntegerField(min_value=0, max_value=100)


class LeakSerializer(serializers.Serializer[Any]):
    """One leak: where it is, never what it is."""

    document_id = serializers.IntegerField(allow_null=True)
    external_id = StrictCharField(allow_blank=True, required=False)
    start = serializers.IntegerField(help_text="Code points, in the released text")
    end = serializers.IntegerField()
    document_start = serializers.IntegerField(
        required=False, help_text="Code points, in the document as stored: where to fix it"
    )
    document_end = serializers.IntegerField(required=False)
    span_id = serializers.IntegerField(
        allow_null=True, required=False, help_text="The span there, if any (a rejected one, say)"
    )
    # The metaclass takes it as a field; mypy sees Field.label.
    label = StrictCharField(allow_blank=True, required=False)  # type: ignore[assignment]
    source = StrictCharField(  # type: ignore[assignment]
        allow_blank=True, required=False, help_text="What found it: an original, or a pattern"
    )


class ReleaseSerializer(serializers.ModelSerializer[Release]):
    progress = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()
    created_by = StrictCharField(
        source="created_by.username", read_only=True, default=None, allow_null=True
    )

    class Meta:
        model = Release
        fields = [
            "id", "version", "strategy", "format", "language", "status", "progress",
            "documents_done", "documents_total", "error", "sha256", "created_by",
            "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    def _progress(self, release: Release) -> dict[str, Any]:
        # One read of the job's progress per release, shared by `progress` and `error`.
        cache: dict[int, dict[str, Any]] = self.context.setdefault("_release_progress", {})
        if release.pk not in cache:
            cache[release.pk] = release_progress(release)
        return cache[release.pk]

    @extend_schema_field(ReleaseProgressSerializer)
    def get_progress(self, release: Release) -> dict[str, int]:
        progress = self._progress(release)
        return {
            "done": int(progress.get("done") or 0),
            "total": int(progress.get("total") or 0),
            "percent": int(progress.get("percent") or 0),
        }

    @extend_schema_field(OpenApiTypes.STR)
    def get_error(self, release: Release) -> str:
        return str(self._progress(release).get("error") or release.error or "")


class ReleaseDetailSerializer(ReleaseSerializer):
    manifest = serializers.JSONField(
        read_only=True, help_text="Counts, schema, checksums, documents left out; never a key"
    )
    leak_report = LeakSerializer(many=True, read_only=True)

    class Meta(ReleaseSerializer.Meta):
        fields = [*ReleaseSerializer.Meta.fields, "manifest", "leak_report"]
        read_only_fields = fields


class ReleaseCreateSerializer(serializers.Serializer[Any]):
    strategy = serializers.ChoiceField(
        choices=STRATEGY_CHOICES, required=False, help_text="Left out: the project's strategy"
    )
    format = serializers.ChoiceField(choices=ReleaseFormat.choices)
    language = StrictCharField(
        required=False, allow_blank=True, default="", max_length=16,
        help_text="One of the project's languages; blank: every language",
    )  # fmt: skip


RELEASE_EXAMPLE = {
    "id": 7,
    "version": 3,
    "strategy": "realistic",
    "format": "jsonl",
    "language": "",
    "status": "done",
    "progress": {"done": 120, "total": 120, "percent": 100},
    "documents_done": 120,
    "documents_total": 120,
    "error": "",
    "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "created_by": "admin",
    "created_at": "2026-11-24T09:30:00Z",
    "started_at": "2026-11-24T09:30:01Z",
    "finished_at": "2026-11-24T09:30:04Z",
}
REFUSED_EXAMPLE = {
    **RELEASE_EXAMPLE,
    "version": 4,
    "status": "refused",
    "sha256": "",
    "manifest": {},
    "leak_report": [
        {
            "document_id": 42,
            "external_id": "tweet-0042",
            "start": 12,
            "end": 23,
            "label": "PER",
            "source": "original",
        }
    ],
}
LOCATION = OpenApiParameter(
    "Location",
    type=OpenApiTypes.URI,
    location=OpenApiParameter.HEADER,
    description="The release to poll",
    response=[202],
)


class ReleaseList(ProjectScoped, generics.ListAPIView[Release]):
    """Cut a release of the project's reviewed documents (202: a worker writes it and runs the
    leak check) or list the releases, newest first."""

    serializer_class = ReleaseSerializer
    required_capability = Can.RELEASE

    def get_queryset(self) -> QuerySet[Release]:
        return releases_of(self.get_project())

    @extend_schema(
        request=ReleaseCreateSerializer,
        responses={202: ReleaseSerializer},
        parameters=[LOCATION],
        examples=[
            OpenApiExample(
                "Cut a release",
                value={"strategy": "S3", "format": "conll", "language": "ar"},
                request_only=True,
            ),
            OpenApiExample(
                "Queued",
                value={
                    **RELEASE_EXAMPLE,
                    "strategy": "S3",
                    "format": "conll",
                    "language": "ar",
                    "status": "queued",
                    "progress": {"done": 0, "total": 0, "percent": 0},
                    "documents_done": 0,
                    "documents_total": 0,
                    "sha256": "",
                    "started_at": None,
                    "finished_at": None,
                },
                response_only=True,
                status_codes=["202"],
            ),
        ],
    )
    def post(self, request: Request, slug: str) -> Response:
        project = self.get_project()
        form = ReleaseCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        release = release_create(
            project=project,
            strategy=form.validated_data.get("strategy") or project.strategy,
            format=form.validated_data["format"],
            language=form.validated_data["language"],
            actor=request.user,
            ip_address=client_ip(request),
        )
        release.refresh_from_db()
        location = reverse("api-release-detail", kwargs={"slug": project.slug, "pk": release.pk})
        return Response(
            ReleaseSerializer(release).data,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": request.build_absolute_uri(location)},
        )


class ReleaseDetail(ProjectScoped, generics.RetrieveAPIView[Release]):
    """A release: its status and progress while it is written, then its manifest, or the
    leaks that refused it."""

    serializer_class = ReleaseDetailSerializer
    required_capability = Can.RELEASE

    def get_object(self) -> Release:
        return get_object_or_404(releases_of(self.get_project()), pk=self.kwargs["pk"])

    @extend_schema(
        examples=[
            OpenApiExample(
                "Done",
                value={
                    **RELEASE_EXAMPLE,
                    "manifest": {
                        "release": 3,
                        "strategy": "realistic",
                        "format": "jsonl",
                        "counts": {"label": {"PER": 80, "URL": 12}},
                    },
                    "leak_report": [],
                },
            ),
            OpenApiExample("Refused for a leak", value=REFUSED_EXAMPLE),
        ]
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class _ReleaseFile(ProjectScoped, generics.GenericAPIView[Release]):
    """A file of a done release, as an attachment (audited); 409 while it is not done."""

    required_capability = Can.RELEASE
    conflict_responses = ("GET",)
    what = DATA

    def get(self, request: Request, slug: str, pk: int) -> HttpResponseBase:
        release = get_object_or_404(releases_of(self.get_project()), pk=pk)
        return release_file(request, release, self.what)


class ReleaseDownload(_ReleaseFile):
    """The release's data: JSONL, CSV or CoNLL, as it was cut."""

    what = DATA

    @extend_schema(
        responses={
            (200, content_type): OpenApiResponse(
                OpenApiTypes.BINARY, description=f"The release in {name} (attachment)"
            )
            for name, content_type in CONTENT_TYPES.items()
        }
    )
    def get(self, request: Request, slug: str, pk: int) -> HttpResponseBase:
        return super().get(request, slug, pk)


class ReleaseManifest(_ReleaseFile):
    """The release's manifest: counts, schema, checksums, who cut it and when."""

    what = MANIFEST

    @extend_schema(
        responses={
            # A JSON object, so a client may read it as one; its fields are the service's
            # (annotator.services.releases), as in the release's `manifest`.
            (200, MANIFEST_CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.OBJECT, description="The manifest, as JSON (attachment)"
            )
        }
    )
    def get(self, request: Request, slug: str, pk: int) -> HttpResponseBase:
        return super().get(request, slug, pk)
