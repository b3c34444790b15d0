"""The API's JSON parser: DRF's, with a bound on how deeply a body may nest.

Python's decoder recurses once per level: a body of 100,000 `[` raised RecursionError, a
500, and a deep body that decodes would recurse again in every serializer and error message
that walks it. No request of the API nests more than a few levels, so a body deeper than
`MAX_DEPTH` is refused, with a 400 and a `detail`, before anything decodes it. The depth is
measured by scanning the brackets outside strings, in a loop, never by recursion.

Installed as DRF's DEFAULT_PARSER_CLASSES, and in every view that names its parsers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.settings import api_settings
from rest_framework.utils import json

MAX_DEPTH = 64

# A JSON string, escapes included ("a \" b"); what is inside it is never structure.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def json_depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON `text` opens more than `limit` arrays and objects inside one
    another. Malformed JSON is not refused here: the decoder says what is wrong with it."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKETS.sub("", _STRING.sub("", text))
    depth = 0
    for bracket in brackets:
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class BoundedJSONParser(JSONParser):
    """JSONParser that refuses a body nested deeper than MAX_DEPTH (400, `detail`)."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        # The body limit (annotator.middleware) has bounded what there is to read.
        body = stream.read() if stream is not None else b""
        try:
            text = body.decode(encoding)
        except (LookupError, ValueError) as error:
            raise ParseError(f"JSON parse error - the body is not {encoding} text") from error
        if json_depth_exceeds(text):
            raise ParseError(
                f"JSON parse error - the body nests arrays and objects more than "
                f"{MAX_DEPTH} levels deep"
            )
        strict = api_settings.STRICT_JSON
        try:
            return json.loads(text, parse_constant=json.strict_constant if strict else None)
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from error
