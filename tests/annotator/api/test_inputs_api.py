"""No input makes the API fail: deep JSON, any Accept header, OPTIONS, unknown paths, spans
that split a character, a PATCH that changes nothing. Every answer is a documented status
with a JSON `detail`, and a refused request changes nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.test import APIClient

from annotator.api.fields import PercentageField
from annotator.api.parsers import MAX_DEPTH, BoundedJSONParser, json_depth_exceeds
from annotator.models import Document, DocumentStatus, Span, SpanSource
from tests.conftest import PASSWORD, Team, client_for
from tests.factories import DocumentFactory, SpanFactory

THUMBS_UP_MEDIUM = "\U0001f44d\U0001f3fd"
FRANCE = "\U0001f1eb\U0001f1f7"
TEXT = f"Merci {THUMBS_UP_MEDIUM} Moshe Chaya ! Vive la {FRANCE}.\r\nRene\u0301 Dubois"


def api(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


@pytest.fixture
def document(team: Team) -> Document:
    return DocumentFactory(
        project=team.project, language="en", text=TEXT, status=DocumentStatus.PREANNOTATED
    )


def spans_url(document: Document, span: Span | None = None) -> str:
    base = f"/api/projects/{document.project.slug}/documents/{document.pk}/spans/"
    return f"{base}{span.pk}/" if span is not None else base


# --- Deep JSON -------------------------------------------------------------------------------


def test_nesting_is_measured_outside_strings_without_recursion() -> None:
    assert not json_depth_exceeds("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert json_depth_exceeds("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert json_depth_exceeds('{"a": ' * 100_000)  # unclosed: still too deep, and quick
    assert not json_depth_exceeds(json.dumps({"body": "[{" * 1000, "escaped": '\\"[[[['}))
    assert json_depth_exceeds(json.dumps(["\\", "]", [[[[[[]]]]]]]), limit=5)


def test_a_body_nested_100000_deep_is_a_400_on_the_span_api(team: Team, document: Document) -> None:
    response = api(team.annotator_en).generic(
        "POST", spans_url(document), deep(100_000), content_type="application/json"
    )
    assert response.status_code == 400
    assert f"more than {MAX_DEPTH} levels deep" in response.json()["detail"]
    assert not Span.objects.filter(document=document).exists()


def test_a_body_nested_100000_deep_is_a_400_for_the_token_without_signing_in(db: Any) -> None:
    response = Client().generic(
        "POST", "/api/auth/token/", deep(100_000), content_type="application/json"
    )
    assert response.status_code == 400
    assert "levels deep" in response.json()["detail"]


def test_a_body_nested_within_the_bound_is_read_as_before(team: Team, document: Document) -> None:
    body = {"start": 9, "end": 20, "label": "PER", "extra": [[[["nested"]]]]}
    response = api(team.annotator_en).post(spans_url(document), body, format="json")
    assert response.status_code == 201
    assert TEXT[response.json()["start"] : response.json()["end"]] == "Moshe Chaya"


def test_malformed_json_and_not_utf8_are_a_400_with_a_detail(
    team: Team, document: Document
) -> None:
    client = api(team.annotator_en)
    for body in (b'{"start": 1,', b'{"label": "\xff"}', b"NaN"):
        response = client.generic(
            "POST", spans_url(document), body, content_type="application/json"
        )
        assert response.status_code == 400
        assert response.json()["detail"].startswith("JSON parse error")


def _api_views() -> Iterator[tuple[str, Any]]:
    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, Any]]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                view = getattr(pattern.callback, "cls", None)
                if view is not None and (prefix + str(pattern.pattern)).startswith("api/"):
                    yield prefix + str(pattern.pattern), view

    return walk(get_resolver().url_patterns, "")


def test_every_api_view_that_reads_json_bounds_its_depth() -> None:
    views = list(_api_views())
    assert len(views) > 40
    for route, view in views:
        for parser in view().get_parsers():
            assert not isinstance(parser, JSONParser) or isinstance(parser, BoundedJSONParser), (
                f"{route}: {type(parser).__name__} reads JSON without a depth bound"
            )


# --- Content types -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "accept", ["text/html", "*/*", "text/html,application/xhtml+xml,*/*;q=0.8", "image/png", ""]
)
def test_the_api_answers_json_whatever_the_client_accepts(team: Team, accept: str) -> None:
    client = api(team.admin)
    for path, status in (("/api/projects/", 200), ("/api/projects/nowhere/", 404)):
        response = client.get(path, HTTP_ACCEPT=accept)
        assert response.status_code == status
        assert response["Content-Type"] == "application/json"
        assert "detail" in response.json() or status == 200


@pytest.mark.parametrize(
    "path",
    ["/api/nothing/", "/api/projects/%C2%84/", "/api/projects/radical/documents/x/"],
)
def test_a_path_no_api_route_matches_is_a_json_404(team: Team, path: str) -> None:
    response = client_for(team.admin).get(path, HTTP_ACCEPT="text/html")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found."}


def test_a_page_that_does_not_exist_is_still_a_page(team: Team) -> None:
    response = client_for(team.admin).get("/projects/radical/nothing-here/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_bad_host_under_the_api_is_a_json_400(db: Any) -> None:
    response = Client().get("/api/projects/", HTTP_HOST="elsewhere.example")
    assert response.status_code == 400
    assert "Host" in response.json()["detail"]


def test_options_answers_json_on_every_api_route(team: Team, document: Document) -> None:
    span = SpanFactory(document=document, start=9, end=20)
    values = {"slug": team.project.slug, "pk": document.pk, "span_id": span.pk}
    client = api(team.admin)
    for route, _view in _api_views():
        path = "/" + route
        for name, value in values.items():
            path = path.replace(f"<slug:{name}>", str(value)).replace(f"<int:{name}>", str(value))
        response = client.options(path)
        assert response.status_code in (200, 404), f"{path}: {response.status_code}"
        assert response["Content-Type"] == "application/json", path


def test_options_describes_what_a_comment_post_reads(team: Team, document: Document) -> None:
    span = SpanFactory(document=document, start=9, end=20)
    flagged = api(team.annotator_en).patch(
        spans_url(document, span), {"version": 1, "flag": "Public figure?"}, format="json"
    )
    assert flagged.status_code == 200
    item = span.review_items.get()
    response = api(team.lead).options(f"/api/projects/radical/review/{item.pk}/comments/")
    assert response.status_code == 200
    assert "body" in response.json()["actions"]["POST"]


# --- Grapheme clusters -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cut", "whole"),
    [
        ((6, 7), (6, 8)),  # the hand without its skin tone
        ((7, 8), (6, 8)),  # the skin tone alone
        ((32, 33), (31, 33)),  # half of the flag
        ((35, 41), (34, 41)),  # from between CR and LF
        ((36, 40), (36, 41)),  # René without his accent
    ],
)
def test_the_api_refuses_a_span_that_splits_a_character(
    team: Team, document: Document, cut: tuple[int, int], whole: tuple[int, int]
) -> None:
    client = api(team.annotator_en)
    response = client.post(
        spans_url(document), {"start": cut[0], "end": cut[1], "label": "PER"}, format="json"
    )
    assert response.status_code == 400
    assert "cut a character in two" in response.json()["detail"]
    assert f"[{whole[0]}, {whole[1]})" in response.json()["detail"]
    assert not Span.objects.filter(document=document).exists()


def test_the_api_refuses_moving_an_edge_into_a_character(team: Team, document: Document) -> None:
    span = SpanFactory(document=document, start=6, end=8, label="PER", source=SpanSource.NER)
    client = api(team.annotator_en)
    response = client.patch(spans_url(document, span), {"version": 1, "end": 7}, format="json")
    assert response.status_code == 400
    assert Span.objects.get(pk=span.pk).end == 8
    whole = client.patch(spans_url(document, span), {"version": 1, "start": 6}, format="json")
    assert whole.status_code == 200


# --- A PATCH that changes nothing ------------------------------------------------------------


def test_the_same_patch_twice_keeps_the_version_the_second_time(
    team: Team, document: Document
) -> None:
    span = SpanFactory(document=document, start=9, end=20, label="PER", source=SpanSource.NER)
    client = api(team.annotator_en)
    body = {"version": 1, "status": "accepted", "replacement": "Raj Avrom", "label": "PER"}
    first = client.patch(spans_url(document, span), body, format="json")
    assert first.status_code == 200 and first.json()["version"] == 2
    again = client.patch(spans_url(document, span), {**body, "version": 2}, format="json")
    assert again.status_code == 200
    assert again.json() == first.json()
    assert Span.objects.get(pk=span.pk).version == 2
    flagged = client.patch(
        spans_url(document, span), {"version": 2, "flag": "Public figure?"}, format="json"
    )
    assert flagged.json()["version"] == 3 and flagged.json()["flagged"] is True


def test_signing_in_still_works_with_the_bounded_parser(team: Team) -> None:
    team.annotator_en.set_password(PASSWORD)
    team.annotator_en.save()
    response = Client().post(
        "/api/auth/token/",
        {"username": team.annotator_en.username, "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code in (200, 201)


# --- What the schema allows, the API takes ---------------------------------------------------


def test_filters_that_match_nothing_list_nothing_rather_than_refuse(team: Team) -> None:
    DocumentFactory(project=team.project, language="en")
    client = api(team.admin)
    documents = client.get("/api/projects/radical/documents/", {"language": "de"})
    assert documents.status_code == 200 and documents.json()["results"] == []
    quality = client.get("/api/projects/radical/quality/", {"language": "de"})
    assert quality.status_code == 200
    audit = client.get(
        "/api/projects/radical/audit/", {"since": "2026-03-05", "until": "2026-03-01"}
    )
    assert audit.status_code == 200 and audit.json()["results"] == []


def test_a_percentage_may_be_a_number_with_more_decimals_rounded_up() -> None:
    field = PercentageField()
    assert str(field.run_validation(12.5)) == "12.500"
    assert str(field.run_validation(0.0001)) == "0.001"
    assert str(field.run_validation("34")) == "34.000"
    for refused in ("", "0", "05", "5e1", "-1", 0, 100.5, True):
        with pytest.raises(ValidationError):
            field.run_validation(refused)


def test_an_import_is_a_multipart_upload_and_a_urlencoded_form_is_a_415(team: Team) -> None:
    response = client_for(team.admin).post(
        "/api/projects/radical/imports/",
        "file=&format=txt",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 415
    assert "detail" in response.json()


def test_the_schema_says_what_a_body_needs_across_its_fields(team: Team) -> None:
    schema = client_for(team.admin).get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    bulk = components["SpansBulkRequest"]["anyOf"]
    assert [branch["required"] for branch in bulk] == [["label", "status"], ["source", "status"]]
    resolve = components["ReviewResolveRequest"]["anyOf"]
    assert [branch["required"] for branch in resolve] == [
        ["decision", "rationale"], ["action", "rationale"],
    ]  # fmt: skip
    patch = components["SpanPatchRequest"]
    assert patch["required"] == ["version"]
    label = patch["properties"]["label"]
    assert not re.search(label["pattern"], " \x1c ") and re.search(label["pattern"], " PER ")


def test_a_bulk_decision_with_neither_label_nor_source_is_refused(
    team: Team, document: Document
) -> None:
    response = api(team.annotator_en).post(
        f"/api/projects/radical/documents/{document.pk}/spans/bulk/",
        {"status": "accepted", "label": ""},
        format="json",
    )
    assert response.status_code == 400
    assert "choose a label or a source" in response.json()["detail"]
