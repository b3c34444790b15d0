"""/api/projects/{slug}/queues/ and documents/assign/: the same queues and rules as the pages."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.models import Document, DocumentStatus
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

SLUG = {"slug": "radical"}


def test_leads_see_every_queue_and_annotators_their_own(team: Team) -> None:
    DocumentFactory(project=team.project, language="en", assignee=team.annotator_en,
                    status=DocumentStatus.DONE)  # fmt: skip
    DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    DocumentFactory(project=team.project, language="ar")
    url = reverse("api-queue-list", kwargs=SLUG)
    every = client_for(team.lead).get(url).json()
    assert [(q["assignee"], q["total"], q["to_do"]) for q in every] == [
        (team.annotator_en.username, 2, 1),
        (None, 1, 1),
    ]
    own = client_for(team.annotator_en).get(url).json()
    assert own == [
        {"assignee": team.annotator_en.username, "counts": {"done": 1, "new": 1},
         "total": 2, "to_do": 1, "finished": 1},
    ]  # fmt: skip


def test_the_next_document_comes_after_the_one_given(team: Team) -> None:
    first, second = (
        DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
        for _ in range(2)
    )
    url = reverse("api-queue-next", kwargs=SLUG)
    annotator = client_for(team.annotator_en)
    assert annotator.get(url).json() == {"document": first.pk}
    assert annotator.get(url, {"after": first.pk}).json() == {"document": second.pk}
    assert client_for(team.annotator_fr).get(url).json() == {"document": None}
    assert annotator.get(url, {"after": "-1"}).status_code == 400


def test_an_admin_assigns_through_the_api(team: Team) -> None:
    documents = [DocumentFactory(project=team.project, language="fr") for _ in range(2)]
    url = reverse("api-document-assign", kwargs=SLUG)
    body = {"documents": [d.pk for d in documents], "assignee": team.annotator_fr.username}
    admin = client_for(team.admin)
    response = admin.post(url, body, content_type="application/json")
    assert response.status_code == 200 and response.json() == {"changed": 2}
    refused = admin.post(
        url, {**body, "assignee": team.annotator_en.username}, content_type="application/json"
    )
    assert refused.status_code == 400 and "does not work on fr" in refused.json()["detail"]
    assert set(Document.objects.values_list("assignee", flat=True)) == {team.annotator_fr.pk}
    cleared = admin.post(url, {**body, "assignee": None}, content_type="application/json")
    assert cleared.json() == {"changed": 2}
    lead = client_for(team.lead).post(url, body, content_type="application/json")
    assert lead.status_code == 403
    empty = admin.post(url, {"documents": [], "assignee": None}, content_type="application/json")
    assert empty.status_code == 400
