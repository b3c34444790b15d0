"""`manage.py preannotate`: start, follow (--wait), run here (--here) and resume a run."""

from __future__ import annotations

from collections.abc import Sequence
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from annotator.models import JobStatus, PreannotationRun, Span
from annotator.services import runs
from pseudonymizer.detection import Detection, Detector
from tests.factories import DocumentFactory, ProjectFactory

EMAIL_TEXT = "Write to moshe@example.org or see #freedom."


@pytest.fixture(autouse=True)
def _no_models(settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}


def run_command(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("preannotate", *args, "--no-progress", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_it_starts_a_run_and_says_how_to_follow_it() -> None:
    project = ProjectFactory(slug="radical", languages=["en", "fr"])
    DocumentFactory(project=project, language="en", text=EMAIL_TEXT)
    DocumentFactory(project=project, language="fr", text=EMAIL_TEXT)
    out, _ = run_command("radical", "--language", "fr", "--profile", "precise")
    run = PreannotationRun.objects.get()
    assert (run.language, run.profile, run.documents_total) == ("fr", "precise", 1)
    assert f"Started run {run.pk} of radical: 1 documents" in out
    assert f"--resume {run.pk} --wait" in out


@pytest.mark.django_db(transaction=True)
def test_wait_follows_the_run_to_its_end() -> None:
    # Transactional: the run commits, and its (eager) tasks run as a worker's would.
    project = ProjectFactory(slug="radical", languages=["en"])
    for _ in range(3):
        DocumentFactory(project=project, text=EMAIL_TEXT)
    out, _ = run_command("radical", "--wait")
    run = PreannotationRun.objects.get()
    assert run.status == JobStatus.DONE
    assert f"Run {run.pk} done: 3 of 3 documents, 6 spans proposed." in out


@pytest.mark.django_db(transaction=True)
def test_wait_fails_when_the_run_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Detector, texts: Sequence[str], language: str, **kwargs: Any) -> Detection:
        raise KeyError("bug")

    monkeypatch.setattr(Detector, "detect", broken)
    project = ProjectFactory(slug="radical", languages=["en"])
    DocumentFactory(project=project, text=EMAIL_TEXT)
    with pytest.raises(CommandError, match=r"failed: 0 of 1 documents.*Resume the run"):
        run_command("radical", "--wait")


@pytest.mark.django_db
def test_here_runs_the_batches_without_a_worker(settings: Any) -> None:
    settings.CLOAK_RUN_BATCH_SIZE = 2
    project = ProjectFactory(slug="radical", languages=["en"])
    for _ in range(5):
        DocumentFactory(project=project, text=EMAIL_TEXT)
    out, _ = run_command("radical", "--here", "--no-ner")
    run = PreannotationRun.objects.get()
    assert run.status == JobStatus.DONE and run.batches.count() == 3
    assert "done: 5 of 5 documents, 10 spans proposed" in out


@pytest.mark.django_db
def test_warnings_are_reported(settings: Any, tmp_path: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": str(tmp_path / "missing-model")}
    project = ProjectFactory(slug="radical", languages=["en"])
    DocumentFactory(project=project, text=EMAIL_TEXT)
    out, err = run_command("radical", "--here")
    assert "done: 1 of 1 documents, 2 spans proposed" in out
    assert "warning: ner (en):" in err


@pytest.mark.django_db(transaction=True)
def test_resume_finishes_an_interrupted_run_without_duplicates(settings: Any) -> None:
    settings.CLOAK_RUN_BATCH_SIZE = 1
    project = ProjectFactory(slug="radical", languages=["en"])
    for _ in range(2):
        DocumentFactory(project=project, text=EMAIL_TEXT)
    run = runs.run_create(project=project, actor=None, dispatch=False)
    first, second = run.batches.order_by("number")
    # The first batch was written; a worker took the second and was killed.
    assert runs.run_batch_detect(batch_id=first.pk)
    assert runs.run_batch_claim(batch_id=second.pk) is not None

    out, _ = run_command("radical", "--resume", str(run.pk), "--wait")
    run.refresh_from_db()
    assert run.status == JobStatus.DONE
    assert set(run.batches.values_list("status", flat=True)) == {JobStatus.DONE}
    assert Span.objects.filter(run=run).count() == 4
    assert f"Resumed run {run.pk}" in out


@pytest.mark.django_db
def test_bad_arguments_are_refused() -> None:
    project = ProjectFactory(slug="radical", languages=["en"])
    with pytest.raises(CommandError, match="no project"):
        run_command("nowhere")
    with pytest.raises(CommandError, match="no documents"):
        run_command("radical")
    with pytest.raises(CommandError, match="no run 99"):
        run_command("radical", "--resume", "99")
    DocumentFactory(project=project)
    with pytest.raises(CommandError, match="not one of the project's"):
        run_command("radical", "--language", "de")
