"""Key export and import in the API (admins: Can.EXPORT_KEYS), as on the pages: the work and
the audit are `annotator.services.table`'s.

Export takes the passphrase in a JSON body (never in the URL, where logs keep it) and answers
with the encrypted key file as an attachment. Import takes the file and its passphrase as a
multipart form and answers with counts, or 409 with the conflicts by row of the file.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField, UploadField
from annotator.api.parsers import BoundedJSONParser
from annotator.api.views import ProjectScoped
from annotator.audit import client_ip
from annotator.caching import never_store
from annotator.permissions import Can
from annotator.services.table import (
    FILE_CONTENT_TYPE,
    MAX_FILE_BYTES,
    MIN_PASSPHRASE,
    ImportConflicts,
    conflicts_as_dicts,
    export_filename,
    keys_export,
    keys_import,
)


class KeyExportSerializer(serializers.Serializer[Any]):
    passphrase = StrictCharField(
        min_length=MIN_PASSPHRASE,
        max_length=1024,
        trim_whitespace=False,
        help_text=f"At least {MIN_PASSPHRASE} characters; the file is encrypted under it",
    )


class KeyImportSerializer(serializers.Serializer[Any]):
    file = UploadField(help_text="A key file exported by Cloak or its CLI")
    passphrase = StrictCharField(
        max_length=1024, trim_whitespace=False, help_text="The file's passphrase"
    )

    def validate_file(self, upload: Any) -> Any:
        if upload.size > MAX_FILE_BYTES:
            raise serializers.ValidationError("this file is too large to be a key file")
        return upload


class ImportCountsSerializer(serializers.Serializer[Any]):
    aliases = serializers.IntegerField(help_text="Aliases in the file")
    added = serializers.IntegerField(help_text="New to the project")
    present = serializers.IntegerField(help_text="Already in the project with the same choice")
    conflicts = serializers.IntegerField()
    entities = serializers.IntegerField(help_text="New entities in the project")


class ImportConflictSerializer(serializers.Serializer[Any]):
    row = serializers.IntegerField(help_text="The alias's position in the file, from 1")
    entity = serializers.IntegerField(help_text="Its entity number in the file")
    language = StrictCharField()
    # The metaclass takes it as a field; mypy sees Field.label.
    label = StrictCharField()  # type: ignore[assignment]
    reason = StrictCharField()


class ImportRefusedSerializer(serializers.Serializer[Any]):
    detail = StrictCharField()
    counts = ImportCountsSerializer()
    conflicts = ImportConflictSerializer(many=True)


class KeyExport(ProjectScoped):
    """The project's correspondence table as an encrypted key file (audited)."""

    required_capability = Can.EXPORT_KEYS
    parser_classes = [BoundedJSONParser]

    @extend_schema(
        request=KeyExportSerializer,
        responses={
            (200, FILE_CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="The key file (pseudonymizer.keyfile), as an attachment",
            )
        },
    )
    def post(self, request: Request, slug: str) -> HttpResponse:
        form = KeyExportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        project = self.get_project()
        data, _ = keys_export(
            project=project,
            passphrase=form.validated_data["passphrase"],
            actor=request.user,
            ip_address=client_ip(request),
        )
        response = HttpResponse(data, content_type=FILE_CONTENT_TYPE)
        response["Content-Disposition"] = f'attachment; filename="{export_filename(project)}"'
        return never_store(response)


class KeyImport(ProjectScoped):
    """Add a key file's aliases to the project's table, all or nothing (audited)."""

    required_capability = Can.EXPORT_KEYS
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": KeyImportSerializer},
        responses={200: ImportCountsSerializer, 409: ImportRefusedSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        form = KeyImportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            counts = keys_import(
                project=self.get_project(),
                data=form.validated_data["file"].read(),
                passphrase=form.validated_data["passphrase"],
                actor=request.user,
                ip_address=client_ip(request),
            )
        except ImportConflicts as error:
            body = {
                "detail": str(error),
                "counts": error.counts.as_dict(),
                "conflicts": conflicts_as_dicts(error.conflicts),
            }
            return Response(body, status=status.HTTP_409_CONFLICT)
        return Response(counts.as_dict())
