"""Each project's learned models: one per language, trained on its own decisions, versioned.

`learned_model_train` queues the language's next version (an admin's "Train now", or the
spans service's after-decision hook once CLOAK_LEARN_EVERY new decisions have been made in the
language: `learning_note_decision`, a counter in the cache). The `learn` task then trains it
(`learned_model_run`): the finished originals of the language (`learning_examples`), a fifth
of them held out to measure it, their ids kept with the model (`held_out_documents`) so that
its scores can be checked; and, as partial examples never held out, the table's occurrences
and the accepted spans in the originals nobody finished yet (`learning_partial_examples`):
a name decided once is learned in every context the table proposes it in. The next
pre-annotation run of the language uses the newest ready version (annotator.services.runs,
`learned_recognizer`), its spans with source `learned`.

A model's vocabulary and string store hold the words it learned from, originals among them.
It is never written in clear: trained in memory, it is sealed with the keys' secret
(`annotator.services.table.write_sealed`, bound to the model's id) into one file,
MEDIA_ROOT/learned/<project>/<language>/<version>.sealed, readable by its owner only; the
worker that uses it opens it in memory (spaCy loads from bytes), so no folder of it exists
anywhere, even for a moment. Models written in clear by an older Cloak were sealed by the
migration `annotator.0012_seal_learned_models`.

One model trains per project and language at a time: asking again while one is queued or
training answers that one. A language whose finished documents hold fewer than
CLOAK_LEARN_MIN_SPANS accepted spans is refused up front (DomainError: nothing is queued),
and a model whose examples shrank below that before it trained fails with that reason.

A model's row, its audit events and its error hold counts, labels and scores: never a text.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections import OrderedDict
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotator.audit import audit_record
from annotator.errors import DomainError, NotFoundError
from annotator.models import AuditAction, JobStatus, LearnedModel, Project
from annotator.permissions import acting_user
from annotator.selectors.learning import (
    learned_active,
    learning_decided_count,
    learning_examples,
    learning_partial_examples,
)
from annotator.services.jobs import (
    Counts,
    JobKind,
    job_claim,
    job_crashed,
    job_dispatch,
    job_fail,
    job_finish,
    job_kind_register,
    job_last_seen,
    job_progress_set,
)
from annotator.services.span_events import Decided
from annotator.services.table import SealError, read_sealed, write_sealed
from pseudonymizer.learning import Example, LearnedRecognizer, LearningError, loads, train_bytes

logger = logging.getLogger(__name__)

TRIGGERS = ("decisions", "admin")
# The share of the finished documents held out to measure a model, and the seed choosing them.
HELD_OUT_SHARE = 0.2
SEED = 0
MODELS_DIR = "learned"
# What a model's file is sealed for (annotator.services.table.write_sealed).
SEALED_PURPOSE = "learned-model"
SEALED_SUFFIX = ".sealed"


def model_file(project: Project, language: str, version: int) -> str:
    """Where a version's sealed file lives, relative to MEDIA_ROOT."""
    return f"{MODELS_DIR}/{project.slug}/{language}/{version}{SEALED_SUFFIX}"


def sealed_context(model_id: int) -> str:
    """What a model's file is bound to: a file copied over another model's does not open."""
    return f"learned:{model_id}"


def _stale(model: LearnedModel) -> bool:
    """A running model whose worker stopped reporting: it will never finish."""
    if model.status != JobStatus.RUNNING:
        return False
    cutoff = timezone.now() - timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    return job_last_seen(model) < cutoff


@transaction.atomic
def learned_model_train(
    project: Project, language: str, *, trigger: str, actor: Any = None
) -> LearnedModel:
    """Queue the next version of the language's model (the task starts once this commits),
    or answer the one already queued or training. DomainError for a language the project
    does not have, or one with too few decisions to learn from."""
    if trigger not in TRIGGERS:
        raise DomainError(f"unknown trigger {trigger!r}; triggers are {', '.join(TRIGGERS)}")
    if language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's ({', '.join(project.languages)})"
        )
    # One version at a time per project: the row lock orders two requests.
    Project.objects.select_for_update().filter(pk=project.pk).first()
    active = learned_active(project, language)
    if active is not None:
        if not _stale(active):
            return active
        job_fail(
            LearnedModel,
            active.pk,
            "its worker stopped reporting; a newer version was asked for",
            claimed_at=active.started_at,
        )
    decided = learning_decided_count(project, language)
    minimum = settings.CLOAK_LEARN_MIN_SPANS
    if decided < minimum:
        raise DomainError(
            f"the finished {language} documents hold {decided} accepted span"
            f"{'s' if decided != 1 else ''}; a model needs at least {minimum} to learn from. "
            "Finish more documents first."
        )
    last = LearnedModel.objects.filter(project=project, language=language).aggregate(
        last=Max("version")
    )["last"]
    user = acting_user(actor)
    model = LearnedModel.objects.create(
        project=project,
        language=language,
        version=(last or 0) + 1,
        trigger=trigger,
        created_by=user,
    )
    audit_record(
        action=AuditAction.LEARN,
        actor=user,
        project=project,
        target=f"learned:{model.pk}",
        detail={"language": language, "version": model.version, "trigger": trigger},
    )
    job_dispatch(model)
    return model


def learned_model_run(model_id: int) -> bool:
    """The `learn` task: claim the queued model, train it and record what it measured; False
    when there was nothing to do (another worker has it, it is done, it is gone). Safe to run
    twice: the second run finds it claimed or done and changes nothing."""
    if not job_claim(LearnedModel, model_id):
        return False
    model = LearnedModel.objects.select_related("project").filter(pk=model_id).first()
    if model is None or model.started_at is None:
        return False
    claimed_at = model.started_at
    project, language = model.project, model.language
    try:
        ids, examples = _unzipped(learning_examples(project, language))
        decided = sum(len(example.spans) for example in examples)
        minimum = settings.CLOAK_LEARN_MIN_SPANS
        if decided < minimum:
            job_fail(
                LearnedModel,
                model_id,
                f"the finished {language} documents hold {decided} accepted spans; a model "
                f"needs at least {minimum} to learn from",
                claimed_at=claimed_at,
            )
            return True
        # Then every occurrence the table proposed in documents nobody finished: partial
        # examples, trained on and never held out (the held-out ids index the finished ones).
        partial_ids, partial = _unzipped(learning_partial_examples(project, language))
        ids += partial_ids
        examples += partial
        relative = model_file(project, language, model.version)
        data, report = train_bytes(
            examples,
            language,
            iterations=settings.CLOAK_LEARN_ITERATIONS,
            seed=SEED,
            held_out_share=HELD_OUT_SHARE,
            # Each pass is a heartbeat: the reaper fails a training whose worker died.
            progress=lambda done, total: job_progress_set(model, done, total, unit="passes"),
        )
        del examples
        write_sealed(
            Path(settings.MEDIA_ROOT) / relative,
            data,
            purpose=SEALED_PURPOSE,
            context=sealed_context(model_id),
        )
        del data
    except LearningError as error:
        # The engine's reasons name paths, labels and counts, never a text.
        job_fail(LearnedModel, model_id, f"training failed: {error}", claimed_at=claimed_at)
        return True
    except Exception as error:
        job_crashed(model, error, claimed_at=claimed_at)
        return True
    finished = job_finish(
        LearnedModel,
        model_id,
        claimed_at=claimed_at,
        path=relative,
        decisions_used=report.examples - report.held_out,
        decisions_held_out=report.held_out,
        held_out_documents=[ids[index] for index in report.held_out_indexes],
        labels=list(report.labels),
        scores=report.scores,
        seconds=report.seconds,
    )
    if not finished:  # taken over by another worker meanwhile: its files are not this one's
        logger.warning("learned model %s: finished by another worker", model_id)
    return True


def _unzipped(pairs: Iterable[tuple[int, Example]]) -> tuple[list[int], list[Example]]:
    ids: list[int] = []
    examples: list[Example] = []
    for pk, example in pairs:
        ids.append(pk)
        examples.append(example)
    return ids, examples


def learned_model_delete_files(model: LearnedModel) -> None:
    """Remove a version's file (its row stays, for the record)."""
    if not model.path:
        return
    path = Path(settings.MEDIA_ROOT) / model.path
    if path.is_dir():  # written in clear by an older Cloak
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


# --- Retraining after every N decisions ------------------------------------------------------


def _counter_key(project_id: int, language: str) -> str:
    return f"cloak:learn:decisions:{project_id}:{language}"


def decisions_count(event: Decided) -> None:
    """A person's decision on an original counts, once it commits, towards retraining the
    language's learned model; a replica's is no decision of the project
    (`annotator.services.after_decision`)."""
    if event.replica:
        return
    project, language = event.project, event.language
    for _ in event.span_ids:
        transaction.on_commit(lambda: learning_note_decision(project, language))


def learning_note_decision(project: Project, language: str) -> LearnedModel | None:
    """Count one decision a person made in `language` (once it committed: `decisions_count`); every
    CLOAK_LEARN_EVERY-th one queues a new version of the model.
    Cheap (one counter in the cache), and never fails the caller: the decision is made."""
    every = settings.CLOAK_LEARN_EVERY
    if every <= 0 or language not in project.languages:
        return None
    key = _counter_key(project.pk, language)
    try:
        cache.add(key, 0, timeout=None)
        count = cache.incr(key)
    except Exception:  # the cache away: a retraining is missed, never a decision
        logger.warning("learning: decision counter unavailable for project %s", project.pk)
        return None
    if count % every:
        return None
    try:
        return learned_model_train(project, language, trigger="decisions")
    except DomainError as refused:
        logger.info("project %s %s: no retraining yet (%s)", project.pk, language, refused)
    except Exception:
        logger.exception("project %s %s: retraining could not be queued", project.pk, language)
    return None


# --- Using a model ----------------------------------------------------------------------------

_LOADED: OrderedDict[tuple[str, int], LearnedRecognizer] = OrderedDict()
_LOADED_LOCK = threading.Lock()
LOADED_MAX = 8


def learned_recognizer(model: LearnedModel) -> LearnedRecognizer:
    """The ready model, opened and loaded in memory once per process (by path and version).
    Raises NotFoundError when it is not ready, LearningError when its file cannot be opened
    or loaded."""
    if model.status != JobStatus.DONE or not model.path:
        raise NotFoundError(f"model v{model.version} of {model.language} is not ready")
    path = Path(settings.MEDIA_ROOT) / model.path
    key = (str(path), model.version)
    with _LOADED_LOCK:
        found = _LOADED.get(key)
        if found is not None:
            _LOADED.move_to_end(key)
            return found
    if path.is_dir():
        raise LearningError(
            f"model v{model.version} is a folder in clear: run `manage.py migrate`, which seals it"
        )
    try:
        data = read_sealed(path, purpose=SEALED_PURPOSE, context=sealed_context(model.pk))
    except FileNotFoundError:
        raise LearningError(f"model v{model.version}: its file is gone") from None
    except (OSError, SealError) as error:
        raise LearningError(f"model v{model.version}: {error}") from None
    loaded = loads(data)
    del data
    with _LOADED_LOCK:
        _LOADED[key] = loaded
        while len(_LOADED) > LOADED_MAX:
            _LOADED.popitem(last=False)
    return loaded


# --- Its kind of job ----------------------------------------------------------------------------

LEARN_REAPED = "The worker stopped while training this model; ask for a new version."


def _learned_model_reap(model: LearnedModel) -> Counts:
    return {"models_failed": 1} if job_fail(LearnedModel, model.pk, LEARN_REAPED) else {}


LEARNED_MODELS = job_kind_register(
    JobKind(
        model=LearnedModel,
        task="learn",
        counters=("models_failed",),
        unit="passes",
        start_again="Nothing was trained: ask for a new version.",
        reap=_learned_model_reap,
    )
)
