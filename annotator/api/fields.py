"""Serializer fields as strict as the schema they publish."""

from __future__ import annotations

import re
from decimal import ROUND_UP, Decimal
from typing import Any

from django.http import QueryDict
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A JSON string; DRF's own also takes a number and makes it text, which the schema does
    not allow (the schema-driven test sends one and expects a 400)."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """true or false, as the schema says: a JSON boolean in a JSON body, the word "true" or
    "false" in a form (which has no other way to write one). DRF's own also takes 0, 1,
    "yes", "on"…; and since 0 == False and 1 == True in Python, narrowing its sets of values
    kept nothing out: `{"ner": 0}` was taken for false."""

    def to_internal_value(self, data: Any) -> bool:
        if isinstance(data, bool):
            return data
        if isinstance(data, str) and data in ("true", "false") and self._in_a_form():
            return data == "true"
        self.fail("invalid", input=data)

    def _in_a_form(self) -> bool:
        # A form's (or a multipart body's) fields arrive as a QueryDict, a JSON body as what
        # the decoder made of it.
        return isinstance(getattr(self.root, "initial_data", None), QueryDict)


# Above 0, at most 100, at most three decimals: "12.5", "0.001", "100".
PERCENTAGE_PATTERN = (
    r"^(?:100(?:\.0{1,3})?|[1-9][0-9]?(?:\.[0-9]{1,3})?"
    r"|0\.(?:[1-9][0-9]{0,2}|0[1-9][0-9]?|00[1-9]))$"
)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": PERCENTAGE_PATTERN},
            {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 100},
        ]
    }
)
class PercentageField(serializers.DecimalField):
    """A percentage above 0 and at most 100, as the schema publishes it: a string of at most
    three decimals, or a JSON number, whose further decimals are rounded up (0.0001 is 0.001,
    still above 0) rather than refused."""

    PLACES = Decimal("0.001")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            max_digits=6, decimal_places=3, min_value=self.PLACES, max_value=Decimal(100), **kwargs
        )

    def to_internal_value(self, data: Any) -> Decimal:
        if isinstance(data, str):
            if not re.fullmatch(PERCENTAGE_PATTERN, data):
                self.fail("invalid")
        elif isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        elif not 0 < data <= 100:
            # Refused before any rounding: a huge number (1e308) overflows the decimal
            # context, and 100.0001 must not round to 100.
            self.fail("max_value" if data > 100 else "min_value",
                      max_value=self.max_value, min_value=self.min_value)  # fmt: skip
        value: Decimal = super().to_internal_value(str(data) if isinstance(data, float) else data)
        return value

    def validate_precision(self, value: Decimal) -> Decimal:
        if abs(value) > 100:
            return value  # max_value refuses it, with its own words
        return value.quantize(self.PLACES, rounding=ROUND_UP)


@extend_schema_field({"type": "string", "format": "binary", "minLength": 1})
class UploadField(serializers.FileField):
    """A file of at least one byte: DRF refuses an empty one, and the schema says so."""
