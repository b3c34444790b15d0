"""/api/projects/{slug}/runs/: admins start and resume runs, leads and admins follow them."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.models import JobStatus, PreannotationRun
from annotator.services import runs
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

EMAIL_TEXT = "Write to moshe@example.org or see #freedom."


@pytest.fixture(autouse=True)
def _no_models(settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}


def runs_url(slug: str = "radical") -> str:
    return reverse("api-run-list", kwargs={"slug": slug})


def run_url(run: PreannotationRun) -> str:
    return reverse("api-run-detail", kwargs={"slug": run.project.slug, "pk": run.pk})


def resume_url(run: PreannotationRun) -> str:
    return reverse("api-run-resume", kwargs={"slug": run.project.slug, "pk": run.pk})


@pytest.fixture
def run(team: Team) -> PreannotationRun:
    DocumentFactory(project=team.project, language="en", text=EMAIL_TEXT)
    return runs.run_create(project=team.project, actor=team.admin, dispatch=False)


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("admin", 202),
        ("lead", 403),
        ("annotator_en", 403),
        ("annotator_fr", 403),
        ("outsider", 404),
    ],
)
def test_only_admins_start_a_run(team: Team, role: str, expected: int) -> None:
    DocumentFactory(project=team.project, language="en", text=EMAIL_TEXT)
    response = client_for(team.by_role()[role]).post(runs_url(), {"language": "en"})
    assert response.status_code == expected
    assert PreannotationRun.objects.exists() == (expected == 202)


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("admin", 200),
        ("lead", 200),
        ("annotator_en", 403),
        ("annotator_fr", 403),
        ("outsider", 404),
    ],
)
def test_leads_and_admins_follow_runs(
    team: Team, run: PreannotationRun, role: str, expected: int
) -> None:
    client = client_for(team.by_role()[role])
    assert client.get(runs_url()).status_code == expected
    assert client.get(run_url(run)).status_code == expected


@pytest.mark.parametrize(
    ("role", "expected"),
    [("admin", 202), ("lead", 403), ("annotator_en", 403), ("outsider", 404)],
)
def test_only_admins_resume_a_run(
    team: Team, run: PreannotationRun, role: str, expected: int
) -> None:
    response = client_for(team.by_role()[role]).post(resume_url(run))
    assert response.status_code == expected


def test_anonymous_callers_are_told_to_authenticate(run: PreannotationRun) -> None:
    assert client_for(None).get(runs_url()).status_code == 401
    assert client_for(None).post(runs_url()).status_code == 401


def test_a_started_run_answers_202_with_the_job_to_poll(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    DocumentFactory(project=team.project, language="en", text=EMAIL_TEXT)
    DocumentFactory(project=team.project, language="fr", text=EMAIL_TEXT)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for(team.admin).post(
            runs_url(), {"language": "fr", "profile": "precise", "ner": False},
            content_type="application/json",
        )  # fmt: skip
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued"
    assert body["language"] == "fr" and body["profile"] == "precise"
    assert body["progress"] == {"done": 0, "total": 1}
    assert body["batches"] == {"total": 1, "queued": 1, "running": 0, "done": 0, "failed": 0}
    assert body["created_by"] == team.admin.username
    assert body["models_used"] == {"fr": ""}
    assert body["sources"] == {}
    assert len(callbacks) == 1  # the batches go to the workers once the run is committed

    for callback in callbacks:
        callback()
    done = (
        client_for(team.lead)
        .get(reverse("api-run-detail", kwargs={"slug": "radical", "pk": body["id"]}))
        .json()
    )
    assert done["status"] == "done"
    assert done["progress"] == {"done": 1, "total": 1}
    assert done["spans_created"] == 2
    assert done["sources"] == {"regex": {"proposed": 2, "alone": 2}}
    assert done["batches"]["done"] == 1
    assert done["started_at"] and done["finished_at"]
    assert "text" not in str(done)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"language": "de"}, "not one of the project's"),
        ({"language": "ar"}, "no documents in ar"),
        ({"profile": "greedy"}, "profile"),
    ],
)
def test_a_refused_run_answers_400_with_the_reason(
    team: Team, run: PreannotationRun, data: dict[str, str], message: str
) -> None:
    PreannotationRun.objects.filter(pk=run.pk).update(status=JobStatus.DONE)
    response = client_for(team.admin).post(runs_url(), data)
    assert response.status_code == 400
    assert message in str(response.json())
    assert PreannotationRun.objects.count() == 1


def test_a_second_run_while_one_is_queued_is_refused(team: Team, run: PreannotationRun) -> None:
    response = client_for(team.admin).post(runs_url(), {})
    assert response.status_code == 400
    assert f"run {run.pk} is still queued" in response.json()["detail"]


def test_the_list_pages_and_shows_newest_first(team: Team, run: PreannotationRun) -> None:
    PreannotationRun.objects.filter(pk=run.pk).update(status=JobStatus.DONE)
    second = runs.run_create(project=team.project, actor=team.admin, dispatch=False)
    body = client_for(team.lead).get(runs_url(), {"limit": 1}).json()
    assert body["count"] == 2
    assert [row["id"] for row in body["results"]] == [second.pk]


def test_a_run_of_another_project_is_not_found(team: Team, run: PreannotationRun) -> None:
    other = reverse("api-run-detail", kwargs={"slug": "elsewhere", "pk": run.pk})
    assert client_for(team.outsider).get(other).status_code == 404


def test_resuming_a_done_run_answers_400(team: Team, run: PreannotationRun) -> None:
    PreannotationRun.objects.filter(pk=run.pk).update(status=JobStatus.DONE)
    response = client_for(team.admin).post(resume_url(run))
    assert response.status_code == 400
    assert "nothing to resume" in response.json()["detail"]
