"""The learned models page: every language's versions and their held-out scores; admins train."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.models import AuditAction, AuditEvent, JobStatus, LearnedModel
from tests.annotator.services.test_learning import NAMES, corpus
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _learning_settings(settings: Any) -> None:
    settings.CLOAK_LEARN_MIN_SPANS = 3
    settings.CLOAK_LEARN_ITERATIONS = 5


def url(team: Team) -> str:
    return reverse("learned_models", kwargs={"slug": team.project.slug})


def done_model(team: Team, version: int = 1) -> LearnedModel:
    return LearnedModel.objects.create(
        project=team.project, language="en", version=version, status=JobStatus.DONE,
        path=f"learned/{team.project.slug}/en/{version}", decisions_used=24,
        decisions_held_out=6, labels=["PER"], trigger="admin", created_by=team.admin,
        scores={"*": {"precision": 0.875, "recall": 0.5, "f1": 0.636},
                "PER": {"precision": 0.875, "recall": 0.5, "f1": 0.636}},
    )  # fmt: skip


def test_a_lead_sees_each_languages_versions_and_scores_but_no_train_button(team: Team) -> None:
    done_model(team)
    LearnedModel.objects.create(
        project=team.project, language="en", version=2, status=JobStatus.FAILED,
        error="training failed: no decided spans to learn from", trigger="decisions",
    )  # fmt: skip

    response = client_for(team.lead).get(url(team))

    assert response.status_code == 200
    page = response.content.decode()
    assert "In use: <strong>version 1</strong>" in page
    assert "precision 0.88 and recall 0.50" in page
    assert "24 / 6" in page
    assert "PER 0.88 / 0.50 / 0.64" in page
    assert "no decided spans to learn from" in page
    assert "new decisions" in page  # version 2 was asked for by the decisions counter
    assert page.count("No model yet.") == 2  # French and Arabic
    assert "Train now</button>" not in page
    assert f"learned/{team.project.slug}" not in page  # no file path


@pytest.mark.parametrize("role", ["lead", "admin"])
def test_the_held_out_documents_are_listed_with_their_version(team: Team, role: str) -> None:
    documents = [DocumentFactory(project=team.project, status="done") for _ in range(2)]
    model = done_model(team)
    LearnedModel.objects.filter(pk=model.pk).update(
        held_out_documents=[document.pk for document in documents]
    )

    page = client_for(team.by_role()[role]).get(url(team)).content.decode()

    assert "<summary>Held out</summary>" in page
    for document in documents:
        link = reverse("document_detail", args=[team.project.slug, document.pk])
        assert f'<a href="{link}">{document.pk}</a>' in page


def test_an_admin_trains_a_language_now(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    corpus(team.project, 5)
    client = client_for(team.admin)
    assert "Train now</button>" in client.get(url(team)).content.decode()

    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(url(team), {"language": "en"})

    assert response.status_code == 302 and response["Location"] == url(team)
    model = LearnedModel.objects.get()
    assert (model.language, model.version, model.trigger, model.created_by) == (
        "en", 1, "admin", team.admin,
    )  # fmt: skip
    assert AuditEvent.objects.filter(action=AuditAction.LEARN, actor=team.admin).count() == 1
    page = client.get(url(team)).content.decode()
    assert "queued or training" in page
    for name in NAMES:
        assert name not in page


def test_too_few_decisions_or_a_bad_language_are_refused_and_change_nothing(
    team: Team, settings: Any
) -> None:
    settings.CLOAK_LEARN_MIN_SPANS = 50
    corpus(team.project, 2)
    client = client_for(team.admin)

    refused = client.post(url(team), {"language": "en"})
    assert refused.status_code == 400
    assert "at least 50" in refused.content.decode()
    assert client.post(url(team), {"language": "de"}).status_code == 400
    assert not LearnedModel.objects.exists()


@pytest.mark.parametrize("role", ["annotator_en", "annotator_fr", "lead"])
def test_only_admins_train(team: Team, role: str) -> None:
    corpus(team.project, 5)
    response = client_for(team.by_role()[role]).post(url(team), {"language": "en"})
    assert response.status_code == 403
    assert not LearnedModel.objects.exists()


def test_the_quality_page_shows_the_model_in_use_per_language(team: Team) -> None:
    done_model(team)

    response = client_for(team.lead).get(reverse("quality", kwargs={"slug": team.project.slug}))

    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="learned-title"' in page
    assert "<td>v1</td>" in page and "24 / 6" in page
    assert '<td class="num">0.88</td><td class="num">0.50</td>' in page
    assert page.count("No ready model") == 2
    assert url(team) in page
