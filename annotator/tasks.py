"""Celery tasks: thin, id-based; the work is in services and the engine.

A bug that stops a job's work goes one way, `job_crashed` (annotator.services.jobs): the job
fails with a reason that holds no text, and the log has the exception's kind, never its
message. A batch's task gets there through `JobTask.crash_path`; an import, a training and a
release's build through the service that catches around their work. A batch whose transient
errors outlast its retries fails in `JobTask.on_failure`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import django.db
import kombu.exceptions
import redis.exceptions
from celery import shared_task
from celery.contrib.django.task import DjangoTask
from django.apps import apps
from django.conf import settings

if TYPE_CHECKING:
    from annotator.services.runs import NerPayload


@shared_task(name="annotator.tasks.import_run", acks_late=True)
def import_run(job_id: int) -> None:
    # Not retried: an import either commits whole or is marked failed with its reason. A copy
    # redelivered after its worker died takes the job over once the job's heartbeat is stale.
    from annotator.services.imports import import_job_run

    import_job_run(job_id=job_id)


@shared_task(name="annotator.tasks.jobs_reap")
def jobs_reap() -> dict[str, int]:
    """Fail the jobs whose worker stopped, and send the propagation passes nobody is sending;
    run by beat, and by each worker as it starts."""
    from annotator.services.jobs import jobs_reap as reap
    from annotator.services.propagation import propagation_sweep

    counts = reap()
    counts["propagation_passes"] = propagation_sweep()
    return counts


@shared_task(name="annotator.tasks.sessions_clear")
def sessions_clear() -> int:
    """Delete the expired sessions (Django's `clearsessions`), run by beat: a session row,
    readable by the web role, outlived its use by up to two weeks; and the undo steps as old
    as a session lives. The rows deleted."""
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    from annotator.services.undo import undo_expire

    deleted, _ = Session.objects.filter(expire_date__lt=timezone.now()).delete()
    return int(deleted) + undo_expire()


@shared_task(name="annotator.tasks.corpus_words_catch_up")
def corpus_words_catch_up() -> int:
    """Add to the vocabulary the words of the documents an import did not write (those from
    before it existed, or written by a script); run by beat. The documents done."""
    from annotator.services.corpus_words import corpus_words_catch_up as catch_up

    return catch_up()


@shared_task(name="annotator.tasks.pseudonyms_draw_ahead")
def pseudonyms_draw_ahead(document_id: int) -> int:
    """Draw ahead the pseudonyms of a document's proposals (someone opened it)."""
    from annotator.services.draw_ahead import document_draw_ahead

    return document_draw_ahead(document_id)


@shared_task(name="annotator.tasks.quality_warm", acks_late=True)
def quality_warm(project_id: int) -> bool:
    """Compute a project's quality numbers into the cache, so the page opens at once."""
    from annotator.services.quality import quality_warm as warm

    # Safe to run twice: the second finds the numbers cached for the same data.
    return warm(project_id)


@shared_task(name="annotator.tasks.review_scan", acks_late=True)
def review_scan(project_id: int) -> dict[str, int]:
    """Look over a project for conflicts and raise each in the lead's review queue."""
    from annotator.models import Project
    from annotator.services.review.scan import review_scan as scan

    # Safe to run twice: a conflict is raised once, by its fingerprint.
    project = Project.objects.filter(pk=project_id).first()
    return scan(project=project).raised if project is not None else {}


@shared_task(name="annotator.tasks.release_build", acks_late=True)
def release_build(release_id: int) -> str:
    """Render a release, check it for leaks and publish it (or refuse it); its status."""
    from annotator.errors import NotFoundError
    from annotator.services.releases.build import release_build as build

    # Safe to run twice: a finished release is left as it is, a running one to its worker.
    try:
        return str(build(release_id).status)
    except NotFoundError:
        return "gone"  # its project was deleted before a worker got to it


# --- Pre-annotation runs ----------------------------------------------------------------------


class GpuOutOfMemory(RuntimeError):
    """CUDA ran out of memory: another job may hold it for a while, so the batch waits."""


# Worth another try: the database or the broker away for a moment, a deadlock, a GPU whose
# memory another job held. Anything else is a bug, and trying it again changes nothing.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    django.db.OperationalError,
    django.db.InterfaceError,
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    GpuOutOfMemory,
)
RETRY_POLICY: dict[str, Any] = {
    "autoretry_for": TRANSIENT_ERRORS,
    "max_retries": settings.CLOAK_RUN_MAX_RETRIES,
    "retry_backoff": 2,
    "retry_backoff_max": 120,
    "retry_jitter": True,
}


@shared_task(name="annotator.tasks.propagate", acks_late=True, **RETRY_POLICY)
def propagate(project_id: int, retry: int = 0) -> None:
    """Propose the choices new to the correspondence table, pending in the project, wherever
    their surfaces occur: one pass for all of them."""
    from annotator.services.propagation import propagation_run

    # Safe to run twice: a pass claims the pending choices, and a second finds none (or the
    # proposals in place). A failed pass puts its choices back for the retry.
    propagation_run(project_id=project_id, retry=retry)


def _is_gpu_out_of_memory(error: BaseException) -> bool:
    # By name: torch is imported only where a model runs, never here.
    return type(error).__name__ == "OutOfMemoryError" and "CUDA" in str(error)


class JobTask(DjangoTask):  # type: ignore[misc]
    """The task of a job (a run's or a release's batch): the job's id is its last positional
    argument, or `batch_id`; `job_model` names the job's model."""

    job_model = ""

    def _job(self, job_id: int) -> tuple[Any, int]:
        return apps.get_model(self.job_model), job_id

    @contextmanager
    def crash_path(self, job_id: int, *, gpu: bool = False) -> Iterator[None]:
        """Let transient errors through, to be retried; fail the job on anything else (a bug,
        which trying again would not change), without its message. With `gpu`, CUDA out of
        memory is transient: another job may hold the GPU for a while."""
        from annotator.services.jobs import job_crashed

        try:
            yield
        except TRANSIENT_ERRORS:
            raise
        except Exception as error:
            if gpu and _is_gpu_out_of_memory(error):
                raise GpuOutOfMemory("CUDA out of memory") from None
            job_crashed(self._job(job_id), error)

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        # Only transient errors get here, once their retries are spent: bugs are caught in
        # the task (`crash_path`) and fail their job there.
        from annotator.services.jobs import job_gave_up

        job_id = kwargs.get("batch_id", args[-1] if args else None)
        if job_id is not None:
            job_gave_up(self._job(job_id), exc, retries=self.max_retries)


class RunBatchTask(JobTask):
    job_model = "annotator.RunBatch"


class ReleaseBatchTask(JobTask):
    job_model = "annotator.ReleaseBatch"


@shared_task(
    bind=True, base=RunBatchTask, name="annotator.tasks.preannotate_ner", acks_late=True,
    **RETRY_POLICY,
)  # fmt: skip
def preannotate_ner(self: RunBatchTask, batch_id: int) -> NerPayload | None:
    """Queue `ner` (GPU hosts): the batch's NER spans, offsets and labels only, for
    `preannotate_batch`; None when the batch is not this worker's to do."""
    from annotator.services.runs import run_batch_ner

    with self.crash_path(batch_id, gpu=True):
        return run_batch_ner(batch_id=batch_id, retried=self.request.retries > 0)
    return None


@shared_task(
    bind=True, base=RunBatchTask, name="annotator.tasks.preannotate_batch", acks_late=True,
    **RETRY_POLICY,
)  # fmt: skip
def preannotate_batch(
    self: RunBatchTask, ner: NerPayload | None, batch_id: int, with_ner: bool = False
) -> None:
    """Queue `default`: patterns and known entities over the batch, with the NER spans that
    `preannotate_ner` handed on (`with_ner`), written in one transaction."""
    if with_ner and ner is None:
        return  # the ner half found the batch done, or in another worker's hands
    from annotator.services.runs import run_batch_detect

    with self.crash_path(batch_id):
        run_batch_detect(batch_id=batch_id, ner=ner, retried=self.request.retries > 0)


# --- A release's names, on the `ner` queue ---------------------------------------------------


@shared_task(
    bind=True, base=ReleaseBatchTask, name="annotator.tasks.release_ner", acks_late=True,
    **RETRY_POLICY,
)  # fmt: skip
def release_ner(self: ReleaseBatchTask, batch_id: int) -> bool:
    """Queue `ner` (GPU hosts): the NER model over a release's batch, its hits stored (offsets
    and labels only); the last batch sends the release's build to the default queue."""
    from annotator.services.releases.ner import release_batch_ner

    with self.crash_path(batch_id, gpu=True):
        return release_batch_ner(batch_id=batch_id, retried=self.request.retries > 0)
    return False


# --- Learned models ---------------------------------------------------------------------------


@shared_task(name="annotator.tasks.learn", acks_late=True)
def learn(model_id: int) -> bool:
    """Train a queued version of a project's learned model (default queue, CPU)."""
    from annotator.services.learning import learned_model_run

    # Safe to run twice: a second run finds the model claimed or done and changes nothing.
    return learned_model_run(model_id)
