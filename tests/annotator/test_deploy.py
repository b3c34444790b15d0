"""Deployment security: `check --deploy` is clean with docker-compose's settings, HTTPS is
one switch with overridable parts, and an install whose keys only Django guards says so."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.urls import reverse

from annotator.checks import keys_database_warnings, keys_secret_errors, secret_key_errors
from annotator.env import DEVELOPMENT_SECRET_KEY
from tests.conftest import client_for
from tests.test_docker_compose import _compose

REPO_ROOT = Path(__file__).resolve().parents[2]
POSTGRES = "django.db.backends.postgresql"


def _compose_environment(service: str) -> dict[str, str]:
    """What docker-compose gives `service`, with a strong secret as a deployment would."""
    passwords = {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "CLOAK_KEYS_SECRET": secrets.token_urlsafe(32),
        "POSTGRES_PASSWORD": "admin-password",
        "CLOAK_DB_PASSWORD": "app-password",
        "CLOAK_KEYS_DB_PASSWORD": "keys-password",
    }
    env = {k: v for k, v in os.environ.items() if k not in passwords and not k.startswith("CLOAK_")}
    result = _compose("config", env={**env, **passwords})
    assert result.returncode == 0, result.stderr
    environment: dict[str, Any] = yaml.safe_load(result.stdout)["services"][service]["environment"]
    return {key: str(value) for key, value in environment.items()}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _settings(env: dict[str, str], *names: str) -> dict[str, Any]:
    script = (
        "import json, annotator.settings as s; "
        f"print(json.dumps({{n: getattr(s, n, None) for n in {list(names)!r}}}))"
    )
    result = _run(["-c", script], env)
    assert result.returncode == 0, result.stderr
    values: dict[str, Any] = json.loads(result.stdout)
    return values


@pytest.mark.parametrize("service", ["web", "migrate"])
def test_check_deploy_passes_clean_with_the_compose_settings(service: str) -> None:
    env = _compose_environment(service)
    assert env["CLOAK_HTTPS"] == "1"

    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_cloak_https_turns_on_the_redirect_secure_cookies_and_hsts() -> None:
    names = (
        "SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
        "SECURE_PROXY_SSL_HEADER",
    )  # fmt: skip
    off = _settings({}, *names)
    on = _settings({"CLOAK_HTTPS": "1", "CLOAK_BEHIND_PROXY": "1"}, *names)
    overridden = _settings(
        {"CLOAK_HTTPS": "1", "CLOAK_HSTS_SECONDS": "3600", "CLOAK_HSTS_PRELOAD": "0"}, *names
    )

    assert off == dict.fromkeys(names, False) | {
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_PROXY_SSL_HEADER": None,
    }
    assert on == dict.fromkeys(names, True) | {
        "SECURE_HSTS_SECONDS": 31_536_000,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
    }
    assert overridden["SECURE_HSTS_SECONDS"] == 3600
    assert overridden["SECURE_HSTS_PRELOAD"] is False
    assert overridden["SECURE_SSL_REDIRECT"] is True


@pytest.mark.django_db
def test_the_redirect_to_https_spares_the_health_check(settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True
    client = client_for(None)

    assert client.get(reverse("healthz")).status_code == 200
    page = client.get(reverse("login"))
    assert page.status_code == 301
    assert page["Location"].startswith("https://")


def test_an_install_on_sqlite_says_once_that_only_django_guards_the_keys(tmp_path: Path) -> None:
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'cloak.sqlite3'}",
        "CLOAK_VAR_DIR": str(tmp_path),
        "CLOAK_KEYS_SECRET": secrets.token_urlsafe(32),
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    }

    result = _run(["manage.py", "check"], env)

    assert result.returncode == 0, result.stderr  # a warning, not an error
    assert (result.stdout + result.stderr).count("cloak.W001") == 1


def test_keys_only_django_guards_are_warned_about() -> None:
    app = {"ENGINE": POSTGRES, "HOST": "db", "PORT": "5432", "NAME": "cloak", "USER": "app"}
    keys = app | {"USER": "keys", "OPTIONS": {"options": "-c search_path=cloak_keys"}}

    sqlite = keys_database_warnings({"default": {"ENGINE": "django.db.backends.sqlite3"}})
    shared = keys_database_warnings({"default": app})
    same_role = keys_database_warnings({"default": app, "keys": app | {"OPTIONS": {}}})
    separate = keys_database_warnings({"default": app, "keys": keys})

    assert [w.id for w in sqlite] == ["cloak.W001"]
    assert "PostgreSQL" in sqlite[0].msg
    assert [w.id for w in shared] == ["cloak.W001"]
    assert "KEYS_DATABASE_URL" in shared[0].msg
    assert [w.id for w in same_role] == ["cloak.W002"]
    assert separate == []


# --- The keys' secret -------------------------------------------------------------------------


def _without_keys_secret(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A deployed install (DEBUG off) that forgot CLOAK_KEYS_SECRET."""
    env = _compose_environment("web")
    del env["CLOAK_KEYS_SECRET"]
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'cloak.sqlite3'}",
        CLOAK_VAR_DIR=str(tmp_path),
        CELERY_BROKER_URL="",
        REDIS_URL="",
        CACHE_URL="",
        **extra,
    )
    env.pop("KEYS_DATABASE_URL", None)
    return env


def test_check_deploy_fails_without_a_keys_secret(tmp_path: Path) -> None:
    result = _run(["manage.py", "check", "--deploy"], _without_keys_secret(tmp_path))

    assert result.returncode != 0
    assert "cloak.E001" in result.stderr
    assert "CLOAK_KEYS_SECRET" in result.stderr


def test_a_keys_secret_equal_to_the_session_key_is_no_keys_secret(tmp_path: Path) -> None:
    env = _without_keys_secret(tmp_path)
    env["CLOAK_KEYS_SECRET"] = env["DJANGO_SECRET_KEY"]

    result = _run(["manage.py", "check", "--deploy"], env)

    assert result.returncode != 0
    assert "cloak.E001" in result.stderr


def test_a_development_install_runs_without_a_keys_secret(tmp_path: Path) -> None:
    result = _run(["manage.py", "check"], _without_keys_secret(tmp_path, DJANGO_DEBUG="true"))

    assert result.returncode == 0, result.stderr
    assert "cloak.E001" not in result.stdout + result.stderr


def _program(name: str) -> str:
    return str(Path(sys.executable).parent / name)


@pytest.mark.parametrize(
    "command",
    [
        ["gunicorn", "annotator.wsgi:application", "--bind", "127.0.0.1:0", "--workers", "1"],
        ["celery", "-A", "annotator", "worker", "--pool", "solo", "-Q", "default"],
        ["celery", "-A", "annotator", "beat"],
    ],
    ids=["gunicorn", "celery-worker", "celery-beat"],
)
def test_servers_refuse_to_start_without_a_keys_secret(tmp_path: Path, command: list[str]) -> None:
    env = _without_keys_secret(tmp_path)
    base = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    if command[-1] == "beat":
        command = [*command, "--schedule", str(tmp_path / "beat-schedule")]

    # Each exits at once with the reason; one that started would run until the timeout.
    result = subprocess.run(
        [_program(command[0]), *command[1:]],
        cwd=REPO_ROOT, env={**base, **env}, capture_output=True, text=True, timeout=90,
        check=False,
    )  # fmt: skip

    assert result.returncode != 0
    assert "cloak.E001" in result.stdout + result.stderr


def test_a_deployed_install_on_the_development_session_key_is_refused() -> None:
    """Issue 32: DEBUG off and no DJANGO_SECRET_KEY started Cloak on the key every copy knows."""

    def ids(**kw: Any) -> list[str]:
        return [str(e.id) for e in secret_key_errors(**kw)]

    assert ids(debug=False, secret_key=DEVELOPMENT_SECRET_KEY) == ["cloak.E002"]
    assert ids(debug=False, secret_key="") == ["cloak.E002"]
    assert ids(debug=False, secret_key="s" * 50) == []
    assert ids(debug=True, secret_key=DEVELOPMENT_SECRET_KEY) == []


def test_check_deploy_fails_on_the_development_session_key(tmp_path: Path) -> None:
    env = _compose_environment("web")
    del env["DJANGO_SECRET_KEY"]
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'cloak.sqlite3'}", CLOAK_VAR_DIR=str(tmp_path),
               CELERY_BROKER_URL="", REDIS_URL="", CACHE_URL="")  # fmt: skip
    env.pop("KEYS_DATABASE_URL", None)
    result = _run(["manage.py", "check", "--deploy"], env)
    assert result.returncode != 0
    assert "cloak.E002" in result.stdout + result.stderr


def test_the_keys_secret_error_matrix() -> None:
    def ids(**kw: Any) -> list[str]:
        return [str(e.id) for e in keys_secret_errors(**kw)]

    assert ids(debug=False, keys_secret="k" * 40, secret_key="s" * 50) == []
    assert ids(debug=False, keys_secret="s" * 50, secret_key="s" * 50) == ["cloak.E001"]
    assert ids(debug=False, keys_secret="", secret_key="s" * 50) == ["cloak.E001"]
    assert ids(debug=True, keys_secret="s" * 50, secret_key="s" * 50) == []
