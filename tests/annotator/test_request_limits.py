"""The limit on a request's body: over it, 413 with a JSON `detail` under /api/ and a page
elsewhere, before anything reads the body; file uploads up to the import limit still go.

The first tests run in process with a small limit; the last start a real gunicorn, as Cloak
is deployed, and send it bodies of 11 MiB with plain HTTP clients: the client must receive
the answer, not a connection reset, with a Content-Length and chunked.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotator.models import ImportJob, Span
from tests.conftest import PASSWORD, Team, client_for
from tests.factories import DocumentFactory
from tests.gunicorn_server import serving

REPO_ROOT = Path(__file__).resolve().parents[2]
MIB = 1024 * 1024


def spans_url(team: Team, document_id: int) -> str:
    return f"/api/projects/{team.project.slug}/documents/{document_id}/spans/"


@pytest.fixture
def small_limits(settings: Any) -> Any:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    settings.CLOAK_IMPORT_MAX_BYTES = 64 * 1024
    return settings


def test_a_json_body_over_the_limit_is_a_413_with_a_detail_and_changes_nothing(
    team: Team, small_limits: Any
) -> None:
    document = DocumentFactory(project=team.project, text="Shoutout to Moshe Chaya!")
    body = json.dumps({"start": 12, "end": 23, "label": "PER", "pad": "x" * 2000})
    response = client_for(team.annotator_en).post(
        spans_url(team, document.pk), body, content_type="application/json"
    )
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert "over the limit of 1024 bytes" in response.json()["detail"]
    assert not Span.objects.filter(document=document).exists()


def test_an_anonymous_body_over_the_limit_is_refused_before_signing_in(
    db: Any, small_limits: Any
) -> None:
    response = Client().post(
        "/api/auth/token/",
        {"username": "x" * 3000, "password": "y"},
        content_type="application/json",
    )
    assert response.status_code == 413
    assert "detail" in response.json()


def test_a_form_over_the_limit_on_a_page_is_a_413_page(db: Any, small_limits: Any) -> None:
    response = Client().post("/accounts/login/", {"username": "x" * 3000, "password": "y"})
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    assert b"Request too large" in response.content


def test_a_file_upload_over_the_form_limit_is_still_imported(team: Team, small_limits: Any) -> None:
    lines = "".join(
        json.dumps({"id": f"d{n}", "text": f"Moshe Chaya wrote post number {n}."}) + "\n"
        for n in range(100)
    )
    assert 1024 < len(lines) < 64 * 1024
    upload = SimpleUploadedFile("posts.jsonl", lines.encode(), content_type="application/jsonl")
    response = client_for(team.admin).post(
        f"/api/projects/{team.project.slug}/imports/",
        {"file": upload, "format": "jsonl", "language": "en"},
    )
    assert response.status_code == 202, response.content
    assert ImportJob.objects.filter(pk=response.json()["id"]).exists()


def test_an_upload_over_the_import_limit_is_a_413(team: Team, small_limits: Any) -> None:
    upload = SimpleUploadedFile("big.txt", b"Moshe " * 20_000, content_type="text/plain")
    response = client_for(team.admin).post(
        f"/api/projects/{team.project.slug}/imports/", {"file": upload, "format": "txt"}
    )
    assert response.status_code == 413
    assert "detail" in response.json()
    assert not ImportJob.objects.exists()


def test_form_fields_over_the_limit_beside_a_file_are_a_413(team: Team, small_limits: Any) -> None:
    upload = SimpleUploadedFile("a.txt", b"Moshe Chaya", content_type="text/plain")
    response = client_for(team.admin).post(
        f"/api/projects/{team.project.slug}/imports/",
        {"file": upload, "format": "txt", "language": "e" * 4000},
    )
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert not ImportJob.objects.exists()


def test_a_chunked_body_is_refused_where_the_server_cannot_end_it(db: Any) -> None:
    response = Client().post(
        "/api/auth/token/", b"{}", content_type="application/json", HTTP_TRANSFER_ENCODING="chunked"
    )
    assert response.status_code == 411
    assert "Content-Length" in response.json()["detail"]


# --- Under gunicorn ------------------------------------------------------------------------


def _database_url() -> str:
    database = django_settings.DATABASES["default"]
    if not str(database["ENGINE"]).endswith("postgresql"):
        pytest.skip("runs gunicorn against the PostgreSQL test database")
    login = database["USER"] + (f":{database['PASSWORD']}" if database["PASSWORD"] else "")
    host = f"{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
    return f"postgres://{login}@{host}/{database['NAME']}"


def _sign_in_ready(user: Any, settings: Any) -> None:
    """Give `user` PASSWORD, hashed as the server's settings hash (the tests' MD5 is not)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    user.set_password(PASSWORD)
    user.save()


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory: pytest.TempPathFactory, django_db_setup: Any) -> Iterator[str]:
    """A gunicorn serving Cloak, as deployed (sync workers), on the test database; the tests
    that use it commit their rows (`transaction=True`) so that it sees them."""
    tmp_path = tmp_path_factory.mktemp("gunicorn")
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "CLOAK_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_DEBUG": "0",
        "CELERY_TASK_ALWAYS_EAGER": "0",
    }
    env.pop("KEYS_DATABASE_URL", None)
    with serving(env, tmp_path, workers=2) as base:
        yield base


def _eleven_mib_of_json() -> bytes:
    return json.dumps({"username": "x", "password": "y" * (11 * MIB)}).encode()


def _chunks(body: bytes, size: int = 256 * 1024) -> Iterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start : start + size]


@pytest.mark.django_db(transaction=True)
def test_gunicorn_answers_11_mib_of_json_with_a_413_the_client_receives(gunicorn: str) -> None:
    body = _eleven_mib_of_json()
    sent = requests.post(
        f"{gunicorn}/api/auth/token/",
        data=body,
        headers={"Content-Type": "application/json"},
        timeout=60,
    )
    assert sent.status_code == 413
    assert sent.headers["Content-Type"] == "application/json"
    assert "over the limit of 10 MiB" in sent.json()["detail"]

    chunked = requests.post(
        f"{gunicorn}/api/auth/token/",
        data=_chunks(body),
        headers={"Content-Type": "application/json"},
        timeout=60,
    )
    assert chunked.status_code == 413
    assert "over the limit" in chunked.json()["detail"]


@pytest.mark.django_db(transaction=True)
def test_gunicorn_reads_a_chunked_body_under_the_limit(
    gunicorn: str, team: Team, settings: Any
) -> None:
    _sign_in_ready(team.admin, settings)
    body = json.dumps({"username": team.admin.username, "password": PASSWORD}).encode()
    signed_in = requests.post(
        f"{gunicorn}/api/auth/token/",
        data=_chunks(body, 16),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["token"]


@pytest.mark.django_db(transaction=True)
def test_gunicorn_answers_a_view_that_reads_no_body_to_a_client_still_sending(
    gunicorn: str, team: Team
) -> None:
    # Anonymous: refused (401) before the view reads the 8 MiB it was sent.
    body = json.dumps({"start": 0, "end": 1, "label": "PER", "pad": "x" * (8 * MIB)}).encode()
    refused = requests.post(
        f"{gunicorn}/api/projects/{team.project.slug}/documents/1/spans/",
        data=body,
        headers={"Content-Type": "application/json"},
        timeout=60,
    )
    assert refused.status_code == 401
    assert "detail" in refused.json()


@pytest.mark.django_db(transaction=True)
def test_gunicorn_takes_an_upload_of_11_mib_to_import(
    gunicorn: str, team: Team, settings: Any
) -> None:
    _sign_in_ready(team.admin, settings)
    token = requests.post(
        f"{gunicorn}/api/auth/token/",
        json={"username": team.admin.username, "password": PASSWORD},
        timeout=30,
    ).json()["token"]
    line = json.dumps({"text": "Moshe Chaya wrote this post. " * 40}) + "\n"
    content = (line * (11 * MIB // len(line) + 1)).encode()
    uploaded = requests.post(
        f"{gunicorn}/api/projects/{team.project.slug}/imports/",
        headers={"Authorization": f"Token {token}"},
        files={"file": ("posts.jsonl", content, "application/jsonl")},
        data={"format": "jsonl", "language": "en"},
        timeout=120,
    )
    assert uploaded.status_code == 202, uploaded.text
    assert ImportJob.objects.filter(pk=uploaded.json()["id"]).exists()
