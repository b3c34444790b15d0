"""A password validator of Cloak's own: Django's accept twelve spaces, "aaaaaaaaaaaa" and
"ann_en_ann_en_" (a short piece repeated), which any list of guesses tries first (issue 32)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

# Distinct characters a password needs at least.
MIN_DISTINCT = 6


class VarietyValidator:
    """Refuse a password of fewer than MIN_DISTINCT distinct characters, one that is only
    white space, or one that is a shorter piece repeated."""

    def validate(self, password: str, user: Any = None) -> None:
        if not password.strip():
            raise ValidationError("This password is only spaces.", code="password_blank")
        if len(set(password)) < MIN_DISTINCT:
            raise ValidationError(
                f"This password uses fewer than {MIN_DISTINCT} different characters.",
                code="password_too_plain",
            )
        for size in range(1, len(password) // 2 + 1):
            if len(password) % size == 0 and password == password[:size] * (len(password) // size):
                raise ValidationError(
                    "This password is a shorter piece repeated.", code="password_repeated"
                )

    def get_help_text(self) -> str:
        return (
            f"Your password must use at least {MIN_DISTINCT} different characters and not be "
            "a shorter piece repeated."
        )
