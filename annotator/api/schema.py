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

import copy
from collections.abc import Collection
from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import SAFE_METHODS

from annotator.api.serializers import ErrorSerializer
from annotator.permissions import ProjectPermission

# What DRF's CharField takes: no NUL (PostgreSQL's text has none), and unless it may be
# blank, something besides white space (it trims with str.strip, which \s matches in Python).
TEXT_PATTERN = r"^[^\u0000]*$"
NOT_BLANK_TEXT_PATTERN = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"
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

    def _insert_field_validators(self, field: Any, schema: dict[str, Any]) -> None:
        """A text field says in a pattern what DRF refuses of it: a NUL character, and where
        it may not be blank, a value of white space only (DRF trims it to a blank)."""
        super()._insert_field_validators(field, schema)
        if (
            getattr(self, "_direction", None) == "request"
            and isinstance(field, serializers.CharField)
            and schema.get("type") == "string"
            and not {"pattern", "enum", "format"} & set(schema)
        ):
            blank_refused = field.trim_whitespace and not field.allow_blank
            schema["pattern"] = NOT_BLANK_TEXT_PATTERN if blank_refused else TEXT_PATTERN

    def _map_basic_serializer(self, serializer: Any, direction: str) -> dict[str, Any]:
        """A request body with a rule across its fields (`schema_any_of` on its serializer:
        what each alternative requires and narrows, one of which a body must meet) says so:
        anyOf. One that refuses keys it does not name (`schema_closed`) says so too:
        additionalProperties false."""
        # What a request may hold is narrower than what an answer shows (a blank reason).
        self._direction = direction
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)
        if direction == "request" and getattr(serializer, "schema_closed", False):
            schema["additionalProperties"] = False
        alternatives = getattr(serializer, "schema_any_of", ())
        if not alternatives or direction != "request":
            return schema
        # Each alternative whole (the body's schema with its `required` and narrower
        # properties): a client, or a fuzzer, that picks one has every field's rule at hand.
        branches = []
        for alternative in alternatives:
            branch = copy.deepcopy(schema)
            for name, narrower in alternative.get("properties", {}).items():
                branch["properties"][name] = {**branch["properties"][name], **narrower}
            required = set(branch.get("required", ())) | set(alternative.get("required", ()))
            branch["required"] = sorted(required)
            branches.append(branch)
        schema["anyOf"] = branches
        return schema

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


# --- Examples ------------------------------------------------------------------------------
# The main operations' examples, by operationId: `request` for the body, a status code for an
# answer. A postprocessing hook (SPECTACULAR_SETTINGS) puts them in the schema, where the docs
# show them and the schema-driven test sends the request ones; tests/annotator/api/
# test_schema.py checks that each operation exists and each example matches its schema.

_NOW = "2026-11-24T09:30:00Z"
_PROJECT = {
    "slug": "radical",
    "name": "Radicalisation corpus",
    "description": "Posts in English, French and Arabic.",
    "languages": ["en", "fr", "ar"],
    "schema_preset": "basic",
    "label_schema": {"labels": [{"name": "PER"}, {"name": "LOC"}, {"name": "ORG"}]},
    "strategy": "realistic",
    "role": "annotator",
    "created_at": _NOW,
}
_DOCUMENT_ROW = {
    "id": 42,
    "external_id": "tweet-0042",
    "language": "en",
    "status": "preannotated",
    "assignee": 3,
    "span_count": 2,
    "updated_at": _NOW,
}
_SPAN = {
    "id": 7,
    "start": 12,
    "end": 23,
    "label": "PER",
    "source": "ner",
    "score": 0.97,
    "status": "accepted",
    "decision": "pseudonymize",
    "keep_reason": "",
    "replacement": "Raj Avrom",
    "entity_id": 5,
    "flagged": False,
    "version": 2,
    "created_at": _NOW,
    "decided_by": "amira",
    "decided_at": _NOW,
    "updated_by": "amira",
    "updated_at": _NOW,
}
_DOCUMENT = {
    **{key: value for key, value in _DOCUMENT_ROW.items() if key != "span_count"},
    "status": "done",
    "text": "Shoutout to Moshe Chaya! At Rue Alphonse Metayer.",
    "metadata": {"source": "twitter"},
    "version": 3,
    "created_at": _NOW,
    "spans": [
        {
            key: value
            for key, value in _SPAN.items()
            if key not in ("replacement", "flagged", "decided_by", "updated_by", "updated_at")
        }
    ],
}
_RUN = {
    "id": 3,
    "language": "en",
    "profile": "recall",
    "recognizers": ["regex", "known"],
    "models_used": {},
    "status": "queued",
    "progress": {"done": 0, "total": 120},
    "documents_done": 0,
    "documents_total": 120,
    "spans_created": 0,
    "sources": {},
    "batches": {"total": 2, "queued": 2, "running": 0, "done": 0, "failed": 0},
    "error": "",
    "warnings": [],
    "created_by": "admin",
    "created_at": _NOW,
    "started_at": None,
    "finished_at": None,
}
_IMPORT = {
    "id": 9,
    "filename": "tweets.jsonl",
    "format": "jsonl",
    "language": "en",
    "size_bytes": 18234,
    "status": "queued",
    "progress": {},
    "documents_created": 0,
    "spans_created": 0,
    "error": "",
    "created_at": _NOW,
    "started_at": None,
    "finished_at": None,
}
_ENTITY = {
    "id": 5,
    "label": "PER",
    "decision": "pseudonymize",
    "keep_reason": "",
    "version": 4,
    "created_by": "amira",
    "span_count": 12,
    "aliases": [
        {
            "id": 11,
            "language": "en",
            "script": "Latn",
            "original": "Moshe Chaya",
            "replacement": "Raj Avrom",
            "token": False,
            "parent_id": None,
        },
        {
            "id": 12,
            "language": "en",
            "script": "Latn",
            "original": "Moshe",
            "replacement": "Raj",
            "token": True,
            "parent_id": 11,
        },
        {
            "id": 13,
            "language": "ar",
            "script": "Arab",
            "original": "موشيه حايا",
            "replacement": "راج أفروم",
            "token": False,
            "parent_id": None,
        },
    ],  # fmt: skip
    "created_at": _NOW,
    "updated_at": _NOW,
}
_REVIEW_ITEM = {
    "id": 21,
    "kind": "flag",
    "status": "open",
    "document": 42,
    "span": 7,
    "entity_id": 5,
    "language": "en",
    "detail": {"label": "PER", "comment": "A public figure? Keep or pseudonymize?"},
    "resolution": None,
    "rationale": "",
    "raised_by": "amira",
    "resolved_by": "",
    "resolved_at": None,
    "created_at": _NOW,
    "comment_count": 1,
}
_AUDIT_EVENT = {
    "id": 301,
    "created_at": _NOW,
    "actor": "lead",
    "action": "key_read",
    "action_label": "Read the correspondence table",
    "target": "entity:5",
    "detail": {"aliases": 3},
    "ip_address": "192.0.2.10",
}


_MEMBER = {"username": "amira", "role": "annotator", "languages": ["ar", "fr"], "created_at": _NOW}


def _page(*results: dict[str, Any]) -> dict[str, Any]:
    return {"count": len(results), "next": None, "previous": None, "results": list(results)}


def _example(summary: str, value: Any) -> dict[str, Any]:
    return {"summary": summary, "value": value}


OPERATION_EXAMPLES: dict[str, dict[str, dict[str, dict[str, Any]]]] = {
    "projects_list": {"200": {"Projects": _example("The caller's projects", _page(_PROJECT))}},
    "projects_retrieve": {"200": {"Project": _example("One project and your role", _PROJECT)}},
    "projects_create": {
        "request": {
            "Preset": _example(
                "A preset's labels, as they are",
                {"slug": "radical", "languages": ["en", "fr", "ar"], "schema": {"preset": "basic"}},
            ),
            "Edited": _example(
                "Some of a preset's labels, and one of the project's own",
                {
                    "slug": "radical",
                    "name": "Radicalisation corpus",
                    "languages": ["en", "fr", "ar"],
                    "schema": {
                        "preset": "basic",
                        "keep": ["PER", "LOC"],
                        "extra": [{"name": "HANDLE", "description": "Social media handles"}],
                    },
                },
            ),
        },
        "201": {
            "Created": _example("The project; you are its admin", {**_PROJECT, "role": "admin"})
        },
    },
    "projects_members_list": {"200": {"Members": _example("Who is in it", _page(_MEMBER))}},
    "projects_members_create": {
        "request": {
            "Existing": _example(
                "Someone who has an account",
                {"username": "amira", "role": "annotator", "languages": ["ar", "fr"]},
            ),
            "New": _example(
                "Someone new to Cloak: their account too",
                {
                    "username": "amira",
                    "role": "annotator",
                    "languages": ["ar", "fr"],
                    "password": "a long passphrase of hers",
                    "email": "amira@example.org",
                },
            ),
        },
        "201": {"Joined": _example("They joined the project", _MEMBER)},
    },
    "projects_members_partial_update": {
        "request": {
            "Role": _example("Make them lead", {"role": "lead"}),
            "Languages": _example("Change their languages", {"languages": ["ar"]}),
        },
        "200": {"Changed": _example("Their membership now", {**_MEMBER, "role": "lead"})},
    },
    "projects_documents_list": {
        "200": {"Documents": _example("The documents you may open", _page(_DOCUMENT_ROW))}
    },
    "projects_documents_retrieve": {
        "200": {"Document": _example("Text and spans, offsets in code points", _DOCUMENT)}
    },
    "projects_documents_partial_update": {
        "request": {
            "Done": _example("Mark it done (no proposal left)", {"status": "done", "version": 2}),
            "Reopen": _example("Reopen it", {"status": "in_progress", "version": 3}),
        },
        "200": {"Done": _example("The document, done", _DOCUMENT)},
    },
    "projects_documents_spans_list": {
        "200": {"Spans": _example("A document's spans", _page(_SPAN))}
    },
    "projects_documents_spans_partial_update": {
        "request": {
            "Accept": _example("Accept a proposal", {"version": 1, "status": "accepted"}),
            "Pseudonym": _example(
                "Choose the pseudonym",
                {"version": 1, "decision": "pseudonymize", "replacement": "Raj Avrom"},
            ),
            "Keep": _example(
                "Keep it, with the reason",
                {"version": 1, "decision": "keep", "keep_reason": "public figure"},
            ),
            "Boundaries": _example(
                "Correct the boundaries", {"version": 1, "start": 12, "end": 17}
            ),
            "Flag": _example("Flag it for the lead", {"version": 1, "flag": "Public figure?"}),
        },
        "200": {"Span": _example("The span after the change", _SPAN)},
    },
    "projects_documents_spans_create": {
        "request": {
            "Add": _example("A span the machine missed", {"start": 28, "end": 49, "label": "LOC"})
        },
    },
    "projects_documents_spans_bulk_create": {
        "request": {
            "AcceptLabel": _example(
                "Accept every proposal of a label", {"status": "accepted", "label": "PER"}
            ),
            "RejectSource": _example(
                "Reject every proposal of a source", {"status": "rejected", "source": "regex"}
            ),
        },
        "200": {"Outcome": _example("How many changed", {"changed": 4, "conflicts": 1})},
    },
    "projects_runs_create": {
        "request": {
            "Regex": _example(
                "English, without the NER model",
                {"language": "en", "profile": "recall", "ner": False},
            )
        },
        "202": {"Queued": _example("A run to poll", _RUN)},
    },
    "projects_imports_create": {
        "202": {"Queued": _example("An import to poll", _IMPORT)},
    },
    "projects_entities_list": {
        "200": {"Entities": _example("The correspondence table (audited)", _page(_ENTITY))}
    },
    "projects_review_list": {"200": {"Queue": _example("Open items first", _page(_REVIEW_ITEM))}},
    "projects_review_resolve_create": {
        "request": {
            "Resolve": _example(
                "Keep it everywhere",
                {
                    "decision": "keep",
                    "keep_reason": "public figure",
                    "rationale": "A minister, named in the press.",
                },
            ),  # fmt: skip
            "Dismiss": _example(
                "Change nothing", {"action": "dismiss", "rationale": "Already consistent."}
            ),
        },
    },
    "projects_review_comments_create": {
        "request": {"Comment": _example("A comment", {"body": "Ask the annotator of Arabic."})}
    },
    "projects_review_scan_create": {
        "202": {"Queued": _example("A scan is queued", {"queued": True})}
    },
    "projects_audit_list": {
        "200": {"Events": _example("Who read or changed what", _page(_AUDIT_EVENT))}
    },
}


def add_examples(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: OPERATION_EXAMPLES into the operations."""
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            for where, named in OPERATION_EXAMPLES.get(operation.get("operationId"), {}).items():
                if where == "request":
                    content = operation.get("requestBody", {}).get("content", {})
                else:
                    content = operation.get("responses", {}).get(where, {}).get("content", {})
                media = content.get("application/json")
                if media is not None:
                    media.setdefault("examples", {}).update(named)
    return result
