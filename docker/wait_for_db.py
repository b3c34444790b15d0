"""Block until every configured database accepts connections, or fail after a deadline.

Run by docker/entrypoint.sh before the command; compose's `service_healthy` covers a fresh
`up`, this covers a restarted container and a database on another host.
"""

from __future__ import annotations

import os
import sys
import time

import django
from django.db import connections
from django.db.utils import OperationalError


def main() -> int:
    timeout = float(os.environ.get("WAIT_FOR_DB_TIMEOUT", "60"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    django.setup()
    deadline = time.monotonic() + timeout
    for alias in connections:
        connection = connections[alias]
        if connection.vendor == "sqlite":
            continue  # a file: nothing to wait for
        said = False
        while True:
            try:
                connection.ensure_connection()
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
        connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
