"""The learned models endpoint: leads and admins list the versions; admins train one (202)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.models import JobStatus, LearnedModel
from tests.annotator.services.test_learning import corpus
from tests.conftest import Team, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _learning_settings(settings: Any) -> None:
    settings.CLOAK_LEARN_MIN_SPANS = 3
    settings.CLOAK_LEARN_ITERATIONS = 5


def url(team: Team) -> str:
    return reverse("api-learned-list", kwargs={"slug": team.project.slug})


def test_a_lead_lists_the_versions_without_paths(team: Team) -> None:
    LearnedModel.objects.create(
        project=team.project, language="en", version=1, status=JobStatus.DONE,
        path="learned/x/en/1", decisions_used=8, decisions_held_out=2, labels=["PER"],
        scores={"*": {"precision": 1.0, "recall": 0.5, "f1": 0.667}}, trigger="admin",
        held_out_documents=[41, 57],
    )  # fmt: skip
    LearnedModel.objects.create(project=team.project, language="fr", version=1)

    response = client_for(team.lead).get(url(team))

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    first = body["results"][0]
    assert (first["language"], first["version"], first["status"]) == ("en", 1, "done")
    assert first["scores"]["*"]["recall"] == 0.5
    assert first["decisions_used"] == 8 and first["decisions_held_out"] == 2
    assert first["held_out_documents"] == [41, 57]  # the scores' documents, to check them
    assert "path" not in first
    only_fr = client_for(team.lead).get(url(team), {"language": "fr"}).json()
    assert [row["language"] for row in only_fr["results"]] == ["fr"]


def test_an_admin_trains_202_and_the_task_trains_it(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    corpus(team.project, 10)
    client = client_for(team.admin)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url(team), {"language": "en"}, content_type="application/json")

    assert response.status_code == 202
    assert response.json()["status"] == "queued"  # as it was when the request answered
    model = LearnedModel.objects.get(pk=response.json()["id"])
    assert model.status == JobStatus.DONE, model.error
    # Asking again while one is queued answers that one: here the first is done, so a second.
    with django_capture_on_commit_callbacks(execute=False):
        again = client.post(url(team), {"language": "en"}, content_type="application/json")
        same = client.post(url(team), {"language": "en"}, content_type="application/json")
    assert again.json()["version"] == 2 and same.json()["id"] == again.json()["id"]


@pytest.mark.parametrize("body", [{}, {"language": "de"}, {"language": 3}])
def test_a_bad_request_is_400_and_queues_nothing(team: Team, body: dict[str, Any]) -> None:
    corpus(team.project, 5)
    response = client_for(team.admin).post(url(team), body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"]
    assert not LearnedModel.objects.exists()


def test_too_few_decisions_is_400_with_the_reason(team: Team, settings: Any) -> None:
    settings.CLOAK_LEARN_MIN_SPANS = 100
    corpus(team.project, 2)
    response = client_for(team.admin).post(
        url(team), {"language": "en"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert "at least 100" in response.json()["detail"]


@pytest.mark.parametrize("role", ["annotator_en", "lead", "outsider"])
def test_only_admins_train(team: Team, role: str) -> None:
    corpus(team.project, 5)
    response = client_for(team.by_role()[role]).post(
        url(team), {"language": "en"}, content_type="application/json"
    )
    assert response.status_code == (404 if role == "outsider" else 403)
    assert not LearnedModel.objects.exists()
