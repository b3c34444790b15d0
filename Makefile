# Cloak: `make run` to try it, `make test` to check it. Both install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# make test runs against the real services on this machine.
TEST_DATABASE_URL ?= $(or $(DATABASE_URL),postgres://postgres@127.0.0.1:5432/cloak)
TEST_REDIS_URL ?= $(or $(REDIS_URL),redis://127.0.0.1:6379/15)

.PHONY: install run worker web test lint typecheck bench clean system-deps

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[ml,dev]"
	touch $(STAMP)

# Debian packages the test suite uses: docker-compose (to check docker-compose.yml),
# chromium (the browser tests drive it with Playwright, which never downloads a browser) and
# redis-server (the end-to-end suite starts one of its own).
system-deps:
	@missing=""; \
	command -v docker-compose >/dev/null 2>&1 || missing="$$missing docker-compose"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	if [ -n "$$missing" ]; then \
	  echo "installing from Debian:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# The embedded default: SQLite and a folder as the task queue, unless DATABASE_URL and
# CELERY_BROKER_URL say otherwise. The worker runs beside the web server and stops with it;
# it runs beat too (-B), which reaps jobs whose worker died (one worker, so one beat).
run: install
	DJANGO_DEBUG=$${DJANGO_DEBUG:-1} $(BIN)/python manage.py migrate --noinput
	DJANGO_DEBUG=$${DJANGO_DEBUG:-1} $(BIN)/python manage.py load_demo
	@echo "Cloak is at http://127.0.0.1:8000 (Ctrl-C stops the server and the worker)"
	export DJANGO_DEBUG=$${DJANGO_DEBUG:-1}; \
	$(BIN)/celery -A annotator worker -B -Q default,ner --concurrency 1 --loglevel INFO & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/python manage.py runserver 127.0.0.1:8000

test: install system-deps
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) \
	  $(BIN)/pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy annotator pseudonymizer bench

bench: install
	DATABASE_URL=$(TEST_DATABASE_URL) $(BIN)/python bench/import_bench.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
