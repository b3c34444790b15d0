"""One import end to end through a real Celery worker and the broker the settings name."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator import celery as celery_module
from annotator.celery import app as celery_app
from annotator.models import Document, JobStatus
from annotator.services.imports import import_job_create
from tests.factories import ProjectFactory

REPO_ROOT = Path(__file__).resolve().parents[2]


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


def test_a_worker_that_starts_reaps_in_its_own_process_before_any_task(monkeypatch: Any) -> None:
    """Not sent as a task: one would wait behind every message already in the queue."""
    from celery.signals import worker_ready

    from annotator import tasks

    sent: list[str] = []
    reaped: list[bool] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, *a, **k: sent.append(name))
    monkeypatch.setattr(tasks, "jobs_reap", lambda: reaped.append(True) or {})

    worker_ready.send(sender=None)

    assert reaped == [True] and sent == []


def test_a_worker_starts_even_when_its_reaper_cannot_run(monkeypatch: Any, caplog: Any) -> None:
    from celery.signals import worker_ready

    from annotator import tasks

    def down() -> None:
        raise RuntimeError("could not connect to 'db' holding Moshe Chaya")

    monkeypatch.setattr(tasks, "jobs_reap", down)
    # On the module's logger itself: a real worker started earlier in the session (Celery's
    # logging set-up) may have stopped its records from reaching the root logger.
    logger = logging.getLogger(celery_module.__name__)
    monkeypatch.setattr(logger, "disabled", False)
    caplog.set_level(logging.WARNING, logger=celery_module.__name__)
    logger.addHandler(caplog.handler)
    try:
        worker_ready.send(sender=None)  # raises nothing
    finally:
        logger.removeHandler(caplog.handler)

    assert "could not run as the worker started (RuntimeError)" in caplog.text
    assert "Moshe" not in caplog.text


def test_a_worker_names_this_start_of_itself_for_its_pool(monkeypatch: Any, settings: Any) -> None:
    from celery.signals import worker_init

    from annotator.services import jobs

    monkeypatch.setattr(jobs, "_worker", None)  # put back after the test
    settings.CLOAK_WORKER_NICE = 0  # this process keeps its priority

    class Controller:
        hostname = "celery@worker-1"

    worker_init.send(sender=Controller())
    first = jobs._worker
    worker_init.send(sender=Controller())

    assert first is not None and jobs._worker is not None
    assert first.node == jobs._worker.node == "celery@worker-1"
    assert first.boot != jobs._worker.boot


@pytest.mark.parametrize(
    "name, args, options, held",
    [
        ("annotator.tasks.preannotate_batch", [{"spans": {}}, 7], {"with_ner": True}, True),
        ("annotator.tasks.preannotate_batch", [None, 7], {}, False),  # claimed when it runs
        ("annotator.tasks.preannotate_ner", [7], {}, False),
    ],
    ids=["handed-on", "without-ner", "ner-half"],
)
def test_a_worker_holds_a_batch_handed_on_from_its_receipt(
    monkeypatch: Any, name: str, args: list[Any], options: dict[str, Any], held: bool
) -> None:
    from types import SimpleNamespace

    from celery.signals import task_received
    from django.core.cache import cache

    from annotator.models import RunBatch
    from annotator.selectors.jobs import cached_progress, progress_key
    from annotator.services import jobs

    monkeypatch.setattr(jobs, "_worker", jobs.WorkerStart("celery@worker-1", "now"))
    cache.delete(progress_key(RunBatch, 7))

    task_received.send(sender=None, request=SimpleNamespace(name=name, args=args, kwargs=options))

    progress = cached_progress(RunBatch, 7)
    cache.delete(progress_key(RunBatch, 7))
    if held:
        assert progress is not None
        assert (progress.node, progress.boot, progress.pid) == (
            "celery@worker-1",
            "now",
            os.getpid(),
        )
    else:
        assert progress is None


def _worker_starting(niceness: str) -> subprocess.CompletedProcess[str]:
    """A process that loads the worker's app and sends what a starting worker sends, with
    CLOAK_WORKER_NICE set to `niceness`: its niceness before and after. A process of its
    own, because a process cannot take back the priority it gave up."""
    script = (
        "import os; before = os.getpriority(os.PRIO_PROCESS, 0); "
        "from celery.signals import worker_init; import annotator.celery; "
        "worker_init.send(sender=None); "
        "print(before, os.getpriority(os.PRIO_PROCESS, 0))"
    )
    env = {**os.environ, "CLOAK_WORKER_NICE": niceness}
    return subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("niceness", [7, 0])
def test_a_starting_worker_yields_the_cpu_as_set(niceness: int) -> None:
    result = _worker_starting(str(niceness))

    assert result.returncode == 0, result.stderr
    before, after = map(int, result.stdout.split())
    # 0 leaves the worker as it was started; a niceness never lowers one started nicer.
    assert after == max(before, niceness)


def test_a_starting_worker_takes_the_default_niceness() -> None:
    result = _worker_starting("")  # unset, as settings read it

    assert result.returncode == 0, result.stderr
    before, after = map(int, result.stdout.split())
    assert after == max(before, 10)


@pytest.mark.parametrize("niceness", ["20", "-1"])
def test_a_worker_refuses_to_start_with_a_niceness_outside_0_to_19(niceness: str) -> None:
    celery = str(Path(sys.executable).parent / "celery")
    env = {**os.environ, "CLOAK_WORKER_NICE": niceness}

    # It exits at once with the reason; one that started would run until the timeout.
    result = subprocess.run(
        [celery, "-A", "annotator", "worker", "--pool", "solo", "-Q", "default"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip

    assert result.returncode != 0
    assert "CLOAK_WORKER_NICE must be a niceness from 0 to 19" in result.stdout + result.stderr
