"""The runs on the pages: the button on the overview, the run's live page, resuming."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.models import JobStatus, PreannotationRun, RunBatch
from annotator.services import runs
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

EMAIL_TEXT = "Write to moshe@example.org or see #freedom."


@pytest.fixture(autouse=True)
def _no_models(settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}


@pytest.fixture
def run(team: Team) -> PreannotationRun:
    DocumentFactory(project=team.project, language="en", text=EMAIL_TEXT)
    return runs.run_create(project=team.project, actor=team.admin, dispatch=False)


def overview(team: Team, role: str) -> str:
    url = reverse("project_detail", args=["radical"])
    return client_for(team.by_role()[role]).get(url).content.decode()


def run_url(run: PreannotationRun) -> str:
    return reverse("run_detail", args=[run.project.slug, run.pk])


def test_the_overview_offers_admins_the_button_and_leads_the_runs(
    team: Team, run: PreannotationRun
) -> None:
    admin = overview(team, "admin")
    assert f'action="{reverse("run_list", args=["radical"])}"' in admin
    assert ">Pre-annotate</button>" in admin
    assert '<option value="fr">French (fr)</option>' in admin
    assert f'id="run-{run.pk}"' in admin
    lead = overview(team, "lead")
    assert ">Pre-annotate</button>" not in lead
    assert f'id="run-{run.pk}"' in lead
    annotator = overview(team, "annotator_en")
    assert "runs-title" not in annotator and ">Pre-annotate</button>" not in annotator


def test_an_active_run_row_polls_for_itself(team: Team, run: PreannotationRun) -> None:
    page = overview(team, "lead")
    assert f'hx-get="{run_url(run)}" hx-trigger="every 2s"' in page
    row = client_for(team.lead).get(
        run_url(run), HTTP_HX_REQUEST="true", HTTP_HX_TARGET=f"run-{run.pk}"
    )
    assert row.content.decode().lstrip().startswith(f'<tr id="run-{run.pk}"')


def test_starting_a_run_leads_to_its_page(
    team: Team, django_capture_on_commit_callbacks: Any
) -> None:
    DocumentFactory(project=team.project, language="en", text=EMAIL_TEXT)
    url = reverse("run_list", args=["radical"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(team.admin).post(url, {"language": "en", "profile": "precise"})
    run = PreannotationRun.objects.get()
    assert response.status_code == 302 and response["Location"] == run_url(run)
    assert (run.language, run.profile, run.status) == ("en", "precise", JobStatus.DONE)
    page = client_for(team.admin).get(run_url(run)).content.decode()
    assert "<strong>1</strong> of 1 document pre-annotated (100%)" in page
    assert "<strong>2</strong> spans proposed" in page
    assert "every 1s" not in page  # done: no more polling
    assert "See the documents" in page


def test_a_refused_run_shows_the_reason_on_the_form(team: Team) -> None:
    url = reverse("run_list", args=["radical"])
    response = client_for(team.admin).post(url, {"language": "ar", "profile": "recall"})
    assert response.status_code == 400
    assert "no documents in ar" in response.content.decode()
    assert not PreannotationRun.objects.exists()


def test_only_admins_start_runs_from_the_page(team: Team, run: PreannotationRun) -> None:
    url = reverse("run_list", args=["radical"])
    assert client_for(team.lead).post(url, {"profile": "recall"}).status_code == 403
    assert client_for(team.annotator_en).post(url, {"profile": "recall"}).status_code == 403
    assert client_for(team.outsider).post(url, {"profile": "recall"}).status_code == 404
    assert PreannotationRun.objects.count() == 1


def test_the_run_page_polls_its_status_while_the_run_goes_on(
    team: Team, run: PreannotationRun
) -> None:
    page = client_for(team.lead).get(run_url(run)).content.decode()
    assert f'hx-get="{run_url(run)}" hx-trigger="every 1s"' in page
    assert "Waiting for a worker" in page
    assert "Resume" not in page  # leads follow runs, admins resume them
    panel = client_for(team.lead).get(run_url(run), HTTP_HX_REQUEST="true")
    body = panel.content.decode()
    assert body.lstrip().startswith('<section id="run-status"')
    assert "<html" not in body


def test_warnings_and_failures_are_shown_and_the_admin_may_resume(
    team: Team, run: PreannotationRun, django_capture_on_commit_callbacks: Any
) -> None:
    batch = run.batches.get()
    runs.run_batch_claim(batch_id=batch.pk)
    runs.run_batch_fail(batch_id=batch.pk, reason="internal error (KeyError)")
    PreannotationRun.objects.filter(pk=run.pk).update(
        warnings=[{"language": "en", "recognizer": "ner", "reason": "spaCy model x cannot load"}]
    )
    page = client_for(team.admin).get(run_url(run)).content.decode()
    assert "1 of 1 batch failed" in page
    assert "spaCy model x cannot load" in page
    assert ">Resume</button>" in page

    resume = reverse("run_resume", args=["radical", run.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(team.admin).post(resume, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<section id="run-status"')
    run.refresh_from_db()
    assert run.status == JobStatus.DONE
    assert RunBatch.objects.get(pk=batch.pk).status == JobStatus.DONE


def test_resuming_a_done_run_says_why_not(team: Team, run: PreannotationRun) -> None:
    PreannotationRun.objects.filter(pk=run.pk).update(status=JobStatus.DONE)
    resume = reverse("run_resume", args=["radical", run.pk])
    response = client_for(team.admin).post(resume, follow=True)
    assert "nothing to resume" in response.content.decode()
    htmx = client_for(team.admin).post(resume, HTTP_HX_REQUEST="true")
    assert htmx.status_code == 400 and "nothing to resume" in htmx.content.decode()
    assert client_for(team.lead).post(resume).status_code == 403


def test_the_runs_page_lists_every_run(team: Team, run: PreannotationRun) -> None:
    url = reverse("run_list", args=["radical"])
    admin = client_for(team.admin).get(url).content.decode()
    assert f'id="run-{run.pk}"' in admin and "Start a run" in admin
    lead = client_for(team.lead).get(url).content.decode()
    assert f'id="run-{run.pk}"' in lead and "Start a run" not in lead
    assert client_for(team.annotator_en).get(url).status_code == 403
    assert client_for(team.outsider).get(url).status_code == 404


def test_the_run_page_names_each_language_model_and_learned_version(
    team: Team, run: PreannotationRun
) -> None:
    PreannotationRun.objects.filter(pk=run.pk).update(
        models_used={"ar": "", "en": "en_core_web_sm", "learned:ar": "v3"}
    )
    html = client_for(team.lead).get(run_url(run)).content.decode()
    assert "Arabic (ar), learned from decisions: <code>v3</code>" in html
    assert "learned:ar" not in html


COUNTS = {
    "ner": {"proposed": 120, "alone": 95},
    "learned": {"proposed": 67, "alone": 40},
    "regex": {"proposed": 30, "alone": 30},
}


@pytest.mark.parametrize("role", ["admin", "lead"])
def test_the_run_page_says_what_each_source_proposed(
    team: Team, run: PreannotationRun, role: str
) -> None:
    PreannotationRun.objects.filter(pk=run.pk).update(spans_created=190, source_counts=COUNTS)
    client = client_for(team.by_role()[role])

    response = client.get(run_url(run))
    panel = client.get(run_url(run), HTTP_HX_REQUEST="true").content.decode()

    assert response.status_code == 200
    html = response.content.decode()
    rows = [
        '<tr id="source-regex"><th scope="row">Regular expression</th><td>30</td><td>30</td>',
        '<tr id="source-ner"><th scope="row">NER model</th><td>120</td><td>95</td>',
        '<tr id="source-learned"><th scope="row">Learned from decisions</th><td>67</td><td>40</td>',
    ]
    for row in rows:
        assert row in html and row in panel  # the live panel keeps them up to date
    # In the vocabulary's order: patterns, NER, known entities, the learned model.
    assert html.index("source-regex") < html.index("source-ner") < html.index("source-learned")


@pytest.mark.parametrize(
    ("role", "status"), [("annotator_en", 403), ("annotator_fr", 403), ("outsider", 404)]
)
def test_who_does_not_follow_runs_sees_no_counts(
    team: Team, run: PreannotationRun, role: str, status: int
) -> None:
    PreannotationRun.objects.filter(pk=run.pk).update(spans_created=190, source_counts=COUNTS)

    response = client_for(team.by_role()[role]).get(run_url(run))

    assert response.status_code == status
    assert "Learned from decisions" not in response.content.decode()


def test_a_run_older_than_the_counts_says_so(team: Team, run: PreannotationRun) -> None:
    PreannotationRun.objects.filter(pk=run.pk).update(spans_created=4, source_counts={})

    html = client_for(team.lead).get(run_url(run)).content.decode()

    assert "older than the counts of proposals by source" in html
    assert "source-counts" not in html


def test_a_finished_run_shows_the_counts_it_wrote(
    team: Team, run: PreannotationRun, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        runs.run_resume(run=run)  # its batch goes to the (eager) worker

    html = client_for(team.lead).get(run_url(run)).content.decode()

    assert '<th scope="row">Regular expression</th><td>2</td><td>2</td>' in html
