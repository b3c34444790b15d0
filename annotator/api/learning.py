"""The project's learned models in the API: list the versions, train a new one (202).

Leads and admins read the models (Can.REVIEW, as the quality page): versions, counts, labels
and their scores on the held-out decisions, never a text nor a file path. Admins ask for a
new version (Can.PREANNOTATE): a worker trains it; asking while one is queued or training
answers that one.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.serializers import LANGUAGE_CODE
from annotator.api.views import ProjectScoped
from annotator.models import LearnedModel
from annotator.permissions import Can
from annotator.selectors.learning import learned_models_of
from annotator.services.learning import learned_model_train


class LearnedModelSerializer(serializers.ModelSerializer[LearnedModel]):
    labels = serializers.ListField(child=StrictCharField(), read_only=True)
    scores = serializers.DictField(
        child=serializers.DictField(child=serializers.FloatField()),
        read_only=True,
        help_text='Precision, recall and F1 on the held-out documents: "*" for every label, '
        "then per label; empty until the model is trained.",
    )
    decisions_used = serializers.IntegerField(
        read_only=True, help_text="Finished documents the model trained on"
    )
    decisions_held_out = serializers.IntegerField(
        read_only=True, help_text="Finished documents held out to measure it"
    )
    held_out_documents = serializers.ListField(
        child=serializers.IntegerField(),
        read_only=True,
        help_text="The ids of those documents: the scores are theirs (empty for a model "
        "trained before they were kept)",
    )
    created_by = StrictCharField(
        source="created_by.username", read_only=True, default=None, allow_null=True
    )

    class Meta:
        model = LearnedModel
        fields = [
            "id", "language", "version", "status", "trigger", "decisions_used",
            "decisions_held_out", "held_out_documents", "labels", "scores", "seconds", "error",
            "created_by", "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields


class LearnedFilterSerializer(serializers.Serializer[Any]):
    language = serializers.RegexField(
        LANGUAGE_CODE.pattern, required=False, max_length=16, help_text="One language's models"
    )


class LearnedTrainSerializer(serializers.Serializer[Any]):
    language = StrictCharField(max_length=16, help_text="One of the project's languages")


class LearnedModelList(ProjectScoped, generics.ListAPIView[LearnedModel]):
    """The project's learned models, by language and newest version first; POST trains the
    next version of one language's (202: a worker does it)."""

    serializer_class = LearnedModelSerializer
    query_serializer = LearnedFilterSerializer
    required_capability = Can.REVIEW
    capability_by_method = {"POST": Can.PREANNOTATE}

    def get_queryset(self) -> QuerySet[LearnedModel]:
        return learned_models_of(self.get_project(), self.query.get("language"))

    @extend_schema(request=LearnedTrainSerializer, responses={202: LearnedModelSerializer})
    def post(self, request: Request, slug: str) -> Response:
        form = LearnedTrainSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        model = learned_model_train(
            self.get_project(),
            form.validated_data["language"],
            trigger="admin",
            actor=request.user,
        )
        return Response(LearnedModelSerializer(model).data, status=status.HTTP_202_ACCEPTED)
