"""Send the correspondence table to the `keys` database when one is configured."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Model

KEYS_APP = "keys"


def keys_alias() -> str:
    return "keys" if "keys" in settings.DATABASES else "default"


class KeysRouter:
    def db_for_read(self, model: type[Model], **hints: Any) -> str | None:
        return keys_alias() if model._meta.app_label == KEYS_APP else None

    def db_for_write(self, model: type[Model], **hints: Any) -> str | None:
        return keys_alias() if model._meta.app_label == KEYS_APP else None

    def allow_relation(self, obj1: Model, obj2: Model, **hints: Any) -> bool | None:
        # Entities point at projects by id; the link is never joined across databases.
        if KEYS_APP in {obj1._meta.app_label, obj2._meta.app_label}:
            return True
        return None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        if keys_alias() == "default":
            return None
        if app_label == KEYS_APP:
            return db == "keys"
        return db != "keys"
