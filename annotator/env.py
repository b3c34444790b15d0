"""Small typed readers for the environment, so settings.py states every variable once."""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, unquote, urlsplit


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in {"1", "true", "yes", "on"}:
        return True
    if raw.lower() in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


SQLITE_TIMEOUT_S = 20.0
_SCHEMA = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def sqlite_options(query: dict[str, str]) -> dict[str, object]:
    """SQLite that holds while people work: the web and a worker write to one file.

    WAL lets pages read while a write is open. Every transaction begins IMMEDIATE, taking the
    write lock up front, so that a writer waits its turn (up to `timeout` seconds, `?timeout=`
    in the URL) instead of failing with "database is locked" when a read-then-write
    transaction finds another writer in the way (SQLite cannot wait on that upgrade).
    """
    try:
        timeout = float(query.get("timeout", SQLITE_TIMEOUT_S))
    except ValueError:
        raise ValueError(
            f"sqlite timeout must be a number of seconds, got {query['timeout']!r}"
        ) from None
    return {
        # synchronous=NORMAL is safe under WAL (a power cut may lose the last commits, never
        # corrupt the file) and spares an fsync per commit.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        "transaction_mode": "IMMEDIATE",
        "timeout": timeout,
    }


def database_from_url(url: str) -> dict[str, object]:
    """Turn `postgres://user:pass@host:port/name?opt=v` or `sqlite:///path` into DATABASES form.

    A Postgres URL's query becomes the connection's options (libpq's, such as `sslmode`),
    except `schema`, which sets the connection's search_path to that one schema.
    """
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = unquote(parts.path)
        # sqlite:///relative.db -> "relative.db"; sqlite:////abs/path.db -> "/abs/path.db"
        name = path[1:] if path.startswith("/") else path
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": name or ":memory:",
            "OPTIONS": sqlite_options(dict(parse_qsl(parts.query))),
        }
    if parts.scheme in {"postgres", "postgresql", "pgsql"}:
        options: dict[str, object] = dict(parse_qsl(parts.query))
        schema = options.pop("schema", "")
        if schema:
            # `?schema=cloak_keys`: every connection works in that schema alone (its tables,
            # its django_migrations), as libpq's `options=-c search_path=...` would say.
            if not isinstance(schema, str) or not _SCHEMA.match(schema):
                raise ValueError(f"schema must be a plain lower-case identifier, got {schema!r}")
            if "options" in options:
                raise ValueError("give the schema either as ?schema= or in ?options=, not both")
            options["options"] = f"-c search_path={schema}"
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")) or "postgres",
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            "OPTIONS": options,
            "CONN_MAX_AGE": 60,
        }
    raise ValueError(
        f"unsupported database URL scheme {parts.scheme!r} (use postgres:// or sqlite://)"
    )


# The session key of a development install (`make run`): a deployed one (DEBUG off) that runs
# on it is refused (annotator.checks, cloak.E002), as one without a keys secret is.
DEVELOPMENT_SECRET_KEY = "cloak-insecure-development-key-change-me"
