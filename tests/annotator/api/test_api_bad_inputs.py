"""Requests a hostile tester sent, which were answered with a 500 or with something other
than JSON under /api/: each now gets a clear 4xx, `{"detail": ...}` under /api/ (a page
elsewhere), and changes nothing.

The last tests start a real gunicorn, as Cloak is deployed, with this repository's
gunicorn.conf.py, and speak raw HTTP to it: what gunicorn itself would refuse with an HTML
page is let through to Django, which answers JSON.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse
from gunicorn.http.body import Body, ChunkedReader
from gunicorn.http.unreader import IterUnreader

from annotator.models import Document, ImportJob, JobStatus, PreannotationRun, Span
from annotator.services.jobs import uploads_dir
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory
from tests.gunicorn_server import serving

REPO_ROOT = Path(__file__).resolve().parents[3]


def _json_refusal(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"] == "application/json"
    body: dict[str, Any] = response.json()
    assert body["detail"]
    return body


# --- 1. The double annotation's percentage --------------------------------------------------


@pytest.mark.parametrize("percentage", [1e308, 100000.0, 100.0001, 10**400, "100.0001"])
def test_a_percentage_past_100_is_a_400_naming_the_field(team: Team, percentage: Any) -> None:
    DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    response = client_for(team.admin).post(
        reverse("api-double-list", kwargs={"slug": "radical"}),
        {"language": "en", "percentage": percentage, "annotator": team.lead.username},
        content_type="application/json",
    )
    body = _json_refusal(response, 400)
    assert list(body["errors"]) == ["percentage"]
    assert not Document.objects.replicas().exists()


# --- 2. A JSON boolean is true or false -----------------------------------------------------


@pytest.mark.parametrize("ner", [0, 1, 0.0, "true", "false", "yes", None])
def test_a_run_refuses_a_ner_that_is_not_a_json_boolean(team: Team, ner: Any) -> None:
    DocumentFactory(project=team.project, language="en")
    response = client_for(team.admin).post(
        reverse("api-run-list", kwargs={"slug": "radical"}),
        {"language": "en", "ner": ner},
        content_type="application/json",
    )
    body = _json_refusal(response, 400)
    assert list(body["errors"]) == ["ner"]
    assert not PreannotationRun.objects.exists()


def test_a_form_still_says_false_in_words(team: Team, settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}
    DocumentFactory(project=team.project, language="en")
    url = reverse("api-run-list", kwargs={"slug": "radical"})
    refused = client_for(team.admin).post(url, {"language": "en", "ner": "0"})
    assert list(_json_refusal(refused, 400)["errors"]) == ["ner"]
    started = client_for(team.admin).post(url, {"language": "en", "ner": "false"})
    assert started.status_code == 202, started.content
    assert "ner" not in PreannotationRun.objects.get().recognizers


@pytest.mark.parametrize("confirm", [1, 0, "true"])
def test_a_span_refuses_a_confirm_that_is_not_a_json_boolean(team: Team, confirm: Any) -> None:
    document = DocumentFactory(project=team.project, language="en", text="Moshe Chaya wrote.")
    span = SpanFactory(document=document, start=0, end=5, label="PER")
    base = f"/api/projects/radical/documents/{document.pk}/spans/"
    client = client_for(team.annotator_en)
    added = client.post(
        base, {"start": 6, "end": 7, "label": "PER", "confirm": confirm},
        content_type="application/json",
    )  # fmt: skip
    assert list(_json_refusal(added, 400)["errors"]) == ["confirm"]
    patched = client.patch(
        f"{base}{span.pk}/", {"version": span.version, "label": "LOC", "confirm": confirm},
        content_type="application/json",
    )  # fmt: skip
    assert list(_json_refusal(patched, 400)["errors"]) == ["confirm"]
    assert list(Span.objects.filter(document=document).values_list("label", flat=True)) == ["PER"]


# --- 3. An upload's name ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "م" * 200 + ".jsonl",  # 400 bytes of UTF-8 in 206 characters
        "x" * 300 + ".jsonl",  # over the 255 characters of a job's filename
    ],
)
def test_an_upload_with_a_name_over_255_bytes_is_imported(
    team: Team, name: str, django_capture_on_commit_callbacks: Any
) -> None:
    url = reverse("api-import-list", kwargs={"slug": "radical"})
    upload = SimpleUploadedFile(name, b'{"id": "long-1", "lang": "en", "text": "Moshe"}\n')
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(team.admin).post(url, {"file": upload})
    assert response.status_code == 202, response.content
    job = ImportJob.objects.get(pk=response.json()["id"])
    assert job.status == JobStatus.DONE, job.error
    assert job.filename.endswith(".jsonl") and job.filename[:10] == name[:10]
    assert len(job.filename) <= 255
    assert Document.objects.filter(external_id="long-1").exists()
    assert not any(uploads_dir().iterdir()), "the upload's folder goes once imported"


# --- 4. A chunked body that cannot be read ------------------------------------------------------


def _bad_chunks() -> Body:
    """What gunicorn hands the application for a body whose chunk size is not hexadecimal."""
    request = SimpleNamespace(trailers=[], limit_request_field_size=8190, max_buffer_headers=0)
    return Body(ChunkedReader(request, IterUnreader([b"zz\r\n{}\r\n0\r\n\r\n"])))


def _chunked_post(path: str) -> Any:
    return Client().post(
        path, b"", content_type="application/json", HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": _bad_chunks(), "wsgi.input_terminated": True},
    )  # fmt: skip


def test_a_chunked_body_with_a_bad_chunk_size_is_a_400(db: Any) -> None:
    body = _json_refusal(_chunked_post("/api/auth/token/"), 400)
    assert "chunked" in body["detail"]
    page = _chunked_post("/accounts/login/")
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/html")


# --- 5. The schema's answers are JSON -------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/", "/api/docs/?script"])
@pytest.mark.parametrize(
    "accept", [None, "application/yaml", "application/vnd.oai.openapi", "text/html"]
)
def test_the_schema_and_its_docs_refuse_an_anonymous_caller_in_json(
    db: Any, path: str, accept: str | None
) -> None:
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    _json_refusal(Client().get(path, **headers), 401)


def test_the_schema_is_json_unless_yaml_is_asked_for(team: Team) -> None:
    client = client_for(team.lead)
    plain = client.get("/api/schema/")
    assert plain.status_code == 200
    assert plain["Content-Type"] == "application/json"
    assert "paths" in plain.json()
    yaml = client.get("/api/schema/", HTTP_ACCEPT="application/yaml")
    assert yaml["Content-Type"].startswith("application/yaml")
    assert yaml.content.startswith(b"openapi:")
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and docs["Content-Type"].startswith("text/html")


# --- 6. The request line and header fields ------------------------------------------------


def test_a_request_line_over_the_limit_is_a_414(db: Any) -> None:
    long_query = "q=" + "x" * 5000
    body = _json_refusal(Client().get(f"/api/projects/?{long_query}"), 414)
    assert "over the limit of 4094" in body["detail"]
    page = Client().get(f"/accounts/login/?{long_query}")
    assert page.status_code == 414 and page["Content-Type"].startswith("text/html")


def test_too_many_or_too_large_header_fields_are_a_431(db: Any) -> None:
    many = {f"HTTP_X_PAD_{i}": "1" for i in range(120)}
    body = _json_refusal(Client().get("/api/projects/", **many), 431)
    assert "header fields, over the limit of 100" in body["detail"]
    secret = "s3cret-" + "x" * 9000
    body = _json_refusal(Client().get("/api/projects/", HTTP_X_BIG=secret), 431)
    assert "X-Big" in body["detail"] and "s3cret" not in body["detail"]
    # Under the limits, the request goes on (and is refused for want of a token).
    assert Client().get("/api/projects/", HTTP_X_BIG="x" * 8000).status_code == 401


# --- Under gunicorn, with gunicorn.conf.py ------------------------------------------------------


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory: pytest.TempPathFactory, django_db_setup: Any) -> Iterator[str]:
    """A gunicorn serving Cloak from the repository's root, so that it reads gunicorn.conf.py
    as it does when deployed; on the test database, which these requests never reach."""
    database = connection.settings_dict
    if not str(database["ENGINE"]).endswith("postgresql"):
        pytest.skip("runs gunicorn against the PostgreSQL test database")
    login = database["USER"] + (f":{database['PASSWORD']}" if database["PASSWORD"] else "")
    host = f"{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
    tmp_path = tmp_path_factory.mktemp("gunicorn")
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{login}@{host}/{database['NAME']}",
        "CLOAK_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_DEBUG": "0",
    }
    env.pop("KEYS_DATABASE_URL", None)
    with serving(env, tmp_path) as base:
        yield base.removeprefix("http://")


def _raw(address: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `request` as it is; the status, the header fields and the body of the answer."""
    host, port = address.split(":")
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(request)
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        body = answer.read()
    return answer.status, {name.lower(): value for name, value in answer.getheaders()}, body


def _get(path: str, fields: str = "") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{fields}Connection: close\r\n\r\n".encode()


def _assert_json(answer: tuple[int, dict[str, str], bytes], status: int) -> str:
    got, fields, body = answer
    assert got == status, (got, body[:300])
    assert fields["content-type"] == "application/json"
    return str(json.loads(body)["detail"])


@pytest.mark.parametrize("size", [5000, 8000])
def test_gunicorn_lets_a_long_request_line_through_to_a_json_414(gunicorn: str, size: int) -> None:
    path = "/api/projects/?q=" + "x" * size
    assert "4094" in _assert_json(_raw(gunicorn, _get(path)), 414)


def test_gunicorn_lets_many_or_large_header_fields_through_to_a_json_431(gunicorn: str) -> None:
    many = "".join(f"X-Pad-{i}: 1\r\n" for i in range(150))
    assert "over the limit of 100" in _assert_json(_raw(gunicorn, _get("/api/", many)), 431)
    large = "X-Big: " + "x" * 12000 + "\r\n"
    assert "X-Big" in _assert_json(_raw(gunicorn, _get("/api/", large)), 431)


def test_gunicorn_answers_a_bad_chunk_size_with_a_json_400(gunicorn: str) -> None:
    request = (
        b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
    )
    # (A page's 400 is tested in process above: this gunicorn has no collected static files
    # for a page to link to.)
    assert "chunked" in _assert_json(_raw(gunicorn, request), 400)
