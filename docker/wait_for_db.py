"""Block until every configured database accepts connections, or fail after a deadline.

Run by docker/entrypoint.sh before the command; compose's `service_healthy` covers a fresh
`up`, this covers a restarted container and a database on another host. Where
DATABASE_ADMIN_URL is set (the container that runs `provision_keys_db`), it waits for that
connection instead: the roles of the others may not exist yet.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

import django
import psycopg
from django.db import connections
from django.db.utils import OperationalError

from annotator.env import database_from_url


def _admin_connect(url: str) -> Callable[[], None]:
    admin = database_from_url(url)

    def connect() -> None:
        try:
            psycopg.connect(
                host=str(admin["HOST"]) or None,
                port=str(admin["PORT"]) or None,
                user=str(admin["USER"]) or None,
                password=str(admin["PASSWORD"]) or None,
                dbname=str(admin["NAME"]),
                connect_timeout=5,
            ).close()
        except psycopg.OperationalError as error:
            raise OperationalError(str(error)) from None

    return connect


def main() -> int:
    timeout = float(os.environ.get("WAIT_FOR_DB_TIMEOUT", "60"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    django.setup()
    deadline = time.monotonic() + timeout
    admin_url = os.environ.get("DATABASE_ADMIN_URL", "")
    if admin_url:
        waits = {"admin": _admin_connect(admin_url)}
    else:
        waits = {
            alias: connections[alias].ensure_connection
            for alias in connections
            if connections[alias].vendor != "sqlite"  # a file: nothing to wait for
        }
    for alias, connect in waits.items():
        said = False
        while True:
            try:
                connect()
                break
            except OperationalError as exc:
                if time.monotonic() >= deadline:
                    # psycopg's message names host, port and user, never the password.
                    print(
                        f"database {alias!r} unreachable after {timeout:.0f}s: {exc}",
                        file=sys.stderr,
                    )
                    return 1
                if not said:
                    print(f"waiting for database {alias!r}", file=sys.stderr)
                    said = True
                time.sleep(1)
    connections.close_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
