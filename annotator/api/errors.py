"""Every API error is `{"detail": ...}`: domain errors become 4xx with the words the pages show,
and a refused form or query says which field and why in `detail` as well as in `errors`."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from annotator.errors import ConflictError, DomainError, NotFoundError

# DRF's key for errors of the whole form rather than of one field.
NON_FIELD = "non_field_errors"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ConflictError):
        return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, NotFoundError):
        return Response({"detail": str(exc)}, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, DomainError):
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, ValidationError):
        response.data = validation_error_body(exc.detail)
    return response


def validation_error_body(detail: Any) -> dict[str, Any]:
    """`{"detail": "file: No file was submitted.", "errors": {"file": [...]}}` from DRF's
    nested lists and dicts of messages."""
    errors = _messages(detail)
    detail_text = " ".join(
        message if field in ("", NON_FIELD) else f"{field}: {message}"
        for field, messages in errors.items()
        for message in messages
    )
    body: dict[str, Any] = {"detail": detail_text or "Invalid input."}
    if isinstance(detail, dict):
        body["errors"] = errors
    return body


def _messages(detail: Any, field: str = "") -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            for path, messages in _messages(value, f"{field}.{key}" if field else str(key)).items():
                found.setdefault(path, []).extend(messages)
    elif isinstance(detail, list):
        for item in detail:
            for path, messages in _messages(item, field).items():
                found.setdefault(path, []).extend(messages)
    else:
        found.setdefault(field, []).append(str(detail))
    return found
