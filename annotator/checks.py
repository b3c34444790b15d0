"""System checks: what `manage.py check` (and runserver, and migrate) says about this install.

The correspondence table is guarded twice on PostgreSQL: by Django (annotator.permissions)
and by the database, which denies the role of DATABASE_URL the schema of the keys
(`manage.py provision_keys_db`). Where the second guard is missing, say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Warning as CheckWarning

_HINT = (
    "Give the keys a PostgreSQL schema and role of their own: set KEYS_DATABASE_URL "
    "(...?schema=cloak_keys) and DATABASE_ADMIN_URL, then run `manage.py provision_keys_db` "
    "(README, 'Keys database')."
)


def _is_postgres(database: Mapping[str, Any]) -> bool:
    return str(database.get("ENGINE", "")).endswith("postgresql")


def keys_database_warnings(databases: Mapping[str, Mapping[str, Any]]) -> list[CheckMessage]:
    """Warnings for a correspondence table that only Django guards."""
    default = databases["default"]
    keys = databases.get("keys")
    if not _is_postgres(default):
        return [
            CheckWarning(
                "The database is not PostgreSQL: the correspondence table is guarded by "
                "Django's permission checks only; the database cannot deny the web pages' "
                "connection the keys.",
                hint=_HINT,
                id="cloak.W001",
            )
        ]
    if keys is None:
        return [
            CheckWarning(
                "KEYS_DATABASE_URL is not set: the correspondence table lives with every other "
                "table, readable by the role of DATABASE_URL; only Django's permission checks "
                "guard it.",
                hint=_HINT,
                id="cloak.W001",
            )
        ]
    same_place = all(default.get(k) == keys.get(k) for k in ("HOST", "PORT", "NAME"))
    if same_place and default.get("USER") == keys.get("USER"):
        return [
            CheckWarning(
                "KEYS_DATABASE_URL connects as the same role as DATABASE_URL: the database "
                "cannot deny the web pages' connection the keys.",
                hint=_HINT,
                id="cloak.W002",
            )
        ]
    return []


@register(Tags.security)
def check_keys_database(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    return keys_database_warnings(settings.DATABASES)
