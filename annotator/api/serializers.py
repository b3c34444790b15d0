from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from annotator.api.fields import StrictCharField, UploadField
from annotator.models import Document, DocumentStatus, ImportJob, Membership, Project, Span
from annotator.selectors.imports import import_job_progress
from annotator.services.projects import LANGUAGE_PATTERN as LANGUAGE_CODE
from annotator.services.projects import SLUG_PATTERN as PROJECT_SLUG
from pseudonymizer.formats import FORMATS
from pseudonymizer.schemas import PRESETS


class ErrorSerializer(serializers.Serializer[Any]):
    """The body of every error answer (the schema's `Error`)."""

    detail = serializers.CharField(help_text="Why the request was refused, in words")
    # The metaclass takes it as a field; mypy sees Serializer.errors.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="For a refused form or query: each field's messages, by field name",
    )


class ProjectSerializer(serializers.ModelSerializer[Project]):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Project
        fields = [
            "slug",
            "name",
            "description",
            "languages",
            "schema_preset",
            "label_schema",
            "strategy",
            "role",
            "created_at",
        ]
        read_only_fields = fields

    def get_role(self, project: Project) -> str | None:
        from annotator.permissions import access_for

        return access_for(self.context["request"].user, project).role


class MembershipSerializer(serializers.ModelSerializer[Membership]):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Membership
        fields = ["username", "role", "languages", "created_at"]
        read_only_fields = fields


# The document's read-only spans; the span API's own serializer (with its choice and
# pseudonym) is the schema's "Span".
@extend_schema_serializer(component_name="DocumentSpan")
class SpanSerializer(serializers.ModelSerializer[Span]):
    class Meta:
        model = Span
        fields = [
            "id", "start", "end", "label", "source", "score", "status", "decision",
            "keep_reason", "entity_id", "version", "created_at", "decided_at",
        ]  # fmt: skip
        read_only_fields = fields


class DocumentListSerializer(serializers.ModelSerializer[Document]):
    span_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Document
        fields = ["id", "external_id", "language", "status", "assignee", "span_count", "updated_at"]
        read_only_fields = fields


class DocumentFilterSerializer(serializers.Serializer[Any]):
    """The filters of the document list (query parameters); each may be left out."""

    # A language code as projects are created with (annotator.services.projects).
    language = serializers.RegexField(
        LANGUAGE_CODE.pattern,
        required=False,
        max_length=16,
        # A filter: a language the project does not have lists nothing, as any other
        # filter that matches nothing (the schema cannot know a project's languages).
        help_text="Only documents in this language (one of the project's, or none match)",
    )
    status = serializers.ChoiceField(choices=DocumentStatus.choices, required=False)
    q = serializers.CharField(
        required=False, max_length=255, help_text="Part of the external id, in any case"
    )


class DocumentSerializer(serializers.ModelSerializer[Document]):
    spans = SpanSerializer(many=True, read_only=True)

    class Meta:
        model = Document
        fields = [
            "id", "external_id", "language", "text", "metadata", "status", "assignee",
            "version", "created_at", "updated_at", "spans",
        ]  # fmt: skip
        read_only_fields = fields


class ImportJobSerializer(serializers.ModelSerializer[ImportJob]):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = ImportJob
        fields = [
            "id", "filename", "format", "language", "size_bytes", "status", "progress",
            "documents_created", "spans_created", "error", "created_at", "started_at",
            "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_progress(self, job: ImportJob) -> dict[str, Any]:
        # stage, documents, spans, bytes_read, bytes_total, done, total, unit, updated_at:
        # the numbers the job's page shows.
        return import_job_progress(job).as_dict()


class ImportCreateSerializer(serializers.Serializer[Any]):
    file = UploadField(help_text="The file to import")
    format = serializers.ChoiceField(choices=["auto", *FORMATS], default="auto")
    language = serializers.CharField(
        required=False, allow_blank=True, help_text="For documents that name no language"
    )


def language_code_field(**kwargs: Any) -> StrictCharField:
    """A language code as projects are created with (annotator.services.projects)."""
    return StrictCharField(
        max_length=16,
        validators=[RegexValidator(LANGUAGE_CODE.pattern, "not a language code (e.g. fr)")],
        **kwargs,
    )


class ClosedSerializer(serializers.Serializer[Any]):
    """A JSON object that refuses a key it does not name, rather than ignore it: for a body
    whose stray keys a client would believe were used (a label schema of its own). The
    schema says so too (`additionalProperties: false`, annotator.api.schema)."""

    schema_closed = True

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, Mapping):
            unknown = sorted(str(key) for key in data if key not in self.fields)
            if unknown:
                message = ["not a field of this object"]
                raise serializers.ValidationError(dict.fromkeys(unknown, message))
        return dict(super().to_internal_value(data))


class CustomLabelSerializer(ClosedSerializer):
    """A label of the project's own, next to those of its preset."""

    name = StrictCharField(
        max_length=64,
        validators=[RegexValidator(r"^\S+$", "a label name has no spaces")],
        help_text="The label, without spaces (e.g. PATIENT_ID)",
    )
    description = StrictCharField(
        max_length=500, required=False, allow_blank=True, default="",
        help_text="What it covers, for the annotators",
    )  # fmt: skip


class LabelSchemaSerializer(ClosedSerializer):
    """A project's labels, chosen as on the new-project page: a preset, the labels of it to
    keep, labels of the project's own. Never a raw schema."""

    preset = serializers.ChoiceField(choices=sorted(PRESETS))
    keep = serializers.ListField(
        child=StrictCharField(max_length=64),
        required=False,
        max_length=500,
        help_text="The preset's labels to keep (every one when left out)",
    )
    extra = serializers.ListField(
        child=CustomLabelSerializer(),
        required=False,
        max_length=200,
        help_text="Labels of the project's own, after the preset's",
    )


class ProjectCreateSerializer(ClosedSerializer):
    """A new project: its address, its languages and its labels. Its creator becomes its
    admin."""

    slug = StrictCharField(
        max_length=64,
        validators=[RegexValidator(PROJECT_SLUG.pattern, "lower-case letters, digits, hyphens")],
        help_text="The project's address: lower-case letters, digits and hyphens",
    )
    name = StrictCharField(
        max_length=200, required=False, allow_blank=True, default="",
        help_text="Its slug when left out",
    )  # fmt: skip
    description = StrictCharField(max_length=2000, required=False, allow_blank=True, default="")
    languages = serializers.ListField(
        child=language_code_field(), min_length=1, max_length=100,
        help_text="ISO 639-1 codes, e.g. en, fr",
    )  # fmt: skip
    schema = LabelSchemaSerializer(help_text="Its labels: a preset, edited")
