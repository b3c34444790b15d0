"""Pre-annotation runs in the API: start one (202, a job to poll), list them, follow one.

Admins start and resume runs (Can.PREANNOTATE); whoever sees every document of the project
(leads and admins) may follow them: a run holds counts, labels of models and reasons, never
text.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictBooleanField, StrictCharField
from annotator.api.views import ProjectScoped
from annotator.models import PreannotationRun
from annotator.permissions import Can
from annotator.selectors.runs import batch_counts, run_source_counts, runs_of
from annotator.services.runs import run_create, run_resume
from pseudonymizer.vocabulary import DEFAULT_PROFILE, PROFILES


class ProgressSerializer(serializers.Serializer[Any]):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class BatchCountsSerializer(serializers.Serializer[Any]):
    total = serializers.IntegerField()
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    done = serializers.IntegerField()
    failed = serializers.IntegerField()


class SourceCountSerializer(serializers.Serializer[Any]):
    proposed = serializers.IntegerField(
        help_text="Proposals the source made (one that several made counts for each)"
    )
    alone = serializers.IntegerField(help_text="Of those, the ones no other source made")


class RunWarningSerializer(serializers.Serializer[Any]):
    language = StrictCharField()
    recognizer = StrictCharField()
    reason = StrictCharField()


class RunSerializer(serializers.ModelSerializer[PreannotationRun]):
    progress = serializers.SerializerMethodField()
    batches = serializers.SerializerMethodField()
    sources = serializers.SerializerMethodField()
    warnings = RunWarningSerializer(many=True, read_only=True)
    created_by = StrictCharField(
        source="created_by.username", read_only=True, default=None, allow_null=True
    )

    class Meta:
        model = PreannotationRun
        fields = [
            "id", "language", "profile", "recognizers", "models_used", "status", "progress",
            "documents_done", "documents_total", "spans_created", "sources", "batches", "error",
            "warnings", "created_by", "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema(responses=ProgressSerializer)  # type: ignore[misc]
    def get_progress(self, run: PreannotationRun) -> dict[str, int]:
        return {"done": run.documents_done, "total": run.documents_total}

    @extend_schema(responses=BatchCountsSerializer)  # type: ignore[misc]
    def get_batches(self, run: PreannotationRun) -> dict[str, int]:
        return asdict(batch_counts(run))

    # By source; empty for a run older than these counts.
    @extend_schema_field(serializers.DictField(child=SourceCountSerializer()))
    def get_sources(self, run: PreannotationRun) -> dict[str, dict[str, int]]:
        return {
            count.source: {"proposed": count.proposed, "alone": count.alone}
            for count in run_source_counts(run)
        }


class RunCreateSerializer(serializers.Serializer[Any]):
    language = StrictCharField(
        required=False, allow_blank=True, default="", help_text="Blank: every language"
    )
    profile = serializers.ChoiceField(choices=list(PROFILES), default=DEFAULT_PROFILE)
    ner = StrictBooleanField(
        default=True, help_text="false: regular expressions and known entities only"
    )


class RunList(ProjectScoped, generics.ListAPIView[PreannotationRun]):
    """Start a run over the project's documents (202: workers do it) or list the runs."""

    serializer_class = RunSerializer
    required_capability = Can.VIEW_ALL_DOCUMENTS
    capability_by_method = {"POST": Can.PREANNOTATE}

    def get_queryset(self) -> QuerySet[PreannotationRun]:
        return runs_of(self.get_project())

    @extend_schema(request=RunCreateSerializer, responses={202: RunSerializer})
    def post(self, request: Request, slug: str) -> Response:
        form = RunCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        run = run_create(
            project=self.get_project(),
            actor=request.user,
            language=form.validated_data["language"] or None,
            profile=form.validated_data["profile"],
            use_ner=form.validated_data["ner"],
        )
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class RunDetail(ProjectScoped, generics.RetrieveAPIView[PreannotationRun]):
    serializer_class = RunSerializer
    required_capability = Can.VIEW_ALL_DOCUMENTS

    def get_object(self) -> PreannotationRun:
        return get_object_or_404(runs_of(self.get_project()), pk=self.kwargs["pk"])


class RunResume(ProjectScoped, generics.GenericAPIView[PreannotationRun]):
    """Send again the batches of a run that are not done (a worker stopped, a batch failed)."""

    serializer_class = RunSerializer
    required_capability = Can.PREANNOTATE

    @extend_schema(request=None, responses={202: RunSerializer})
    def post(self, request: Request, slug: str, pk: int) -> Response:
        run = get_object_or_404(PreannotationRun, project=self.get_project(), pk=pk)
        run = run_resume(run=run, actor=request.user)
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)
