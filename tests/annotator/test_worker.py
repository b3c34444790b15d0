"""One import end to end through a real Celery worker and the broker the settings name."""

from __future__ import annotations

import json
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.celery import app as celery_app
from annotator.models import Document, JobStatus
from annotator.services.imports import import_job_create
from tests.factories import ProjectFactory


@pytest.mark.django_db(transaction=True)
def test_an_uploaded_file_is_imported_by_a_worker(settings: Any) -> None:
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("make test runs this against Redis")
    celery_app.conf.task_always_eager = False
    project = ProjectFactory(languages=["en"])
    body = "".join(
        json.dumps({"id": f"w{n}", "text": f"Hello Moshe number {n}"}) + "\n" for n in range(5)
    )
    with start_worker(celery_app, perform_ping_check=False, queues=["default"], pool="solo"):
        job = import_job_create(
            project=project, upload=SimpleUploadedFile("w.jsonl", body.encode()), fmt="jsonl"
        )
        import time

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            job.refresh_from_db()
            if job.status in (JobStatus.DONE, JobStatus.FAILED):
                break
            time.sleep(0.2)
    assert job.status == JobStatus.DONE, job.error
    assert job.documents_created == 5
    assert Document.objects.filter(project=project).count() == 5


def test_a_worker_that_starts_sends_the_reaper(monkeypatch: Any) -> None:
    from celery.signals import worker_ready

    sent: list[str] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, *a, **k: sent.append(name))

    worker_ready.send(sender=None)

    assert sent == ["annotator.tasks.jobs_reap"]
