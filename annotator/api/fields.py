"""Serializer fields as strict as the schema they publish."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A JSON string; DRF's own also takes a number and makes it text, which the schema does
    not allow (the schema-driven test sends one and expects a 400)."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)
