"""System checks: what `manage.py check` (and runserver, and migrate) says about this install.

The correspondence table is guarded twice on PostgreSQL: by Django (annotator.permissions)
and by the database, which denies the role of DATABASE_URL the schema of the keys
(`manage.py provision_keys_db`). Where the second guard is missing, say so.

The keys are sealed with CLOAK_KEYS_SECRET. Deployed (DEBUG off) without one, they would be
sealed with DJANGO_SECRET_KEY, whose loss is meant to cost sign-ins only: that is an error
(cloak.E001) of every check, and the servers, which run no checks, refuse to start on it
(`require_keys_secret`, called by annotator.wsgi and annotator.celery). So is one that would
sign sessions with the development DJANGO_SECRET_KEY (cloak.E002).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Error as CheckError
from django.core.checks import Warning as CheckWarning
from django.core.exceptions import ImproperlyConfigured

from annotator.env import DEVELOPMENT_SECRET_KEY

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


_KEYS_SECRET_HINT = (
    "Set CLOAK_KEYS_SECRET to a long random value of its own, and keep it apart from the "
    "database dumps (README, 'What losing each secret costs'). An install whose keys were "
    "sealed with DJANGO_SECRET_KEY sets CLOAK_KEYS_SECRET to that value and gives "
    "DJANGO_SECRET_KEY a new one (everyone signs in again)."
)


def keys_secret_errors(*, debug: bool, keys_secret: str, secret_key: str) -> list[CheckMessage]:
    """An error for a deployed install (DEBUG off) whose keys would be sealed with the
    session key: CLOAK_KEYS_SECRET unset (it then falls back to it) or set to it."""
    if debug or (keys_secret and keys_secret != secret_key):
        return []
    return [
        CheckError(
            "CLOAK_KEYS_SECRET is not set (or is DJANGO_SECRET_KEY) with DEBUG off: the "
            "correspondence table would be sealed with the key that signs sessions, and "
            "losing or changing that key would lose the keys.",
            hint=_KEYS_SECRET_HINT,
            id="cloak.E001",
        )
    ]


def secret_key_errors(*, debug: bool, secret_key: str) -> list[CheckMessage]:
    """An error for a deployed install (DEBUG off) that signs sessions, CSRF tokens and
    password resets with the development key every copy of Cloak knows, or none."""
    if debug or (secret_key and secret_key != DEVELOPMENT_SECRET_KEY):
        return []
    return [
        CheckError(
            "DJANGO_SECRET_KEY is not set with DEBUG off: sessions and CSRF tokens would be "
            "signed with the development key that every copy of Cloak knows.",
            hint="Set DJANGO_SECRET_KEY to a long random value (docker-compose.yml requires it).",
            id="cloak.E002",
        )
    ]


def _keys_secret_errors() -> list[CheckMessage]:
    debug = bool(settings.DEBUG)
    return secret_key_errors(debug=debug, secret_key=str(settings.SECRET_KEY)) + (
        keys_secret_errors(
            debug=debug,
            keys_secret=str(settings.CLOAK_KEYS_SECRET),
            secret_key=str(settings.SECRET_KEY),
        )
    )


@register(Tags.security)
def check_keys_secret(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    return _keys_secret_errors()


def require_keys_secret() -> None:
    """Refuse to start a server (gunicorn's application, a Celery worker or beat) that would
    seal the keys with the session key: ImproperlyConfigured, saying why and what to do.
    Django runs its checks for manage.py's commands, never under gunicorn or Celery."""
    for error in _keys_secret_errors():
        raise ImproperlyConfigured(f"{error.msg} {error.hint} ({error.id})")
