"""Lists page by `limit` and `offset`, both bounded: a value out of bounds is a 400, not a 500."""

from __future__ import annotations

import re
from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.views import APIView

# Digits only: int() would also take "+5", " 5" and "5_0".
_WHOLE_NUMBER = re.compile(r"[0-9]{1,19}")


class LimitOffsetPage(LimitOffsetPagination):
    """DRF's limit/offset paging (`PAGE_SIZE` rows unless `limit` says), strict about its input.

    DRF falls back to a default for a bad `limit` or `offset` and lets one past the database's
    integers through to it; here either is refused, and the schema states the bounds.
    """

    max_limit = 1000
    # Far past any project's size, and within every database's integers.
    max_offset = 2**31 - 1

    def get_limit(self, request: Request) -> int | None:
        default = self.default_limit
        return self._read(request, self.limit_query_param, default, 1, self.max_limit)

    def get_offset(self, request: Request) -> int:
        return self._read(request, self.offset_query_param, 0, 0, self.max_offset) or 0

    def bounds(self) -> dict[str, tuple[int, int]]:
        return {
            self.limit_query_param: (1, self.max_limit),
            self.offset_query_param: (0, self.max_offset),
        }

    def _read(
        self, request: Request, name: str, default: int | None, minimum: int, maximum: int
    ) -> int | None:
        value = request.query_params.get(name)
        if value is None:
            return default
        if not _WHOLE_NUMBER.fullmatch(value) or not minimum <= int(value) <= maximum:
            raise ValidationError({name: [f"must be a whole number from {minimum} to {maximum}"]})
        return int(value)

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        defaults = {self.limit_query_param: self.default_limit, self.offset_query_param: 0}
        for parameter in parameters:
            minimum, maximum = self.bounds()[parameter["name"]]
            parameter["schema"].update(minimum=minimum, maximum=maximum)
            if defaults[parameter["name"]] is not None:
                parameter["schema"]["default"] = defaults[parameter["name"]]
        return parameters
