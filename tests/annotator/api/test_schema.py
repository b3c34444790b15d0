"""The OpenAPI schema itself: it generates without a warning, every operation under a project
documents the errors it can answer, and its examples are real operations' and match their
schemas."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from drf_spectacular.drainage import GENERATOR_STATS
from jsonschema import Draft202012Validator

from annotator.api.schema import OPERATION_EXAMPLES
from tests.annotator.api.test_schema_fuzz import served_schema

ERROR = {"$ref": "#/components/schemas/Error"}


def operations(schema: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        operation["operationId"]: (path, operation)
        for path, item in schema["paths"].items()
        for operation in item.values()
    }


def test_the_schema_generates_without_a_warning_or_an_error(tmp_path: Path) -> None:
    GENERATOR_STATS.reset()
    out = tmp_path / "schema.yml"
    try:
        call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    except Exception as failure:  # the command's own error names no warning: list them
        warnings = [*GENERATOR_STATS._warn_cache, *GENERATOR_STATS._error_cache]
        pytest.fail(f"{failure}: {warnings}")
    finally:
        GENERATOR_STATS.reset()
    assert out.read_text().startswith("openapi: 3.")


def test_every_operation_under_a_project_documents_401_403_and_404() -> None:
    schema = served_schema()
    assert schema["components"]["schemas"]["Error"]["required"] == ["detail"]
    missing = []
    for operation_id, (path, operation) in operations(schema).items():
        if not path.startswith("/api/projects/{slug}/"):
            continue
        for code in ("401", "403", "404"):
            answer = operation["responses"].get(code)
            if answer is None or answer["content"]["application/json"]["schema"] != ERROR:
                missing.append(f"{operation_id} {code}")
    assert not missing


def nullable_as_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable` as JSON Schema says it, and objects closed to properties they
    do not name, so that a misspelt key in an example fails."""
    if isinstance(node, list):
        return [nullable_as_json_schema(value) for value in node]
    if not isinstance(node, dict):
        return node
    node = {key: nullable_as_json_schema(value) for key, value in node.items()}
    if "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


def example_schemas() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(operationId, where, example name, media type object) for every example the schema
    holds, whoever put it there (OPERATION_EXAMPLES or a view's own `extend_schema`)."""
    found = []
    for operation_id, (_, operation) in operations(served_schema()).items():
        places = {"request": operation.get("requestBody", {})} | operation["responses"]
        for where, place in places.items():
            for media in place.get("content", {}).values():
                for name in media.get("examples", {}):
                    found.append((operation_id, where, name, media))
    return found


def test_every_example_belongs_to_an_operation_of_the_schema() -> None:
    schema = served_schema()
    ids = operations(schema)
    placed = {(op, where, name) for op, where, name, _ in example_schemas()}
    for operation_id, examples in OPERATION_EXAMPLES.items():
        assert operation_id in ids, f"no operation {operation_id}: renamed?"
        for where, named in examples.items():
            for name in named:
                assert (operation_id, where, name) in placed, (operation_id, where, name)


@pytest.mark.parametrize(
    ("operation_id", "where", "name", "media"),
    example_schemas(),
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_every_example_matches_its_schema(
    operation_id: str, where: str, name: str, media: dict[str, Any]
) -> None:
    schema = served_schema()
    components = nullable_as_json_schema(copy.deepcopy(schema["components"]))
    root = nullable_as_json_schema(copy.deepcopy(media["schema"]))
    validator = Draft202012Validator({**root, "components": components})
    value = media["examples"][name]["value"]
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(value)]
    assert not errors, json.dumps(errors, indent=1, ensure_ascii=False)
