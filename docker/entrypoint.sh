#!/bin/sh
# Wait for the database, apply migrations where asked (RUN_MIGRATIONS=1, for one container
# only; docker-compose runs `provision_keys_db` in its `migrate` service instead), then hand
# over to the command.
set -eu

python /app/docker/wait_for_db.py

if [ "${RUN_MIGRATIONS:-0}" = "1" ]; then
    if [ -n "${DATABASE_ADMIN_URL:-}" ]; then
        # Roles, the keys' schema and grants, then both migrations (README, "Keys database").
        python /app/manage.py provision_keys_db
    else
        python /app/manage.py migrate --noinput
        # The correspondence table lives in its own database when KEYS_DATABASE_URL is set.
        if [ -n "${KEYS_DATABASE_URL:-}" ]; then
            python /app/manage.py migrate --noinput --database keys
        fi
    fi
fi

exec "$@"
