"""Releases in the API: cut one (202, a job to poll), list them, follow one, read every document
that refused it, dismiss a finding judged harmless, download its data and its manifest.

Admins cut and download (Can.RELEASE); leads and admins follow releases, read their reports
and dismiss findings (Can.VIEW_RELEASES, Can.DISMISS_HITS), as on the pages
(annotator.views.releases). A release holds counts, offsets and labels, never text; its report
names documents, offsets and detectors, never what they found. A download and a dismissal are
audited.
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
from annotator.api.parsers import BoundedJSONParser
from annotator.api.views import ProjectScoped
from annotator.audit import client_ip
from annotator.downloads import release_file
from annotator.models import STRATEGY_CHOICES, HitDismissal, Release, ReleaseFormat, ReleaseLeak
from annotator.permissions import Can
from annotator.selectors.release_pages import (
    CONTENT_TYPES,
    DATA,
    MANIFEST,
    MANIFEST_CONTENT_TYPE,
    check_summary,
    release_leak_rows,
    releases_of,
)
from annotator.selectors.releases import release_progress
from annotator.services.releases.create import release_create
from annotator.services.releases.dismissals import REASON_MAX, release_hit_dismiss

# A release's detail holds the first documents of its report; `leaks_url` pages through all.
LEAK_REPORT_PREVIEW = 100


class ReleaseProgressSerializer(serializers.Serializer[Any]):
    done = serializers.IntegerField(help_text="Documents written so far")
    total = serializers.IntegerField(help_text="Documents to write (0 until it is known)")
    percent = serializers.IntegerField(min_value=0, max_value=100)


class FindingSerializer(serializers.Serializer[Any]):
    """One finding of a leaking document: where it is and what found it, never what it is."""

    kind = StrictCharField(
        help_text='"leak": left in the rendered text; "hit": found by a detector in the '
        "document as stored where no person decided anything"
    )
    document_start = serializers.IntegerField(
        help_text="Code points, in the document as stored: where to fix it"
    )
    document_end = serializers.IntegerField()
    # The metaclass takes it as a field; mypy sees Field.label.
    label = StrictCharField(allow_blank=True)  # type: ignore[assignment]
    source = StrictCharField(  # type: ignore[assignment]
        help_text='What found it: "original" (of the table), "pattern", or a detector '
        '("ner", "known", "regex", "proper-nouns", …)'
    )
    span_id = serializers.IntegerField(
        allow_null=True, help_text="The span there, if any (a rejected one, say)"
    )
    start = serializers.IntegerField(
        required=False, help_text="A leak: code points, in the released text"
    )
    end = serializers.IntegerField(required=False)
    uncovered = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        required=False,
        help_text="A hit: the [start, end) stretches no decided span covers",
    )


class LeakingDocumentSerializer(serializers.ModelSerializer[ReleaseLeak]):
    """A document that refused the release: its counts and first findings."""

    findings = FindingSerializer(many=True, read_only=True)

    class Meta:
        model = ReleaseLeak
        fields = ["document_id", "external_id", "leaks", "hits", "findings"]
        read_only_fields = fields


class LeakSummarySerializer(serializers.Serializer[Any]):
    documents = serializers.IntegerField(help_text="Documents that refused the release")
    leaks = serializers.IntegerField(help_text="Originals and patterns left in rendered texts")
    hits = serializers.IntegerField(help_text="Detector hits no person decided on")
    dismissed = serializers.IntegerField(help_text="Findings dismissed by a person, not counted")


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
    leak_summary = serializers.SerializerMethodField()
    leak_report = serializers.SerializerMethodField()
    leaks_url = serializers.SerializerMethodField()

    class Meta(ReleaseSerializer.Meta):
        fields = [
            *ReleaseSerializer.Meta.fields, "manifest", "leak_summary", "leak_report", "leaks_url",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(LeakSummarySerializer)
    def get_leak_summary(self, release: Release) -> dict[str, int]:
        check = check_summary(release)
        return {
            "documents": check.documents,
            "leaks": check.leaks,
            "hits": check.hits,
            "dismissed": len(check.dismissed),
        }

    @extend_schema_field(LeakingDocumentSerializer(many=True))
    def get_leak_report(self, release: Release) -> list[dict[str, Any]]:
        rows = release_leak_rows(release)[:LEAK_REPORT_PREVIEW]
        return list(LeakingDocumentSerializer(rows, many=True).data)

    # A path on this server (as the API's other links): where every leaking document is listed.
    @extend_schema_field(OpenApiTypes.STR)
    def get_leaks_url(self, release: Release) -> str:
        return reverse("api-release-leaks", kwargs={"slug": release.project.slug, "pk": release.pk})


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
LEAKING_EXAMPLE = {
    "document_id": 42,
    "external_id": "tweet-0042",
    "leaks": 1,
    "hits": 1,
    "findings": [
        {
            "kind": "leak", "document_start": 12, "document_end": 23, "label": "PER",
            "source": "original", "span_id": None, "start": 12, "end": 23,
        },
        {
            "kind": "hit", "document_start": 31, "document_end": 53, "label": "PER",
            "source": "ner", "span_id": 917, "uncovered": [[40, 53]],
        },
    ],
}  # fmt: skip
REFUSED_EXAMPLE = {
    **RELEASE_EXAMPLE,
    "version": 4,
    "status": "refused",
    "sha256": "",
    "manifest": {},
    "leak_summary": {"documents": 1, "leaks": 1, "hits": 1, "dismissed": 0},
    "leak_report": [LEAKING_EXAMPLE],
    "leaks_url": "/api/projects/radical/releases/8/leaks/",
}
LOCATION = OpenApiParameter(
    "Location",
    type=OpenApiTypes.URI,
    location=OpenApiParameter.HEADER,
    description="The release to poll",
    response=[202],
)


class ReleaseList(ProjectScoped, generics.ListAPIView[Release]):
    """Cut a release of the project's reviewed documents (202: the `ner` queue finds their
    names, then a worker writes it and runs the check) or list the releases, newest first."""

    serializer_class = ReleaseSerializer
    required_capability = Can.VIEW_RELEASES
    capability_by_method = {"POST": Can.RELEASE}

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
    """A release: its status and progress while it is written, then its manifest, or what
    refused it (the first documents; `leaks_url` lists them all)."""

    serializer_class = ReleaseDetailSerializer
    required_capability = Can.VIEW_RELEASES

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
                    "leak_summary": {"documents": 0, "leaks": 0, "hits": 0, "dismissed": 0},
                    "leak_report": [],
                    "leaks_url": "/api/projects/radical/releases/7/leaks/",
                },
            ),
            OpenApiExample("Refused for a leak", value=REFUSED_EXAMPLE),
        ]
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ReleaseLeakList(ProjectScoped, generics.ListAPIView[ReleaseLeak]):
    """Every document that refused a release, in id order, each with its counts and its
    first findings (offsets, labels, detectors; never text)."""

    serializer_class = LeakingDocumentSerializer
    required_capability = Can.VIEW_RELEASES

    def get_queryset(self) -> QuerySet[ReleaseLeak]:
        release = get_object_or_404(releases_of(self.get_project()), pk=self.kwargs["pk"])
        return release_leak_rows(release)

    @extend_schema(examples=[OpenApiExample("A leaking document", value=LEAKING_EXAMPLE)])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class DismissSerializer(serializers.Serializer[Any]):
    document_id = serializers.IntegerField(min_value=1)
    start = serializers.IntegerField(min_value=0, help_text="`document_start` of the finding")
    end = serializers.IntegerField(min_value=1, help_text="`document_end` of the finding")
    detector = StrictCharField(max_length=32, help_text="`source` of the finding")
    reason = StrictCharField(max_length=REASON_MAX, help_text="Why it is harmless")


class DismissalSerializer(serializers.ModelSerializer[HitDismissal]):
    dismissed_by = StrictCharField(
        source="dismissed_by.username", read_only=True, default=None, allow_null=True
    )

    class Meta:
        model = HitDismissal
        fields = [
            "id", "document_id", "start", "end", "detector", "label", "reason", "dismissed_by",
            "created_at",
        ]  # fmt: skip
        read_only_fields = fields


class ReleaseDismiss(ProjectScoped, generics.GenericAPIView[HitDismissal]):
    """Dismiss a finding of a refused release as harmless, with a reason (audited): the next
    release does not count it while the document's text and decisions stay as they were, and
    lists it in its manifest. An original of the table cannot be dismissed."""

    serializer_class = DismissalSerializer
    required_capability = Can.DISMISS_HITS
    conflict_responses = True
    parser_classes = [BoundedJSONParser]

    @extend_schema(
        request=DismissSerializer,
        responses={201: DismissalSerializer},
        examples=[
            OpenApiExample(
                "A date NER found",
                value={
                    "document_id": 42,
                    "start": 0,
                    "end": 9,
                    "detector": "ner",
                    "reason": "a weekday, not a date of birth",
                },  # fmt: skip
                request_only=True,
            )
        ],
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        release = get_object_or_404(releases_of(self.get_project()), pk=pk)
        form = DismissSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        dismissal = release_hit_dismiss(
            release=release, document_id=data["document_id"], start=data["start"],
            end=data["end"], detector=data["detector"], reason=data["reason"],
            actor=request.user, ip_address=client_ip(request),
        )  # fmt: skip
        return Response(DismissalSerializer(dismissal).data, status=status.HTTP_201_CREATED)


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
