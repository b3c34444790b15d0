"""`provision_keys_db` on a real PostgreSQL: the web role is denied the key tables, the keys role
is not, and running it again changes nothing but the passwords.

Each test makes a throwaway database and its own roles (roles are cluster-wide), runs the
command in a subprocess with the environment a deployment would give it, and drops them all.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
from django.conf import settings
from psycopg import sql

REPO_ROOT = Path(__file__).resolve().parents[3]
SCHEMA = "cloak_keys"


def _admin() -> dict[str, Any]:
    database = settings.DATABASES["default"]
    if not str(database["ENGINE"]).endswith("postgresql"):
        pytest.skip("provision_keys_db needs PostgreSQL (DATABASE_URL)")
    return database


def _admin_connect(dbname: str = "postgres") -> psycopg.Connection:
    admin = _admin()
    return psycopg.connect(
        host=admin["HOST"] or None,
        port=admin["PORT"] or None,
        user=admin["USER"] or None,
        password=admin["PASSWORD"] or None,
        dbname=dbname,
        autocommit=True,
    )


@dataclass
class Cluster:
    """Names for one test: a database and two roles, with passwords that need quoting."""

    dbname: str
    app_role: str
    app_password: str
    keys_role: str
    keys_password: str
    var_dir: Path

    def url(self, role: str, password: str, query: str = "") -> str:
        admin = _admin()
        host = f"{admin['HOST'] or '127.0.0.1'}:{admin['PORT'] or 5432}"
        login = f"{quote(role, safe='')}:{quote(password, safe='')}"
        return f"postgres://{login}@{host}/{self.dbname}{query}"

    def admin_url(self) -> str:
        admin = _admin()
        return self.url(admin["USER"], admin["PASSWORD"]).rsplit("/", 1)[0] + "/postgres"

    def env(self, **overrides: str) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"DATABASE_URL", "KEYS_DATABASE_URL", "DATABASE_ADMIN_URL"}
        }
        env.update(
            DATABASE_URL=self.url(self.app_role, self.app_password),
            KEYS_DATABASE_URL=self.url(self.keys_role, self.keys_password, f"?schema={SCHEMA}"),
            DATABASE_ADMIN_URL=self.admin_url(),
            CLOAK_VAR_DIR=str(self.var_dir),
            CLOAK_KEYS_SECRET="provision-test-secret",
        )
        env.pop("REDIS_URL", None)
        env.update(overrides)
        return env

    def connect(self, role: str, password: str) -> psycopg.Connection:
        admin = _admin()
        return psycopg.connect(
            host=admin["HOST"] or None,
            port=admin["PORT"] or None,
            user=role,
            password=password,
            dbname=self.dbname,
            autocommit=True,
        )


def _provision(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "provision_keys_db"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    with _admin_connect() as conn:
        row = conn.execute(
            "SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
    if not (row and row[0]):
        pytest.skip("the test database's role may not create roles")
    uid = uuid.uuid4().hex[:10]
    names = Cluster(
        dbname=f"cloak_provision_{uid}",
        # Names and passwords that break naive SQL: quotes, a space, a hyphen, capitals.
        app_role=f"cloak_app_{uid}",
        app_password="app p@ss'word\"; --",
        keys_role=f"Keys-Role '{uid}",
        keys_password="keys'pass\\word",
        var_dir=tmp_path / "var",
    )
    yield names
    with _admin_connect() as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(names.dbname))
        )
        for role in (names.app_role, names.keys_role):
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def _password_hash(role: str) -> str | None:
    with _admin_connect() as conn:
        row = conn.execute(
            "SELECT rolpassword FROM pg_authid WHERE rolname = %s", [role]
        ).fetchone()
    return None if row is None else row[0]


def test_the_web_role_gets_permission_denied_on_the_key_tables(cluster: Cluster) -> None:
    first = _provision(cluster.env())
    assert first.returncode == 0, first.stderr
    second = _provision(cluster.env())
    assert second.returncode == 0, second.stderr
    assert "exists" in second.stdout  # idempotent: found, not created again
    assert cluster.app_password not in first.stdout + first.stderr + second.stdout + second.stderr

    with cluster.connect(cluster.keys_role, cluster.keys_password) as keys:
        # The keys role reads and writes its tables, unqualified: its connection's schema.
        keys.execute(
            "INSERT INTO keys_entity (project_id, label, decision, keep_reason, version, "
            "created_at, updated_at) VALUES (1, 'PER', 'keep', '', 1, now(), now())"
        )
        keys.execute("UPDATE keys_entity SET label = 'ORG'")
        assert keys.execute("SELECT label FROM keys_entity").fetchall() == [("ORG",)]
        keys.execute("SELECT * FROM keys_alias").fetchall()
        keys.execute("SELECT * FROM keys_reviewnote").fetchall()
        keys.execute("SELECT * FROM keys_undonote").fetchall()
        keys.execute("SELECT * FROM keys_drawnahead").fetchall()

    tables = (
        "keys_alias", "keys_entity", "keys_aliasword", "keys_reviewnote", "keys_undonote",
        "keys_drawnahead",
    )  # fmt: skip
    statements = [f"SELECT * FROM {SCHEMA}.{table}" for table in tables] + [
        f"INSERT INTO {SCHEMA}.keys_entity (project_id, label, decision, keep_reason, version, "
        "created_at, updated_at) VALUES (1, 'PER', 'keep', '', 1, now(), now())",
        f"INSERT INTO {SCHEMA}.keys_alias (entity_id) VALUES (1)",
        f"UPDATE {SCHEMA}.keys_entity SET label = 'x'",
        f"UPDATE {SCHEMA}.keys_alias SET replacement = 'x'",
        f"DELETE FROM {SCHEMA}.keys_alias",
        # A review item's pseudonyms: the web role reads the item, never them.
        f"INSERT INTO {SCHEMA}.keys_reviewnote (project_id, item_id, detail, resolution) "
        "VALUES (1, 1, '{}', '{}')",
        f"UPDATE {SCHEMA}.keys_reviewnote SET detail = '{{}}'",
        # An undo step's pseudonyms: the web role reads the step, never them.
        f"INSERT INTO {SCHEMA}.keys_undonote (project_id, step_id, pseudonyms, created_at) "
        "VALUES (1, 1, '{}', now())",
        # A pseudonym drawn ahead, by the surface's digest: key material.
        f"INSERT INTO {SCHEMA}.keys_drawnahead (project_id, original_digest, label, language, "
        "replacement, created_at) VALUES (1, 'd', 'PER', 'en', 'x', now())",
        f"DELETE FROM {SCHEMA}.keys_drawnahead",
    ]
    with cluster.connect(cluster.app_role, cluster.app_password) as app:
        for statement in statements:
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
                app.execute(statement)
        # The web role works on every other table, and the key tables are nowhere else.
        app.execute("SELECT count(*) FROM annotator_project").fetchone()
        app.execute("INSERT INTO django_session VALUES ('k', 'd', now())")
        assert app.execute("SELECT to_regclass('keys_alias')").fetchone() == (None,)

    with _admin_connect(cluster.dbname) as conn:
        tables = conn.execute(
            "SELECT schemaname, tablename FROM pg_tables "
            "WHERE schemaname IN ('public', %s) AND (tablename LIKE 'keys%%' OR schemaname = %s)",
            [SCHEMA, SCHEMA],
        ).fetchall()
    # The router sends the keys app, and only it (with its migration history), to the schema.
    assert sorted(tables) == [
        (SCHEMA, "django_migrations"),
        (SCHEMA, "keys_alias"),
        (SCHEMA, "keys_aliasword"),
        (SCHEMA, "keys_drawnahead"),
        (SCHEMA, "keys_entity"),
        (SCHEMA, "keys_reviewnote"),
        (SCHEMA, "keys_undonote"),
    ]


def test_the_whole_loop_runs_with_the_keys_in_their_own_schema_and_role(cluster: Cluster) -> None:
    """Annotate, decide, search the keys, scan for conflicts, measure, release and export,
    with DATABASE_URL the web role and KEYS_DATABASE_URL the keys role, as docker-compose
    runs it (`split_flow.py`): every read and write of the table goes through the keys
    connection, and the web role is still denied it."""
    assert _provision(cluster.env()).returncode == 0
    env = cluster.env()
    del env["DATABASE_ADMIN_URL"]  # the web and worker containers never hold it

    flow = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("split_flow.py"))],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip

    assert flow.returncode == 0, flow.stdout + flow.stderr
    for step in ("run done", "decided 5", "released realistic", "released S3", "denied"):
        assert step in flow.stdout, flow.stdout


def test_a_rotated_password_applies_on_the_next_run(cluster: Cluster) -> None:
    assert _provision(cluster.env()).returncode == 0
    before = _password_hash(cluster.app_role)

    rotated = "a new one"
    env = cluster.env(DATABASE_URL=cluster.url(cluster.app_role, rotated))
    result = _provision(env)

    assert result.returncode == 0, result.stderr
    assert before is not None
    assert _password_hash(cluster.app_role) not in (None, before)


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"DATABASE_ADMIN_URL": ""}, "DATABASE_ADMIN_URL is not set"),
        ({"DATABASE_URL": "sqlite:///x.sqlite3"}, "guarded by Django's permission checks only"),
        ({"KEYS_DATABASE_URL": ""}, "KEYS_DATABASE_URL is not set"),
        ({"KEYS_DATABASE_URL": "no-schema"}, "add ?schema=cloak_keys"),
        ({"KEYS_DATABASE_URL": "same-role"}, "another role than DATABASE_URL"),
    ],
)
def test_it_explains_what_is_missing_and_creates_nothing(
    cluster: Cluster, overrides: dict[str, str], expected: str
) -> None:
    if overrides.get("KEYS_DATABASE_URL") == "no-schema":
        overrides = {"KEYS_DATABASE_URL": cluster.url(cluster.keys_role, cluster.keys_password)}
    if overrides.get("KEYS_DATABASE_URL") == "same-role":
        overrides = {
            "KEYS_DATABASE_URL": cluster.url(
                cluster.app_role, cluster.app_password, f"?schema={SCHEMA}"
            )
        }

    result = _provision(cluster.env(**overrides))

    assert result.returncode != 0
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    with _admin_connect() as conn:
        assert (
            conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [cluster.dbname]
            ).fetchone()
            is None
        )
        assert (
            conn.execute(
                "SELECT 1 FROM pg_roles WHERE rolname IN (%s, %s)",
                [cluster.app_role, cluster.keys_role],
            ).fetchone()
            is None
        )


def test_it_refuses_a_superuser_for_the_web_role(cluster: Cluster) -> None:
    with _admin_connect() as conn:
        conn.execute(
            sql.SQL("CREATE ROLE {} LOGIN SUPERUSER").format(sql.Identifier(cluster.app_role))
        )

    result = _provision(cluster.env())

    assert result.returncode != 0
    assert "superuser" in result.stderr
    with _admin_connect() as conn:
        assert (
            conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [cluster.dbname]
            ).fetchone()
            is None
        )
        assert (
            conn.execute(
                "SELECT 1 FROM pg_roles WHERE rolname = %s", [cluster.keys_role]
            ).fetchone()
            is None
        )
