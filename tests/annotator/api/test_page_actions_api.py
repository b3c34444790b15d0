"""The page actions the API gained: bulk accept / reject and the preview of a document
(annotator.api.workspace), a comment on a review item (annotator.api.comments), as every
role, and their answers to bad requests."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotator.models import Comment, Document, DocumentStatus, ReviewItem, SpanStatus
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."
ROLES = ("anonymous", "outsider", "annotator_fr", "annotator_en", "lead", "admin")
# Who may open (and so act on) an English document.
ENGLISH_READERS = {"annotator_en", "lead", "admin"}
REVIEWERS = {"lead", "admin"}


def api(team: Team, role: str) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        client.force_authenticate(team.by_role()[role])
    return client


def refused(role: str) -> int:
    """What a caller who may not see the thing gets: 401 anonymous, 404 outside it."""
    return 401 if role == "anonymous" else 404


@pytest.fixture
def document(team: Team) -> Document:
    return DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.PREANNOTATED)


def bulk_url(document: Document) -> str:
    return f"/api/projects/{document.project.slug}/documents/{document.pk}/spans/bulk/"


def preview_url(document: Document, query: str = "") -> str:
    return f"/api/projects/{document.project.slug}/documents/{document.pk}/preview/{query}"


@pytest.mark.parametrize("role", ROLES)
def test_bulk_accepts_the_proposals_of_a_label_for_whoever_may_open_the_document(
    team: Team, document: Document, role: str
) -> None:
    person = SpanFactory(document=document, start=12, end=23, label="PER", source="ner")
    place = SpanFactory(document=document, start=28, end=49, label="ADDRESS", source="ner")

    response = api(team, role).post(
        bulk_url(document), {"status": "accepted", "label": "PER"}, format="json"
    )

    person.refresh_from_db()
    place.refresh_from_db()
    if role in ENGLISH_READERS:
        assert response.status_code == 200, response.content
        assert response.json() == {"changed": 1, "conflicts": 0}
        assert person.status == SpanStatus.ACCEPTED
        assert person.version == 2
    else:
        assert response.status_code == refused(role)
        assert person.status == SpanStatus.PROPOSED
    assert place.status == SpanStatus.PROPOSED  # another label: never touched


def test_bulk_rejects_the_proposals_of_a_source(team: Team, document: Document) -> None:
    machine = SpanFactory(document=document, start=12, end=23, label="PER", source="ner")
    imported = SpanFactory(document=document, start=28, end=49, label="ADDRESS", source="import")

    response = api(team, "annotator_en").post(
        bulk_url(document), {"status": "rejected", "source": "ner"}, format="json"
    )

    assert response.status_code == 200, response.content
    assert response.json() == {"changed": 1, "conflicts": 0}
    machine.refresh_from_db()
    imported.refresh_from_db()
    assert machine.status == SpanStatus.REJECTED
    assert imported.status == SpanStatus.PROPOSED


@pytest.mark.parametrize(
    "body",
    [
        {"status": "accepted"},  # neither a label nor a source: never everything at once
        {"status": "proposed", "label": "PER"},
        {"status": "accepted", "source": "oracle"},
    ],
)
def test_a_bad_bulk_request_is_refused_and_changes_nothing(
    team: Team, document: Document, body: dict[str, Any]
) -> None:
    span = SpanFactory(document=document, start=12, end=23, label="PER", source="ner")

    response = api(team, "admin").post(bulk_url(document), body, format="json")

    assert response.status_code == 400
    assert "detail" in response.json()
    span.refresh_from_db()
    assert span.status == SpanStatus.PROPOSED
    assert span.version == 1


@pytest.mark.parametrize("role", ROLES)
def test_the_preview_renders_the_decisions_for_whoever_may_open_the_document(
    team: Team, document: Document, role: str
) -> None:
    SpanFactory(document=document, start=12, end=23, label="PER", status=SpanStatus.ACCEPTED)
    SpanFactory(document=document, start=28, end=49, label="ADDRESS", source="ner")

    response = api(team, role).get(preview_url(document, "?strategy=S2"))

    if role not in ENGLISH_READERS:
        assert response.status_code == refused(role)
        return
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["strategy"] == "S2"
    # The accepted person is replaced by its label; the undecided address stays as it is.
    assert body["text"] == "Shoutout to PER! At Rue Alphonse Metayer."
    assert body["spans"] == [{"start": 12, "end": 15, "label": "PER"}]
    assert body["undecided"] == 1
    assert body["problem"] == ""


def test_the_preview_takes_the_projects_strategy_and_refuses_an_unknown_one(
    team: Team, document: Document
) -> None:
    client = api(team, "annotator_en")

    assert client.get(preview_url(document)).json()["strategy"] == team.project.strategy
    unknown = client.get(preview_url(document, "?strategy=S9"))
    assert unknown.status_code == 400
    assert "detail" in unknown.json()


@pytest.fixture
def item(team: Team, document: Document) -> ReviewItem:
    span = SpanFactory(document=document, start=12, end=23, label="PER", source="ner")
    return ReviewItem.objects.create(
        project=team.project, kind="flag", document=document, span=span
    )


def comment_url(item: ReviewItem) -> str:
    return f"/api/projects/{item.project.slug}/review/{item.pk}/comments/"


@pytest.mark.parametrize("role", ROLES)
def test_leads_and_admins_comment_on_a_review_item(team: Team, item: ReviewItem, role: str) -> None:
    response = api(team, role).post(comment_url(item), {"body": "  Ask the lead.  "}, format="json")

    if role in REVIEWERS:
        assert response.status_code == 201, response.content
        assert response.json()["body"] == "Ask the lead."
        assert response.json()["author"] == team.by_role()[role].username
        assert list(Comment.objects.filter(review_item=item).values_list("body", flat=True)) == [
            "Ask the lead."
        ]
    else:
        expected = {"anonymous": 401, "outsider": 404}.get(role, 403)
        assert response.status_code == expected
        assert not Comment.objects.filter(review_item=item).exists()


@pytest.mark.parametrize("body", [{"body": "   "}, {}, {"body": "x" * 100_000}])
def test_a_bad_comment_is_refused_and_writes_nothing(
    team: Team, item: ReviewItem, body: dict[str, Any]
) -> None:
    response = api(team, "lead").post(comment_url(item), body, format="json")

    assert response.status_code == 400
    assert "detail" in response.json()
    assert not Comment.objects.filter(review_item=item).exists()


def test_a_comment_on_an_item_of_another_project_is_not_found(team: Team) -> None:
    other = DocumentFactory(project=team.outsider.memberships.get().project)
    item = ReviewItem.objects.create(project=other.project, kind="flag", document=other)

    response = api(team, "lead").post(
        f"/api/projects/{team.project.slug}/review/{item.pk}/comments/",
        {"body": "hi"},
        format="json",
    )

    assert response.status_code == 404
    assert not Comment.objects.exists()


@pytest.mark.parametrize("role", ROLES)
def test_leads_and_admins_ask_for_a_scan_now(
    team: Team, role: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[int, bool]] = []
    monkeypatch.setattr(
        "annotator.services.review.scan.review_scan_request",
        lambda *, project, force=False: asked.append((project.pk, force)) or True,
    )

    response = api(team, role).post(f"/api/projects/{team.project.slug}/review/scan/")

    if role in REVIEWERS:
        assert response.status_code == 202
        assert response.json() == {"queued": True}
        assert asked == [(team.project.pk, True)]  # forced: not held back by the interval
    else:
        assert response.status_code == {"anonymous": 401, "outsider": 404}.get(role, 403)
        assert asked == []


def test_a_number_is_not_a_label_nor_a_comment(
    team: Team, document: Document, item: ReviewItem
) -> None:
    bulk = api(team, "admin").post(
        bulk_url(document), {"status": "accepted", "label": 0}, format="json"
    )
    comment = api(team, "lead").post(comment_url(item), {"body": 12}, format="json")

    assert bulk.status_code == 400
    assert comment.status_code == 400
    assert not Comment.objects.exists()
