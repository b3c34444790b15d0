"""Give the correspondence table a PostgreSQL schema and role that the web pages' role cannot reach.

    DATABASE_ADMIN_URL=postgres://postgres:...@host:5432/postgres \\
    DATABASE_URL=postgres://cloak_app:...@host:5432/cloak \\
    KEYS_DATABASE_URL=postgres://cloak_keys:...@host:5432/cloak?schema=cloak_keys \\
    python manage.py provision_keys_db

Idempotent: run it at every deployment (docker-compose does). Through the administrative
connection it creates what is missing (the database, the two login roles with the passwords
of their URLs; an existing role gets its URL's password again, so a rotated one applies), a
schema owned by the keys role, and the grants: the role of DATABASE_URL may use every table
of `public`, now and later, and nothing of the keys' schema. It then migrates `default` as
the administrator and `keys` as the keys role, whose connection works in its schema alone
(`?schema=`), so the key tables and their migration records live there. Last, it asks the
database what the web role may do with the key tables, and fails if anything.

Every role name and password goes into SQL as a psycopg identifier or literal, never
formatted into the statement; no password is printed.
"""

from __future__ import annotations

import os
from argparse import ArgumentParser
from typing import Any

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from psycopg import sql

from annotator.env import database_from_url
from annotator.routers import KEYS_APP

_SQLITE = (
    "SQLite has no roles or schemas: there the correspondence table is guarded by Django's "
    "permission checks only (`manage.py check` says so, cloak.W001). Use PostgreSQL to give "
    "the keys a guard in the database."
)
# Privileges the web role must not hold on a key table.
_TABLE_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")


def _postgres(url_name: str, database: dict[str, Any] | None) -> dict[str, Any]:
    """`database` (a DATABASES entry), if it is PostgreSQL; else why it must be."""
    if database is None:
        raise CommandError(
            f"{url_name} is not set: give the keys their own role and schema, e.g. "
            "postgres://cloak_keys:PASSWORD@host:5432/cloak?schema=cloak_keys"
        )
    if not str(database["ENGINE"]).endswith("postgresql"):
        raise CommandError(f"{url_name} is not a PostgreSQL URL. {_SQLITE}")
    return database


def _search_path(database: dict[str, Any]) -> str:
    options = str(database.get("OPTIONS", {}).get("options", ""))
    prefix = "-c search_path="
    if not options.startswith(prefix) or " " in options[len(prefix) :]:
        raise CommandError(
            "KEYS_DATABASE_URL names no schema: add ?schema=cloak_keys, so that the keys' "
            "connection works in that schema alone"
        )
    schema = options[len(prefix) :]
    if schema == "public":
        raise CommandError("the keys cannot live in `public`, where the web role works")
    return schema


def _connect(admin: dict[str, Any], dbname: str) -> psycopg.Connection:
    """The administrator's connection to `dbname`, committing each statement."""
    try:
        return psycopg.connect(
            host=admin["HOST"] or None,
            port=admin["PORT"] or None,
            user=admin["USER"] or None,
            password=admin["PASSWORD"] or None,
            dbname=dbname,
            autocommit=True,
        )
    except psycopg.OperationalError as error:
        # psycopg's message names host, port and user, never the password.
        raise CommandError(f"cannot connect as the administrator: {error}") from None


class Command(BaseCommand):
    help = (
        "Create the keys' PostgreSQL role and schema and the web role, grant them, and migrate "
        "both databases (idempotent; needs DATABASE_ADMIN_URL)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--no-migrate", action="store_true", help="roles, schema and grants only"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        admin_url = os.environ.get("DATABASE_ADMIN_URL", "")
        if not admin_url:
            raise CommandError(
                "DATABASE_ADMIN_URL is not set: give a connection as a role that may create "
                "roles, databases and schemas, e.g. postgres://postgres:PASSWORD@host:5432/postgres"
            )
        try:
            admin = _postgres("DATABASE_ADMIN_URL", database_from_url(admin_url))
        except ValueError as error:
            raise CommandError(f"DATABASE_ADMIN_URL: {error}") from None
        app = _postgres("DATABASE_URL", settings.DATABASES["default"])
        keys = _postgres("KEYS_DATABASE_URL", settings.DATABASES.get("keys"))
        schema = _search_path(keys)
        if (keys["HOST"], keys["PORT"], keys["NAME"]) != (app["HOST"], app["PORT"], app["NAME"]):
            raise CommandError(
                "KEYS_DATABASE_URL must name the server and database of DATABASE_URL: the keys "
                "get a schema of that database"
            )
        roles = {"DATABASE_URL": app["USER"], "KEYS_DATABASE_URL": keys["USER"]}
        for name, role in roles.items():
            if not role:
                raise CommandError(f"{name} names no user")
            if role == admin["USER"]:
                raise CommandError(f"{name} must name another role than DATABASE_ADMIN_URL")
        if app["USER"] == keys["USER"]:
            raise CommandError("KEYS_DATABASE_URL must name another role than DATABASE_URL")

        with _connect(admin, admin["NAME"]) as conn:
            # Roles are the cluster's, not a database's. Refuse before changing anything.
            for url_name, database in (("DATABASE_URL", app), ("KEYS_DATABASE_URL", keys)):
                self._refuse_superuser(conn, url_name, database["USER"])
            for url_name, database in (("DATABASE_URL", app), ("KEYS_DATABASE_URL", keys)):
                self._login_role(conn, url_name, database["USER"], database["PASSWORD"])
            self._create_database(conn, app["NAME"])
        with _connect(admin, app["NAME"]) as conn:
            self._refuse_public_keys(conn, schema)
            self._schema(conn, schema, keys["USER"], app["USER"], admin["USER"])
            self._grant_app(conn, app["NAME"], app["USER"], admin["USER"])
            conn.execute(
                sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
                    sql.Identifier(app["NAME"]), sql.Identifier(keys["USER"])
                )
            )
        # The roles' passwords may have changed: no pooled connection keeps the old one.
        connections.close_all()
        if not options["no_migrate"]:
            self._migrate(admin)
        with _connect(admin, app["NAME"]) as conn:
            self._verify(conn, schema, app["USER"])
        self.stdout.write(
            self.style.SUCCESS(
                f"keys in schema {schema}, owned by {keys['USER']}; "
                f"{app['USER']} has no access to it"
            )
        )

    def _say(self, message: str) -> None:
        self.stdout.write(message)

    def _create_database(self, conn: psycopg.Connection, name: str) -> None:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        self._say(f"database {name}: created")

    def _refuse_superuser(self, conn: psycopg.Connection, url_name: str, role: str) -> None:
        row = conn.execute(
            "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = %s", [role]
        ).fetchone()
        if row is not None and row[0]:
            raise CommandError(
                f"the role of {url_name} ({role}) is a superuser or bypasses row security: "
                "PostgreSQL cannot deny it anything. Give that URL an ordinary role (this "
                "command creates it) and keep the superuser for DATABASE_ADMIN_URL."
            )

    def _login_role(
        self, conn: psycopg.Connection, url_name: str, role: str, password: str
    ) -> None:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone()
        secret = sql.SQL("PASSWORD {}").format(sql.Literal(password)) if password else sql.SQL("")
        if exists is None:
            conn.execute(
                sql.SQL(
                    "CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS {}"
                ).format(sql.Identifier(role), secret)
            )
            self._say(f"role {role} ({url_name}): created")
            return
        conn.execute(sql.SQL("ALTER ROLE {} LOGIN {}").format(sql.Identifier(role), secret))
        self._say(f"role {role} ({url_name}): exists, password {'set' if password else 'kept'}")

    def _refuse_public_keys(self, conn: psycopg.Connection, schema: str) -> None:
        # Key tables of a deployment without KEYS_DATABASE_URL: the web role reads them, and
        # the keys' schema would start empty beside them. Moving them is the operator's call.
        found = conn.execute(
            "SELECT 1 FROM pg_tables WHERE schemaname = 'public' AND tablename = %s",
            [f"{KEYS_APP}_alias"],
        ).fetchone()
        if found:
            raise CommandError(
                f"public.{KEYS_APP}_alias exists: the keys of a deployment that had no "
                f"KEYS_DATABASE_URL. Move the {KEYS_APP}_* tables into schema {schema} (README, "
                "'Keys database') or drop them, then run this again."
            )

    def _schema(
        self, conn: psycopg.Connection, schema: str, keys_role: str, app_role: str, admin: str
    ) -> None:
        ident = {
            "schema": sql.Identifier(schema),
            "keys": sql.Identifier(keys_role),
            "app": sql.Identifier(app_role),
            "admin": sql.Identifier(admin),
        }
        for statement in (
            "CREATE SCHEMA IF NOT EXISTS {schema} AUTHORIZATION {keys}",
            "ALTER SCHEMA {schema} OWNER TO {keys}",
            # Nobody else may look in: not PUBLIC (every role), not the web role.
            "REVOKE ALL ON SCHEMA {schema} FROM PUBLIC",
            "REVOKE ALL ON SCHEMA {schema} FROM {app}",
            "REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM PUBLIC, {app}",
            "REVOKE ALL ON ALL SEQUENCES IN SCHEMA {schema} FROM PUBLIC, {app}",
            # Tables an administrator adds there later belong to the keys role's use too.
            "ALTER DEFAULT PRIVILEGES FOR ROLE {admin} IN SCHEMA {schema} "
            "GRANT ALL ON TABLES TO {keys}",
            "ALTER DEFAULT PRIVILEGES FOR ROLE {admin} IN SCHEMA {schema} "
            "GRANT ALL ON SEQUENCES TO {keys}",
            # Whatever connects as the keys role works in its schema, URL option or not.
            "ALTER ROLE {keys} SET search_path = {schema}",
        ):
            conn.execute(sql.SQL(statement).format(**ident))
        # Tables moved in by an administrator (README, "Keys database") become the keys role's.
        for (table,) in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s AND tableowner <> %s",
            [schema, keys_role],
        ).fetchall():
            conn.execute(
                sql.SQL("ALTER TABLE {} OWNER TO {}").format(
                    sql.Identifier(schema, table), ident["keys"]
                )
            )
        self._say(f"schema {schema}: owned by {keys_role}, closed to {app_role} and PUBLIC")

    def _grant_app(self, conn: psycopg.Connection, dbname: str, app_role: str, admin: str) -> None:
        ident = {
            "db": sql.Identifier(dbname),
            "app": sql.Identifier(app_role),
            "admin": sql.Identifier(admin),
        }
        for statement in (
            "GRANT CONNECT, TEMPORARY ON DATABASE {db} TO {app}",
            "GRANT USAGE ON SCHEMA public TO {app}",
            "GRANT ALL ON ALL TABLES IN SCHEMA public TO {app}",
            "GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {app}",
            # The administrator migrates `default`: the tables it makes later follow.
            "ALTER DEFAULT PRIVILEGES FOR ROLE {admin} IN SCHEMA public "
            "GRANT ALL ON TABLES TO {app}",
            "ALTER DEFAULT PRIVILEGES FOR ROLE {admin} IN SCHEMA public "
            "GRANT ALL ON SEQUENCES TO {app}",
        ):
            conn.execute(sql.SQL(statement).format(**ident))
        self._say(f"schema public: {app_role} may use its tables")

    def _migrate(self, admin: dict[str, Any]) -> None:
        # `default` as the administrator (it owns those tables; the web role gets privileges),
        # `keys` as the keys role, in its schema: it owns the key tables and their history.
        default = connections["default"]
        kept = {key: default.settings_dict[key] for key in ("USER", "PASSWORD")}
        default.close()
        default.settings_dict.update(USER=admin["USER"], PASSWORD=admin["PASSWORD"])
        try:
            call_command("migrate", database="default", interactive=False, verbosity=0)
        finally:
            default.close()
            default.settings_dict.update(kept)
        self._say("migrated default")
        call_command("migrate", database="keys", interactive=False, verbosity=0)
        connections["keys"].close()
        self._say("migrated keys")

    def _verify(self, conn: psycopg.Connection, schema: str, app_role: str) -> None:
        if conn.execute(
            "SELECT has_schema_privilege(%s, %s, 'USAGE')", [app_role, schema]
        ).fetchone()[0]:  # type: ignore[index]
            raise CommandError(f"{app_role} may still use schema {schema}")
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema]
            ).fetchall()
        ]
        for table in tables:
            qualified = str(sql.Identifier(schema, table).as_string(conn))
            for privilege in _TABLE_PRIVILEGES:
                held = conn.execute(
                    "SELECT has_table_privilege(%s, %s, %s)", [app_role, qualified, privilege]
                ).fetchone()
                if held and held[0]:
                    raise CommandError(f"{app_role} still holds {privilege} on {qualified}")
        self._say(f"verified: {app_role} holds nothing on the {len(tables)} tables of {schema}")
