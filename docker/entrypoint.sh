#!/bin/sh
# Wait for the database, apply migrations where asked (the web service sets RUN_MIGRATIONS=1,
# so that only one container migrates), then hand over to the command.
set -eu

python /app/docker/wait_for_db.py

if [ "${RUN_MIGRATIONS:-0}" = "1" ]; then
    python /app/manage.py migrate --noinput
    # The correspondence table lives in its own database when KEYS_DATABASE_URL is set.
    if [ -n "${KEYS_DATABASE_URL:-}" ]; then
        python /app/manage.py migrate --noinput --database keys
    fi
fi

exec "$@"
