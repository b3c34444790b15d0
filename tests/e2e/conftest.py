"""Fixtures of the end-to-end suite: one stack for the module (tests/e2e/stack.py), its project
and members made with the management commands an operator uses, API clients that sign in
as each member, and Chromium driven by Playwright.

The suite needs PostgreSQL with a role that may create roles and databases (DATABASE_URL, as
`make test` gives it), `redis-server` and Debian's chromium; without one it is skipped, saying
which. Its stack never shares a database, a Redis or a port with another test run.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from django.conf import settings

from tests.e2e.stack import Postgres, Stack, running_stack

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PROJECT = "e2e"
# Long enough for every password validator Cloak turns on.
PASSWORDS = {
    "admin": "e2e admin walks the release",
    "lead": "e2e lead reviews every flag",
    "annotator_en": "e2e english annotator decides",
    "annotator_fr": "e2e french annotator decides",
    "annotator_ar": "e2e arabic annotator decides",
}
ROLES = {
    "admin": ("admin", ""),
    "lead": ("lead", ""),
    "annotator_en": ("annotator", "en"),
    "annotator_fr": ("annotator", "fr"),
    "annotator_ar": ("annotator", "ar"),
}


def _postgres() -> Postgres:
    database = settings.DATABASES["default"]
    if not str(database["ENGINE"]).endswith("postgresql"):
        pytest.skip("the end-to-end suite runs on PostgreSQL (DATABASE_URL)")
    postgres = Postgres.from_settings(database)
    try:
        with postgres.connect() as conn:
            row = conn.execute(
                "SELECT rolsuper OR (rolcreaterole AND rolcreatedb) FROM pg_roles "
                "WHERE rolname = current_user"
            ).fetchone()
    except Exception as error:  # noqa: BLE001 - any reason to be unreachable skips alike
        pytest.skip(f"PostgreSQL is not reachable as its administrator: {type(error).__name__}")
    if not (row and row[0]):
        pytest.skip("DATABASE_URL's role may not create roles and databases")
    return postgres


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    postgres = _postgres()
    if shutil.which("redis-server") is None:
        pytest.skip("the end-to-end suite starts a redis-server of its own (Debian's redis-server)")
    folder = tmp_path_factory.mktemp("stack")
    with running_stack(folder, postgres) as started:
        _provision_project(started)
        yield started


def _provision_project(stack: Stack) -> None:
    """What an operator does once: the project and its members, with the commands."""
    stack.manage("create_project", PROJECT, "--languages", "en,fr,ar", "--schema", "cloaked")
    for name, (role, languages) in ROLES.items():
        arguments = ["add_member", PROJECT, name, "--role", role, "--password", PASSWORDS[name]]
        if languages:
            arguments += ["--languages", languages]
        stack.manage(*arguments)


@dataclass
class Api:
    """A signed-in API client of one member: `Token` auth, JSON in and out."""

    base: str
    session: requests.Session

    def url(self, path: str) -> str:
        return f"{self.base}/api/projects/{PROJECT}/{path.lstrip('/')}"

    def call(self, method: str, path: str, expect: int | None = None, **kwargs: Any) -> Any:
        response = self.session.request(method, self.url(path), timeout=60, **kwargs)
        if expect is not None:
            assert response.status_code == expect, (
                f"{method} {path}: {response.status_code} {response.text[:2000]}"
            )
        return response

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.call("GET", path, expect=200, **kwargs).json()

    def post(self, path: str, body: Any = None, expect: int = 200, **kwargs: Any) -> Any:
        response = self.call("POST", path, expect=expect, json=body, **kwargs)
        return response.json() if response.content else None

    def patch(self, path: str, body: Any, expect: int = 200) -> Any:
        return self.call("PATCH", path, expect=expect, json=body).json()


def wait_for(read: Any, done: Any, timeout: float, what: str, every: float = 0.5) -> Any:
    """Call `read` until `done` holds for its value (the value), for at most `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still {value!r} after {timeout} s")
        time.sleep(every)


def sign_in(stack: Stack, name: str) -> Api:
    session = requests.Session()
    answer = session.post(
        f"{stack.url}/api/auth/token/",
        json={"username": name, "password": PASSWORDS[name]},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    session.headers["Authorization"] = f"Token {answer.json()['token']}"
    return Api(stack.url, session)


@pytest.fixture(scope="module")
def api(stack: Stack) -> dict[str, Api]:
    return {name: sign_in(stack, name) for name in ROLES}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("needs Debian's chromium (make test installs it)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    # The sync API runs an event loop in this thread; nothing here touches Django's ORM.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            # This machine reaches no other host: background fetches would only fail.
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
            ],
        )  # fmt: skip
        yield launched
        launched.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def log_in(browser: Any, stack: Stack, name: str) -> Any:
    """A new browser context signed in as `name` through the login page; its page."""
    context = browser.new_context(base_url=stack.url)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORDS[name])
    page.click("button[type=submit]")
    page.wait_for_url(f"{stack.url}/")
    return page


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    """A failing test shows what the stack's processes said (never more than their tails)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when != "call" or not report.failed:
        return
    stack = getattr(item, "funcargs", {}).get("stack")
    if isinstance(stack, Stack):
        tails = "\n".join(stack.tail(name, 60) for name in ("web", "worker", "beat"))
        report.sections.append(("the stack's logs", tails))


def import_records(admin: Api, records: list[dict[str, Any]]) -> dict[str, int]:
    """Import Cloak JSONL `records` ({"id", "lang", "text", "spans"?}) through the API as the
    admin, wait for the import, and give each record's document id by its external id."""
    body = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    job = admin.call(
        "POST", "imports/", expect=202,
        files={"file": ("posts.jsonl", body.encode(), "application/jsonl")},
        data={"format": "jsonl"},
    ).json()  # fmt: skip
    job = wait_for(lambda: admin.get(f"imports/{job['id']}/"),
                   lambda row: row["status"] in ("done", "failed"), 120, "the import")  # fmt: skip
    assert job["status"] == "done", job
    wanted = {record["id"] for record in records}
    rows = admin.get("documents/?limit=1000")["results"]
    return {row["external_id"]: row["id"] for row in rows if row["external_id"] in wanted}
