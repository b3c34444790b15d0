"""The API's conventions: bounded paging, validated filters, `{"detail": ...}` errors, a
query string that holds only what the schema documents, and a schema that says all of it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import path, reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework import generics
from rest_framework.response import Response

from annotator.api.pagination import LimitOffsetPage
from annotator.api.views import ProjectScoped
from annotator.models import DocumentStatus, Project
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db


def documents_url(**params: Any) -> tuple[str, dict[str, Any]]:
    return reverse("api-document-list", kwargs={"slug": "radical"}), params


def get(team: Team, url: str, params: dict[str, Any] | None = None, user: Any = None) -> Any:
    return client_for(user or team.lead).get(url, params or {})


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"offset": -1}, "offset"),
        ({"offset": "1.5"}, "offset"),
        ({"offset": "+3"}, "offset"),
        ({"offset": 2**31}, "offset"),
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"limit": 10**20}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": ""}, "limit"),
    ],
)
def test_paging_out_of_bounds_is_a_400_that_names_the_parameter(
    team: Team, params: dict[str, Any], field: str
) -> None:
    for name in ("api-project-list", "api-document-list", "api-member-list", "api-import-list"):
        kwargs = {} if name == "api-project-list" else {"slug": "radical"}
        response = get(team, reverse(name, kwargs=kwargs), params, user=team.admin)
        assert response.status_code == 400, (name, params)
        body = response.json()
        assert body["detail"].startswith(f"{field}: must be a whole number from ")
        assert list(body["errors"]) == [field]


def test_paging_within_bounds_pages(team: Team) -> None:
    DocumentFactory.create_batch(3, project=team.project)
    body = get(team, *documents_url(limit=2, offset=1)).json()
    assert (body["count"], len(body["results"])) == (3, 2)
    assert get(team, *documents_url(limit=1000, offset=2**31 - 1)).json()["results"] == []
    assert len(get(team, *documents_url()).json()["results"]) == 3  # PAGE_SIZE by default


def test_the_document_list_filters_by_language_status_and_external_id(team: Team) -> None:
    DocumentFactory(project=team.project, language="en", external_id="tweet-1")
    DocumentFactory(
        project=team.project, language="en", external_id="tweet-2", status=DocumentStatus.DONE
    )
    DocumentFactory(project=team.project, language="fr", external_id="post-3")

    def ids(**params: Any) -> list[str]:
        return [d["external_id"] for d in get(team, *documents_url(**params)).json()["results"]]

    assert ids(language="en") == ["tweet-1", "tweet-2"]
    assert ids(status="done") == ["tweet-2"]
    assert ids(q="TWEET", status="new") == ["tweet-1"]
    # An annotator asking for a language of the project they do not work on gets nothing.
    response = get(team, *documents_url(language="en"), user=team.annotator_fr)
    assert response.json()["results"] == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"status": "annotated"}, 'status: "annotated" is not a valid choice.'),
        ({"status": ""}, "status: "),
        ({"language": "English"}, "language: "),
        ({"q": "x" * 256}, "q: "),
        ({"q": "a\x00b"}, "q: Null characters are not allowed."),
    ],
)
def test_a_bad_filter_is_a_400_that_says_why(
    team: Team, params: dict[str, Any], message: str
) -> None:
    response = get(team, *documents_url(**params))
    assert response.status_code == 400
    assert response.json()["detail"].startswith(message)


def test_an_unknown_or_repeated_query_parameter_is_refused(team: Team) -> None:
    url, _ = documents_url()
    document = DocumentFactory(project=team.project)
    detail = reverse("api-document-detail", kwargs={"slug": "radical", "pk": document.pk})
    client = client_for(team.lead)

    assert client.get(url, {"page": 2}).json() == {"detail": "unknown query parameter: page"}
    assert client.get(detail, {"limit": 5}).json() == {"detail": "unknown query parameter: limit"}
    repeated = client.get(f"{url}?offset=1&offset=2")
    assert repeated.status_code == 400
    assert repeated.json() == {"detail": "query parameter given more than once: offset"}
    # Who may not see the project learns nothing from the query: 404 first, then 400.
    assert client_for(team.outsider).get(url, {"page": 2}).status_code == 404
    assert client_for(None).get(url, {"page": 2}).status_code == 401


def test_a_method_the_view_lacks_is_a_405_whatever_the_query(team: Team) -> None:
    url, _ = documents_url()
    assert client_for(team.lead).delete(f"{url}?page=2").status_code == 405


def test_a_refused_form_names_its_fields_in_detail_and_errors(team: Team) -> None:
    url = reverse("api-import-list", kwargs={"slug": "radical"})
    body = client_for(team.admin).post(url, {}).json()
    assert body == {
        "detail": "file: No file was submitted.",
        "errors": {"file": ["No file was submitted."]},
    }
    token = client_for(None).post(reverse("api-token"), {"username": "x"}).json()
    assert token["detail"] == "password: This field is required."


def test_the_document_list_costs_the_same_queries_for_many_documents(team: Team) -> None:
    client = client_for(team.lead)
    url, _ = documents_url()
    DocumentFactory(project=team.project)
    client.get(url)
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for document in DocumentFactory.create_batch(20, project=team.project, assignee=team.admin):
        SpanFactory.create_batch(2, document=document)
    with CaptureQueriesContext(connection) as many:
        body = client.get(url).json()
    assert len(many) == len(few)
    assert {row["span_count"] for row in body["results"][1:]} == {2}


# --- The schema ----------------------------------------------------------------------------


def schema_of(team: Team) -> dict[str, Any]:
    response = client_for(team.lead).get(reverse("api-schema"), HTTP_ACCEPT="application/json")
    return json.loads(response.content)  # type: ignore[no-any-return]


def parameters(operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p["schema"] for p in operation.get("parameters", [])}


def test_the_schema_states_the_paging_bounds_and_the_filters(team: Team) -> None:
    operation = schema_of(team)["paths"]["/api/projects/{slug}/documents/"]["get"]
    found = parameters(operation)
    assert (found["limit"]["minimum"], found["limit"]["maximum"]) == (1, LimitOffsetPage.max_limit)
    assert (found["offset"]["minimum"], found["offset"]["maximum"]) == (0, 2**31 - 1)
    assert found["status"]["enum"] == [status.value for status in DocumentStatus]
    assert found["language"]["pattern"].startswith("^[a-z]{2,3}")
    assert found["q"]["maxLength"] == 255
    assert found["slug"]["pattern"] == "^[-a-zA-Z0-9_]+$"


def test_every_operation_documents_its_errors_with_the_error_body(team: Team) -> None:
    schema = schema_of(team)
    error = {"$ref": "#/components/schemas/Error"}
    assert schema["components"]["schemas"]["Error"]["required"] == ["detail"]
    for url, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            codes = set(responses)
            where = f"{method.upper()} {url}"
            if url.startswith("/api/projects/{slug}/"):
                assert {"400", "401", "403", "404"} <= codes, where
            if "requestBody" in operation:
                assert {"400", "415"} <= codes, where
            for code in codes & {"400", "401", "403", "404", "415"}:
                assert responses[code]["content"]["application/json"]["schema"] == error, where
    token = schema["paths"]["/api/auth/token/"]["post"]["responses"]
    assert "401" not in token  # anyone may ask for a token


class Widget(ProjectScoped, generics.GenericAPIView[Project]):
    """A view as a new endpoint would write it: nothing but what it does, and what it declares."""

    conflict_responses = ("PATCH",)

    def get(self, request: Any, slug: str) -> Response:
        return Response({})

    def patch(self, request: Any, slug: str) -> Response:
        return Response({})


def test_a_new_view_gets_its_codes_from_what_it_declares() -> None:
    patterns = [path("api/projects/<slug:slug>/widget/", Widget.as_view())]
    schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    operations = schema["paths"]["/api/projects/{slug}/widget/"]
    assert set(operations["get"]["responses"]) == {"200", "400", "401", "403", "404"}
    assert set(operations["patch"]["responses"]) == {"200", "400", "401", "403", "404", "409"}
