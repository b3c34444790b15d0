"""/api/projects/{slug}/double/: the pairs of a double annotation, and a sample given to a
second annotator; the replica's span API stays blind to the first annotator's choice."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.models import Document, Role, Span, SpanSource
from annotator.services.spans import SpanChange, span_update
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, MembershipFactory, SpanFactory

pytestmark = pytest.mark.django_db

SLUG = {"slug": "radical"}
URL = "/api/projects/radical/double/"
TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."


@pytest.fixture
def second(team: Team) -> Any:
    return MembershipFactory(project=team.project, role=Role.ANNOTATOR, languages=["en"]).user


@pytest.fixture
def documents(team: Team) -> list[Document]:
    made = []
    for n in range(3):
        document = DocumentFactory(project=team.project, language="en", text=TEXT,
                                   external_id=f"p{n}", assignee=team.annotator_en)  # fmt: skip
        span = SpanFactory(document=document, start=12, end=23, label="PER",
                           source=SpanSource.NER, proposed_start=12, proposed_end=23,
                           proposed_label="PER")  # fmt: skip
        span_update(document=document, span_id=span.pk, actor=team.annotator_en, version=1,
                    change=SpanChange(replacement="Raj Avrom"))  # fmt: skip
        made.append(document)
    return made


def post(user: Any, body: dict[str, Any]) -> Any:
    return client_for(user).post(URL, body, content_type="application/json")


def test_the_url_is_the_documented_one() -> None:
    assert reverse("api-double-list", kwargs=SLUG) == URL


def test_an_admin_assigns_a_sample_and_lists_the_pairs(
    team: Team, second: Any, documents: list[Document]
) -> None:
    response = post(team.admin, {"language": "en", "percentage": "34",
                                 "annotator": second.username, "seed": "a"})  # fmt: skip
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["documents"] == 2 and body["spans"] == 2
    replica_ids = [pair["replica"] for pair in body["pairs"]]
    assert set(Document.objects.replicas().values_list("pk", flat=True)) == set(replica_ids)

    listed = client_for(team.admin).get(URL).json()
    assert listed["count"] == 2
    first = listed["results"][0]
    original = Document.objects.get(pk=body["pairs"][0]["original"])
    assert first["language"] == "en"
    assert first["original"] == {"id": original.pk, "external_id": original.external_id,
                                 "status": original.status,
                                 "assignee": team.annotator_en.username}  # fmt: skip
    assert first["replica"]["id"] == body["pairs"][0]["replica"]
    assert first["replica"]["external_id"] == f"{original.external_id}#2"
    assert first["replica"]["assignee"] == second.username
    assert client_for(team.admin).get(URL, {"language": "fr"}).json()["count"] == 0


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"language": "en", "percentage": "0"}, "percentage"),
        ({"language": "en", "percentage": "101"}, "percentage"),
        ({"language": "en", "percentage": "ten"}, "percentage"),
        # JSON numbers past 100 are refused before any rounding (a 500 once: the decimal
        # context overflowed; 100.0001 was taken for 100).
        ({"language": "en", "percentage": 1e308}, "percentage"),
        ({"language": "en", "percentage": 100000.0}, "percentage"),
        ({"language": "en", "percentage": 100.0001}, "percentage"),
        ({"language": "xx", "percentage": "10"}, "not one of the project's"),
        ({"language": "en", "percentage": "10", "annotator": "ghost"}, "not a member"),
    ],
)
def test_a_bad_request_says_why_and_changes_nothing(
    team: Team, second: Any, documents: list[Document], body: dict[str, Any], says: str
) -> None:
    response = post(team.admin, {"annotator": second.username, **body})
    assert response.status_code == 400
    assert says in response.json()["detail"]
    assert not Document.objects.replicas().exists()


@pytest.mark.parametrize("role", ["lead", "annotator_en", "annotator_fr"])
def test_only_admins_assign_or_list(team: Team, second: Any, role: str) -> None:
    user = team.by_role()[role]
    assert post(user, {"language": "en", "percentage": "50",
                       "annotator": second.username}).status_code == 403  # fmt: skip
    assert client_for(user).get(URL).status_code == 403
    assert client_for(team.outsider).get(URL).status_code == 404
    assert not Document.objects.replicas().exists()


def test_the_replicas_spans_in_the_api_show_no_choice_of_the_first_annotator(
    team: Team, second: Any, documents: list[Document]
) -> None:
    body = post(team.admin, {"language": "en", "percentage": "1",
                             "annotator": second.username}).json()  # fmt: skip
    replica = Document.objects.get(pk=body["pairs"][0]["replica"])
    span = Span.objects.get(document=replica)
    client = client_for(second)
    base = f"/api/projects/radical/documents/{replica.pk}/spans/"
    (row,) = client.get(base).json()["results"]
    assert row["replacement"] is None and row["entity_id"] is None
    suggestions = client.get(f"{base}{span.pk}/suggestions/").json()
    assert suggestions["chosen"] is None and "Raj Avrom" not in suggestions["suggestions"]
    # The first annotator's document still offers their choice first.
    original = body["pairs"][0]["original"]
    first_span = Span.objects.get(document_id=original)
    mine = client_for(team.annotator_en).get(
        f"/api/projects/radical/documents/{original}/spans/{first_span.pk}/suggestions/"
    )
    assert mine.json()["chosen"] == "Raj Avrom"
    # Neither annotator lists the other's half.
    listed = client.get("/api/projects/radical/documents/").json()["results"]
    assert replica.pk in {d["id"] for d in listed} and original not in {d["id"] for d in listed}
    listed = client_for(team.annotator_en).get("/api/projects/radical/documents/").json()
    assert replica.pk not in {d["id"] for d in listed["results"]}
