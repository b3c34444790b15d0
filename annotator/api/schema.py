"""The OpenAPI schema documents every status code a view can answer, without per-view work.

Set as DRF's DEFAULT_SCHEMA_CLASS. To what drf-spectacular derives (the success answer, the
body, the parameters) it adds, with the `{"detail": ...}` body of `ErrorSerializer`:

- 400 when the operation takes a body or query parameters, or its view refuses unknown query
  parameters (every view built on `annotator.api.views.StrictQueryMixin`);
- 401 when the operation needs a logged-in caller;
- 403 when the view checks a capability (`annotator.permissions.ProjectPermission`), and for a
  write that session authentication may refuse for a missing CSRF token;
- 404 when the path names something (a project, a document) that may not exist for the caller;
- 409 where the view declares `conflict_responses`: True for its writes, or the methods;
- 415 when the operation takes a body, which must come in one of its media types.

A code the view documents itself (`@extend_schema(responses={409: ...})`) is left as it is.
An operation's query parameters are the fields of the view's query serializer for its method
(`query_serializer` for GET, `query_serializer_by_method` for others), if it has one.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import SAFE_METHODS

from annotator.api.serializers import ErrorSerializer
from annotator.permissions import ProjectPermission

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DESCRIPTIONS = {
    "400": "The request breaks the schema or a rule; `detail` says which.",
    "401": "No valid token or session.",
    "403": "Your role in the project does not allow this (or the CSRF token is missing).",
    "404": "No such project, or nothing by that id that you may see.",
    "409": "The row changed since you read it (stale `version`), or the request conflicts with "
    "the current state.",
    "415": "The body is not in a media type this operation reads.",
}


def conflict_methods(view: Any) -> Collection[str]:
    """The methods for which `view` declares 409 answers."""
    declared: bool | Collection[str] = getattr(view, "conflict_responses", False)
    if declared is True:
        return WRITE_METHODS
    if not declared:
        return ()
    return {method.upper() for method in declared}


class CloakAutoSchema(AutoSchema):
    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        query_serializer_class = getattr(self.view, "get_query_serializer_class", None)
        query_serializer = query_serializer_class(self.method) if query_serializer_class else None
        if query_serializer is not None:
            parameters.append(query_serializer)
        return parameters

    def get_operation(
        self,
        path: str,
        path_regex: str,
        path_prefix: str,
        method: str,
        registry: ComponentRegistry,
    ) -> dict[str, Any] | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        error = self.resolve_serializer(ErrorSerializer, "response").ref
        responses: dict[str, Any] = operation["responses"]
        for code in self.error_codes(operation):
            responses.setdefault(
                code,
                {
                    "description": DESCRIPTIONS[code],
                    "content": {"application/json": {"schema": error}},
                },
            )
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def error_codes(self, operation: dict[str, Any]) -> list[str]:
        """The error status codes this operation can answer, as the view is built."""
        parameters = operation.get("parameters", [])
        has_body = "requestBody" in operation
        has_query = any(parameter["in"] == "query" for parameter in parameters)
        has_path = any(parameter["in"] == "path" for parameter in parameters)
        permissions = self.view.get_permissions()
        security = operation.get("security", [])
        # A view with no permission at all (the token endpoint) lets anyone in.
        anonymous_allowed = not permissions or not security or {} in security
        checks_capability = any(isinstance(p, ProjectPermission) for p in permissions)
        csrf_checked = self.method not in SAFE_METHODS and any(
            isinstance(authenticator, SessionAuthentication)
            for authenticator in self.view.get_authenticators()
        )

        codes = []
        if has_body or has_query or getattr(self.view, "rejects_unknown_query", False):
            codes.append("400")
        if not anonymous_allowed:
            codes.append("401")
        if checks_capability or csrf_checked:
            codes.append("403")
        if checks_capability or has_path:
            codes.append("404")
        if self.method in conflict_methods(self.view):
            codes.append("409")
        if has_body:
            codes.append("415")
        return codes
