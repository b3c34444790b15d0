"""Pre-annotation end to end: a real Celery worker over Redis consuming `default` and `ner`,
and a tiny transformers NER model trained here (no model hub)."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker

from annotator.celery import app as celery_app
from annotator.models import JobStatus, PreannotationRun, Span
from annotator.services import runs
from tests.factories import DocumentFactory, ProjectFactory
from tests.pseudonymizer.recognizers import tiny_model as tiny_model_module
from tests.pseudonymizer.recognizers.tiny_model import build_tiny_ner_model

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TEXTS = [
    "Moshe Chaya lives in Lyon . Write to moshe@example.org",
    "We saw Sarah Cohen in Paris yesterday ! #freedom",
    "Call Raj Avrom tonight , the meeting is in London .",
]


@pytest.fixture(scope="module")
def tiny_model() -> Path:
    """The tiny model, built once per version of its recipe and of transformers: training it
    costs two minutes of CPU. Built aside and renamed into place, so two test runs at once
    never read half a model."""
    import transformers

    recipe = Path(tiny_model_module.__file__).read_bytes() + transformers.__version__.encode()
    folder = (
        Path(tempfile.gettempdir()) / f"cloak-tiny-ner-{hashlib.sha256(recipe).hexdigest()[:16]}"
    )
    if not (folder / "config.json").exists():
        building = Path(tempfile.mkdtemp(prefix="cloak-tiny-ner-"))
        build_tiny_ner_model(building)
        try:
            building.rename(folder)
        except OSError:  # another run put it there first
            shutil.rmtree(building, ignore_errors=True)
    return folder


@pytest.fixture
def worker(settings: Any, tiny_model: Path) -> Iterator[None]:
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("make test runs this against Redis")
    settings.CLOAK_NER_MODELS = {"en": str(tiny_model), "fr": "", "ar": ""}
    settings.CLOAK_NER_DEVICE = "cpu"
    settings.CLOAK_RUN_BATCH_SIZE = 2
    celery_app.conf.task_always_eager = False
    with start_worker(celery_app, perform_ping_check=False, queues=["default", "ner"], pool="solo"):
        yield


def wait_for(run: PreannotationRun, seconds: float = 120) -> PreannotationRun:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status not in runs.ACTIVE:
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run.pk} still {run.status} after {seconds}s")


def test_a_run_goes_through_both_queues_and_writes_every_batch(
    worker: None, tiny_model: Path
) -> None:
    project = ProjectFactory(languages=["en", "fr"])
    english = [DocumentFactory(project=project, language="en", text=text) for text in TEXTS]
    french = DocumentFactory(project=project, language="fr", text="Écrire à moshe@example.org")

    run = wait_for(runs.run_create(project=project, actor=None))

    assert run.status == JobStatus.DONE, (run.error, run.warnings)
    assert run.warnings == []
    # Arabic's detectors read the stretches of English posts in Arabic letters: recorded, with
    # no model.
    assert run.models_used == {"en": str(tiny_model), "fr": "", "ar": ""}
    assert (run.documents_done, run.documents_total) == (4, 4)
    assert set(run.batches.values_list("status", flat=True)) == {JobStatus.DONE}
    by_source = set(Span.objects.filter(run=run).values_list("source", "label"))
    assert ("ner", "PER") in by_source
    assert {("regex", "EMAIL"), ("regex", "HASHTAG")} <= by_source
    people = [
        document.text[span.start : span.end]
        for document in english
        for span in Span.objects.filter(document=document, source="ner", label="PER")
    ]
    assert "Moshe Chaya" in people
    assert list(Span.objects.filter(document=french).values_list("source", "label")) == [
        ("regex", "EMAIL")
    ]
    assert run.spans_created == Span.objects.filter(run=run).count()


def test_a_run_whose_worker_was_killed_is_resumed_without_duplicates(worker: None) -> None:
    project = ProjectFactory(languages=["en"])
    for text in TEXTS:
        DocumentFactory(project=project, language="en", text=text)
    run = runs.run_create(project=project, actor=None, dispatch=False)
    first, second = run.batches.order_by("number")
    # A worker wrote the first batch, then took the second and was killed before writing it:
    # the second batch is left running, the run never finishes by itself.
    payload = runs.run_batch_ner(batch_id=first.pk)
    assert payload is not None
    assert runs.run_batch_detect(batch_id=first.pk, ner=payload)
    assert runs.run_batch_ner(batch_id=second.pk) is not None
    run.refresh_from_db()
    assert run.status == JobStatus.RUNNING and run.documents_done == 2
    spans_before = set(Span.objects.filter(run=run).values_list("document_id", "start", "end"))

    run = wait_for(runs.run_resume(run=run))

    assert run.status == JobStatus.DONE
    assert (run.documents_done, run.documents_total) == (3, 3)
    spans = list(Span.objects.filter(run=run).values_list("document_id", "start", "end"))
    assert len(spans) == len(set(spans)) == run.spans_created
    assert spans_before <= set(spans)
    assert run.batches.get(pk=second.pk).attempts == 2
