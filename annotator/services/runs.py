"""Pre-annotation runs: the recognizers over a project's documents, in batches, by workers.

`run_create` cuts the documents of a project (ids, in order, of one language or all) into
batches of settings.CLOAK_RUN_BATCH_SIZE ids (`RunBatch`) and sends them to the workers once
the run is committed. A batch whose language has an NER model goes to the `ner` queue first
(GPU hosts; `run_batch_ner` answers offsets, labels and scores, never text), then to the
default queue, where `run_batch_detect` adds the pattern recognizers, the project's known
entities and its newest ready learned model, and writes; a batch without a model goes to the
default queue only. A proposal that several recognizers made alike is written once and names
them all (`Span.sources`); the run counts what each source proposed (`source_counts`).

Writing a batch (`run_batch_write`) is one transaction: the machine proposals that no person
has touched are replaced, whatever run made them; every other span stays, and a new span that
overlaps one that stays is dropped. The batch is marked done in the same transaction, and the
run's counters move only when it was not done already, so a batch delivered twice, retried or
resumed ends as if it had run once. The run and its batches share the lifecycle of
annotator.services.jobs: claimed with one conditional update, finished or failed with another,
fenced by the `started_at` of the claim.

A batch belongs to its run while the run is active (queued or running). Once the run has
failed (reaped, or its batches could not be sent) the tasks of its batches still in the
broker do nothing: a batch is claimed only while its run is active (in the claim's own
update), the `ner` half spends no GPU time on a batch whose run has ended, and a write that
finds the run ended writes nothing and puts the batch back in the queue, where `run_resume`
finds it.
"""

from __future__ import annotations

import bisect
import itertools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any, TypedDict

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Max, Q, QuerySet
from django.utils import timezone

from annotator.audit import audit_record
from annotator.errors import DomainError
from annotator.models import (
    AuditAction,
    Document,
    DocumentStatus,
    JobStatus,
    LearnedModel,
    PreannotationRun,
    Project,
    RunBatch,
    Span,
    SpanStatus,
)
from annotator.permissions import acting_user
from annotator.selectors.jobs import cached_progress
from annotator.selectors.learning import learned_latest
from annotator.services.jobs import (
    Counts,
    JobKind,
    job_claim,
    job_claimer_gone,
    job_crashed,
    job_dispatch,
    job_fail,
    job_finish,
    job_kind_register,
    job_progress_set,
    task,
)
from annotator.services.learning import learned_recognizer
from annotator.services.proposals import Proposal, proposal_sources, propose
from annotator.services.table import known_surfaces
from pseudonymizer.detection import (
    Detection,
    Detector,
    LanguageRecognizer,
    NerSpecError,
    uses_ner,
)
from pseudonymizer.labels import map_to_schema
from pseudonymizer.learning import LearnedRecognizer, LearningError
from pseudonymizer.spans import Span as EngineSpan
from pseudonymizer.vocabulary import DECISIONS, DEFAULT_PROFILE, MACHINE_SOURCES, PROFILES, Source

logger = logging.getLogger(__name__)

ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
# A warning about a batch that failed: dropped when the run is resumed.
BATCH_RECOGNIZER = "batch"
# In a run's `models_used`, beside each language's NER model: "learned:<language>" → "v<version>".
LEARNED_PREFIX = "learned:"

# The spans a run may replace: machine proposals that no person has accepted, edited,
# rejected, flagged or added. Imported spans and propagated proposals (run null) stay.
_REPLACEABLE = Q(
    run__isnull=False,
    status=SpanStatus.PROPOSED,
    updated_by__isnull=True,
    decided_by__isnull=True,
    source__in=sorted(MACHINE_SOURCES),
    review_items__isnull=True,
)


class NerPayload(TypedDict):
    """What the `ner` queue hands the default queue: no text, only where and what."""

    claimed_at: str  # the batch's claim (its started_at), ISO 8601
    spans: dict[str, list[list[Any]]]  # document id → [[start, end, label, score], …]
    errors: dict[str, str]  # recognizer → why it could not run


Warning = dict[str, str]  # {"language", "recognizer", "reason"}


def learned_key(language: str) -> str:
    """The key of a run's `models_used` naming the learned model version of `language`."""
    return f"{LEARNED_PREFIX}{language}"


# --- Starting and resuming -------------------------------------------------------------------


def _detector(
    run: PreannotationRun,
    *,
    known: Iterable[tuple[str, str]] = (),
    use_ner: bool = True,
    learned: Iterable[LanguageRecognizer] = (),
) -> Detector:
    """The engine as a run sees it: the run's profile and the models it recorded."""
    return Detector(
        profile=run.profile,
        ner_models=run.models_used,
        use_ner=use_ner,
        known=known,
        device=settings.CLOAK_NER_DEVICE,
        batch_size=settings.CLOAK_NER_BATCH_SIZE,
        learned=learned,
    )


def _chunks(ids: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


@transaction.atomic
def run_create(
    *,
    project: Project,
    actor: Any,
    language: str | None = None,
    profile: str = DEFAULT_PROFILE,
    use_ner: bool = True,
    dispatch: bool = True,
) -> PreannotationRun:
    """Queue a run over the project's documents (of `language`, or all); 202-style: the
    workers start once this transaction commits. `dispatch=False` leaves the batches queued
    for the caller to run (`run_execute`)."""
    if profile not in PROFILES:
        raise DomainError(
            f"unknown detection profile {profile!r}; profiles are {', '.join(PROFILES)}"
        )
    if language and language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's ({', '.join(project.languages)})"
        )
    # One run at a time over the same documents: two would only overwrite each other's work.
    Project.objects.select_for_update().filter(pk=project.pk).first()
    active = PreannotationRun.objects.filter(project=project, status__in=ACTIVE)
    if language:
        active = active.filter(Q(language="") | Q(language=language))
    busy = active.order_by("created_at").first()
    if busy is not None:
        raise DomainError(
            f"run {busy.pk} is still {busy.status} over these documents: wait for it to end, "
            "or resume it if its worker stopped."
        )
    # Replicas are a second annotator's copies: a run never proposes into them.
    documents = Document.objects.for_project(project).originals()
    if language:
        documents = documents.filter(language=language)
    rows = list(documents.order_by("language", "id").values_list("language", "id"))
    if not rows:
        where = f" in {language}" if language else ""
        raise DomainError(f"the project has no documents{where} to pre-annotate.")

    by_language = {
        lang: [doc_id for _, doc_id in group]
        for lang, group in itertools.groupby(rows, key=lambda row: row[0])
    }
    detector = Detector(ner_models=settings.CLOAK_NER_MODELS)
    # Each language's model, and the models that read its stretches in another script (the
    # English model over the Latin names of an Arabic post).
    models_used = detector.ner_specs(by_language) if use_ner else dict.fromkeys(by_language, "")
    recognizers = ["regex", "known"] + (["ner"] if any(models_used.values()) else [])
    # The newest ready learned model of each language, by version (`learned:<language>`).
    learned = {lang: learned_latest(project, lang) for lang in by_language} if use_ner else {}
    for lang, model in learned.items():
        if model is not None:
            models_used[learned_key(lang)] = f"v{model.version}"
    if any(learned.values()):
        recognizers.append(Source.LEARNED.value)
    run = PreannotationRun.objects.create(
        project=project,
        language=language or "",
        profile=profile,
        recognizers=recognizers,
        models_used=models_used,
        documents_total=len(rows),
        created_by=acting_user(actor),
    )
    size = max(1, settings.CLOAK_RUN_BATCH_SIZE)
    numbers = itertools.count(1)
    batches = RunBatch.objects.bulk_create(
        RunBatch(run=run, number=next(numbers), language=lang, document_ids=chunk)
        for lang, ids in by_language.items()
        for chunk in _chunks(ids, size)
    )
    audit_record(
        action=AuditAction.PREANNOTATE,
        actor=actor,
        project=project,
        target=f"run:{run.pk}",
        detail={
            "language": language or "",
            "profile": profile,
            "documents": len(rows),
            "batches": len(batches),
            "models": models_used,
        },
    )
    if dispatch:
        job_dispatch(run, partial(_dispatch, run.pk, [(b.pk, b.language) for b in batches]))
    return run


@transaction.atomic
def run_resume(
    *, run: PreannotationRun, actor: Any = None, dispatch: bool = True
) -> PreannotationRun:
    """Send again every batch of the run that is not done (a worker died, a batch failed, the
    broker lost the messages). A batch still in the hands of a live worker is sent again
    too: whichever write comes second finds the batch done, or its claim taken, and changes
    nothing."""
    # The batches before the run, in the order a batch's write locks them: a write finishing
    # now waits for the resumption (or it for the write), and neither deadlocks.
    pending = RunBatch.objects.filter(run_id=run.pk).exclude(status=JobStatus.DONE)
    list(pending.select_for_update().order_by("pk").values_list("pk", flat=True))
    run = PreannotationRun.objects.select_for_update().get(pk=run.pk)
    if run.status == JobStatus.DONE:
        raise DomainError(
            f"run {run.pk} is done: there is nothing to resume. Start a new run to "
            "pre-annotate again."
        )
    batches = list(pending.order_by("number").values_list("pk", "language"))
    pending.update(status=JobStatus.QUEUED, error="", finished_at=None)
    warnings = [w for w in run.warnings if w.get("recognizer") != BATCH_RECOGNIZER]
    now = timezone.now()
    if not batches:
        # Every batch got written, but the run was taken for dead before the last one said so.
        PreannotationRun.objects.filter(pk=run.pk).update(
            status=JobStatus.DONE, error="", warnings=warnings, finished_at=now
        )
    else:
        status = JobStatus.RUNNING if run.status == JobStatus.RUNNING else JobStatus.QUEUED
        PreannotationRun.objects.filter(pk=run.pk).update(
            status=status, error="", warnings=warnings, finished_at=None
        )
        # A sign of life: the reaper takes a run whose work all waits in the queue for lost
        # once it has shown none for a while, and its start and batches are old.
        _heartbeat(run.pk)
    audit_record(
        action=AuditAction.PREANNOTATE,
        actor=actor,
        project=run.project,
        target=f"run:{run.pk}",
        detail={"resumed": True, "batches": len(batches)},
    )
    if dispatch and batches:
        job_dispatch(run, partial(_dispatch, run.pk, batches))
    run.refresh_from_db()
    return run


def _dispatch(run_id: int, batches: Sequence[tuple[int, str]]) -> None:
    """Send the batches: NER first where the language has a model, then the rest. A broker
    error goes up to `job_dispatch`, which fails the run (resumable)."""
    models_used = (
        PreannotationRun.objects.filter(pk=run_id).values_list("models_used", flat=True).first()
    )
    if models_used is None:
        return
    for batch_id, language in batches:
        if uses_ner(models_used, language):
            (
                task("preannotate_ner").s(batch_id)
                | task("preannotate_batch").s(batch_id, with_ner=True)
            ).apply_async()
        else:
            task("preannotate_batch").delay(None, batch_id)


# --- One batch -------------------------------------------------------------------------------


def _of_active_run() -> Q:
    # A subquery, not `run__status`: a join would make the claim's update select its batch
    # through a self-join, which a concurrent claim does not see change (job_claim).
    return Q(run_id__in=PreannotationRun.objects.filter(status__in=ACTIVE).values("pk"))


def run_batch_claim(*, batch_id: int, retried: bool = False) -> datetime | None:
    """Claim a queued batch (and start its run); its `started_at`, or None when another
    worker has it, it is done, or its run is no longer active (failed: its tasks still in
    the broker do nothing until it is resumed). A task retrying after a transient failure
    takes its own claim over (`retried`); a redelivered one re-claims only a batch gone
    stale."""
    stale_after = timedelta(0) if retried else timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if not job_claim(RunBatch, batch_id, stale_after=stale_after, where=_of_active_run()):
        return None
    RunBatch.objects.filter(pk=batch_id).update(attempts=F("attempts") + 1)
    row = RunBatch.objects.filter(pk=batch_id).values_list("run_id", "started_at").first()
    if row is None:
        return None
    run_id, started_at = row
    job_claim(PreannotationRun, run_id)  # the first batch to start starts the run
    return started_at


def _claimed_batch(batch_id: int, claimed_at: datetime) -> RunBatch | None:
    """The batch, while it is still this claim's and its run is active; else None (and a
    batch whose run ended goes back to the queue)."""
    batch = RunBatch.objects.select_related("run__project").filter(pk=batch_id).first()
    if batch is None or batch.status != JobStatus.RUNNING or batch.started_at != claimed_at:
        return None
    if batch.run.status not in ACTIVE:
        _batch_release(batch_id, claimed_at)
        return None
    return batch


def _batch_release(batch_id: int, claimed_at: datetime) -> None:
    """Put a claimed batch whose run has ended back in the queue, as the reaper does with
    the running batches of the run it fails: `run_resume` sends it again."""
    released = RunBatch.objects.filter(
        pk=batch_id, status=JobStatus.RUNNING, started_at=claimed_at
    ).update(status=JobStatus.QUEUED)
    if released:
        logger.info("batch %s: its run has ended; queued again for a resumption", batch_id)


def _texts(batch: RunBatch) -> tuple[list[int], list[str]]:
    rows = (
        Document.objects.filter(pk__in=batch.document_ids, project_id=batch.run.project_id)
        .order_by("pk")
        .values_list("pk", "text")
    )
    ids = [pk for pk, _ in rows]
    return ids, [text for _, text in rows]


def run_batch_ner(*, batch_id: int, retried: bool = False) -> NerPayload | None:
    """The `ner` queue's half: claim the batch and run its language's model; None when the
    batch is not this worker's to do. A model that cannot load is in `errors`, not raised."""
    claimed_at = run_batch_claim(batch_id=batch_id, retried=retried)
    if claimed_at is None:
        return None
    batch = _claimed_batch(batch_id, claimed_at)
    if batch is None:
        return None
    ids, texts = _texts(batch)
    try:
        detection = _detector(batch.run).ner(texts, batch.language)
    except NerSpecError as error:  # a model named wrongly in settings: say so, go on without
        detection = Detection(spans=[[] for _ in texts], errors={"ner": str(error)})
    # Handed on to the default queue: no process of this worker holds the batch any more.
    job_progress_set((RunBatch, batch_id), 0, held=False)
    return {
        "claimed_at": claimed_at.isoformat(),
        "spans": {
            str(doc_id): [[s.start, s.end, s.label, s.score] for s in spans]
            for doc_id, spans in zip(ids, detection.spans, strict=True)
        },
        "errors": dict(detection.errors),
    }


def _ner_spans(payload: NerPayload, ids: Sequence[int]) -> list[list[EngineSpan]]:
    return [
        [
            EngineSpan(int(start), int(end), str(label), score, source=Source.NER.value)
            for start, end, label, score in payload["spans"].get(str(doc_id), [])
        ]
        for doc_id in ids
    ]


def run_batch_detect(
    *, batch_id: int, ner: NerPayload | None = None, retried: bool = False
) -> bool:
    """The default queue's half: patterns and known entities (with the NER spans of `ner`,
    when the batch went through the `ner` queue first), written with `run_batch_write`.
    Without `ner` the batch is claimed here. False when there was nothing to do."""
    if ner is None:
        claimed_at = run_batch_claim(batch_id=batch_id, retried=retried)
        if claimed_at is None:
            return False
    else:
        claimed_at = datetime.fromisoformat(ner["claimed_at"])
    batch = _claimed_batch(batch_id, claimed_at)
    if batch is None:
        return False
    if ner is not None:
        job_progress_set((RunBatch, batch_id), 0)  # this worker holds it now
    run = batch.run
    ids, texts = _texts(batch)
    ner_spans = _ner_spans(ner, ids) if ner is not None else None
    if ner_spans is None and uses_ner(run.models_used, batch.language):
        # A model-backed batch reaches this queue only through `ner`: never run it here.
        raise RuntimeError(f"batch {batch_id} needs its NER spans from the ner queue")
    # The learned model is a recognizer of its own (source `learned`), merged with the
    # others by the engine: a span it found as another recognizer did names both.
    learned, learned_errors = _learned_model(run, batch.language)
    detector = _detector(
        run,
        known=known_surfaces(run.project),
        learned=[_LearnedFor(learned, batch.language)] if learned else [],
    )
    detection = detector.detect(texts, batch.language, ner_spans=ner_spans)
    errors = {**(ner["errors"] if ner else {}), **learned_errors, **detection.errors}
    warnings = [
        {"language": batch.language, "recognizer": name, "reason": reason}
        for name, reason in sorted(errors.items())
    ]
    return run_batch_write(
        batch_id=batch_id,
        claimed_at=claimed_at,
        spans_by_document=dict(zip(ids, detection.spans, strict=True)),
        warnings=warnings,
    )


def _learned_model(
    run: PreannotationRun, language: str
) -> tuple[LearnedRecognizer | None, dict[str, str]]:
    """The learned model version the run recorded for `language`, loaded (None when it
    recorded none or it cannot load), and why it cannot (no text in the reason)."""
    version = run.models_used.get(learned_key(language), "")
    if not version:
        return None, {}
    name = Source.LEARNED.value
    model = LearnedModel.objects.filter(
        project_id=run.project_id,
        language=language,
        version=int(version.lstrip("v") or 0),
        status=JobStatus.DONE,
    ).first()
    if model is None:
        return None, {name: f"learned model {version} is gone"}
    try:
        return learned_recognizer(model), {}
    except LearningError as error:
        return None, {name: f"learned model {version} cannot be loaded: {error}"}


class _LearnedFor:
    """The run's learned model, serving the batch's language under the project's code for it
    (spaCy may name the language otherwise: "iw" is its "he")."""

    name = Source.LEARNED.value

    def __init__(self, model: LearnedRecognizer, language: str) -> None:
        self.model = model
        self.language = language

    def recognize(self, texts: Sequence[str], language: str) -> list[list[EngineSpan]]:
        return self.model.recognize(texts, language)


class _Taken:
    """The stretches of one document that spans which stay already cover."""

    def __init__(self, intervals: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(intervals)
        self.starts = [start for start, _ in ordered]
        self.max_end = list(itertools.accumulate((end for _, end in ordered), max))

    def holds(self, start: int, end: int) -> bool:
        """Whether one span that stays covers all of [start, end)."""
        before = bisect.bisect_right(self.starts, start)  # those that start at or before it
        return before > 0 and self.max_end[before - 1] >= end


def _merge_warnings(current: list[Warning], new: Iterable[Warning]) -> list[Warning]:
    merged = list(current)
    for warning in new:
        if warning not in merged:
            merged.append(dict(warning))
    return merged


class _RunEnded(Exception):
    """The batch's run failed (or ended) while the batch was being written: roll back."""


def run_batch_write(
    *,
    batch_id: int,
    claimed_at: datetime,
    spans_by_document: Mapping[int, Sequence[EngineSpan]],
    warnings: Iterable[Warning] = (),
) -> bool:
    """Replace the untouched machine proposals of the batch's documents with `spans_by_document`
    (engine labels, mapped here onto the project's schema), mark the batch done and move the
    run's counters; the last batch finishes the run. False, and nothing written, when the
    batch is done already, another claim holds it, or its run is no longer active (the batch
    then goes back to the queue, for `run_resume`)."""
    try:
        return _batch_write(
            batch_id=batch_id,
            claimed_at=claimed_at,
            spans_by_document=spans_by_document,
            warnings=warnings,
        )
    except _RunEnded:
        _batch_release(batch_id, claimed_at)
        return False


@transaction.atomic
def _batch_write(
    *,
    batch_id: int,
    claimed_at: datetime,
    spans_by_document: Mapping[int, Sequence[EngineSpan]],
    warnings: Iterable[Warning],
) -> bool:
    batch = RunBatch.objects.select_for_update().filter(pk=batch_id).first()
    if batch is None or batch.status != JobStatus.RUNNING or batch.started_at != claimed_at:
        return False
    run = PreannotationRun.objects.select_related("project").get(pk=batch.run_id)
    if run.status not in ACTIVE:  # failed since the claim: its batches wait for a resumption
        raise _RunEnded
    labels = run.project.labels
    # The documents stay locked until the commit, so a person's write to one of them waits
    # for this one (or this one for it) instead of being lost between the delete and insert.
    ids = list(
        Document.objects.select_for_update()
        .filter(pk__in=batch.document_ids, project_id=run.project_id)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    spans = Span.objects.filter(document_id__in=ids)
    _delete(spans.filter(_REPLACEABLE))
    staying: dict[int, list[tuple[int, int]]] = {}
    for doc_id, start, end in spans.values_list("document_id", "start", "end"):
        staying.setdefault(doc_id, []).append((start, end))
    created: list[Proposal] = []
    for doc_id in ids:
        taken = _Taken(staying.get(doc_id, ()))
        for found in spans_by_document.get(doc_id, ()):
            label = map_to_schema(found.label, labels)
            # Only what a span that stays already holds whole is left out (a person's
            # decision there, a rejection, a propagated or imported proposal): a proposal
            # that reaches beyond it ("Ottoline Postlethwaite" over a decided "Ottoline") is
            # written beside it, or the rest of it would never be seen by anyone.
            if label is None or taken.holds(found.start, found.end):
                continue
            source = _machine_source(found.source)
            created.append(
                Proposal(
                    document_id=doc_id,
                    start=found.start,
                    end=found.end,
                    label=label,
                    source=source,
                    score=None if found.score is None else min(1.0, max(0.0, found.score)),
                    decision=found.decision if found.decision in DECISIONS else "pseudonymize",
                    run_id=run.pk,
                    sources=proposal_sources(source, [_machine_source(s) for s in found.also]),
                )
            )
    propose(created)
    now = timezone.now()
    Document.objects.filter(pk__in=ids, status=DocumentStatus.NEW).update(
        status=DocumentStatus.PREANNOTATED, version=F("version") + 1, updated_at=now
    )
    job_finish(RunBatch, batch_id, claimed_at=claimed_at, spans_created=len(created))
    # The run's row last (batch → documents → run, always in this order): batches of one run
    # finish one after the other from here, so exactly one of them sees that none is left.
    locked = PreannotationRun.objects.select_for_update().get(pk=run.pk)
    if locked.status not in ACTIVE:
        # Under the run's own lock the run's word is final: a run failed since the check
        # above (by the reaper, or a send that failed) gets nothing of this batch.
        raise _RunEnded
    PreannotationRun.objects.filter(pk=run.pk).update(
        documents_done=F("documents_done") + len(batch.document_ids),
        spans_created=F("spans_created") + len(created),
        source_counts=_add_source_counts(locked.source_counts, created),
        warnings=_merge_warnings(locked.warnings, warnings),
    )
    if not _run_end_if_done(run.pk):
        _heartbeat(run.pk)
    return True


def _machine_source(source: str) -> str:
    """A recognizer's source as a stored proposal's: a machine source of the vocabulary."""
    return source if source in MACHINE_SOURCES else Source.REGEX.value


def _add_source_counts(
    counts: Mapping[str, Mapping[str, int]], created: Iterable[Proposal]
) -> dict[str, dict[str, int]]:
    """The run's `source_counts` with the batch's proposals added: each counts for every
    source that proposed it, and as `alone` for a source no other joined."""
    result = {source: dict(row) for source, row in (counts or {}).items()}
    for proposal in created:
        sources = proposal.sources or (proposal.source,)
        for source in sources:
            row = result.setdefault(source, {"proposed": 0, "alone": 0})
            row["proposed"] = row.get("proposed", 0) + 1
            if len(sources) == 1:
                row["alone"] = row.get("alone", 0) + 1
    return result


def _delete(spans: QuerySet[Span]) -> None:
    """One DELETE. QuerySet.delete() would first fetch every span to clear the review items
    that point at it, and `_REPLACEABLE` leaves out every span that a review item names."""
    subquery, params = spans.order_by().values("pk").query.sql_with_params()
    table = connection.ops.quote_name(Span._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE id IN ({subquery})", params)


def _heartbeat(run_id: int) -> None:
    done, total, spans = PreannotationRun.objects.values_list(
        "documents_done", "documents_total", "spans_created"
    ).get(pk=run_id)
    transaction.on_commit(
        lambda: job_progress_set(
            (PreannotationRun, run_id), done, total, unit="documents", detail={"spans": spans}
        )
    )


def _run_end_if_done(run_id: int) -> bool:
    """Finish the run when no batch is left to do (the caller holds the run's row lock);
    True when this call ended it."""
    batches = RunBatch.objects.filter(run_id=run_id)
    if batches.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).exists():
        return False
    failed = batches.filter(status=JobStatus.FAILED).count()
    if not failed:
        return job_finish(PreannotationRun, run_id)
    total = batches.count()
    return job_fail(
        PreannotationRun,
        run_id,
        f"{failed} of {total} batch{'es' if total != 1 else ''} failed (see the warnings); "
        "the others are written. Resume the run to try the failed ones again.",
    )


def run_batch_fail(*, batch_id: int, reason: str, claimed_at: datetime | None = None) -> bool:
    """Mark a batch failed with `reason` (shown to admins: never an original), note it on the
    run, and end the run if it was the last batch. False when the batch was not failable."""
    with transaction.atomic():
        batch = RunBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or not job_fail(RunBatch, batch_id, reason, claimed_at=claimed_at):
            return False
        run = PreannotationRun.objects.select_for_update().get(pk=batch.run_id)
        warning = {
            "language": batch.language,
            "recognizer": BATCH_RECOGNIZER,
            "reason": f"batch {batch.number}: {reason}",
        }
        PreannotationRun.objects.filter(pk=run.pk).update(
            warnings=_merge_warnings(run.warnings, [warning])
        )
        _run_end_if_done(run.pk)
    return True


# --- Running here, without workers ------------------------------------------------------------


def run_execute(
    *, run: PreannotationRun, progress: Callable[[PreannotationRun], None] | None = None
) -> PreannotationRun:
    """Run the queued batches of `run` in this process, one after the other (the command's
    `--here`: no broker, no worker). A bug fails its batch, as in a worker."""
    pending = RunBatch.objects.filter(run=run, status=JobStatus.QUEUED).order_by("number")
    for batch_id, language in list(pending.values_list("pk", "language")):
        try:
            with_ner = uses_ner(run.models_used, language)
            ner = run_batch_ner(batch_id=batch_id) if with_ner else None
            if ner is not None or not with_ner:
                run_batch_detect(batch_id=batch_id, ner=ner)
        except Exception as error:
            job_crashed((RunBatch, batch_id), error)
        run.refresh_from_db()
        if progress is not None:
            progress(run)
    return run


# --- Its kinds of job ---------------------------------------------------------------------------


def run_reaped_reason(run_id: int) -> str:
    return (
        "The worker stopped during this run; the batches it had not finished are queued "
        f"again. `python manage.py preannotate --resume {run_id}` resumes it."
    )


def _run_reap(run: PreannotationRun) -> Counts:
    """Fail a dead run, resumable, its running batches queued again ({} if it moved)."""
    with transaction.atomic():
        # Its running batches first, then the run: the order in which a batch's write locks
        # them, so that a write finishing now and this reaper wait for each other, never
        # deadlock.
        running = RunBatch.objects.filter(run=run, status=JobStatus.RUNNING)
        list(running.select_for_update().order_by("pk").values_list("pk", flat=True))
        if not job_fail(
            PreannotationRun, run.pk, run_reaped_reason(run.pk), claimed_at=run.started_at
        ):
            return {}
        requeued = running.update(status=JobStatus.QUEUED)
    logger.warning("run %s reaped: its worker stopped; %s batches queued again", run.pk, requeued)
    return {"runs_failed": 1, "batches_requeued": requeued}


def _run_waiting(run: PreannotationRun) -> bool:
    """A run whose work is all in the queue: queued, or running with batches queued or
    handed on and none in a worker's hands (between two batches, or behind other work)."""
    if run.status == JobStatus.QUEUED:
        return True
    batches = RunBatch.objects.filter(run=run)
    running = list(batches.filter(status=JobStatus.RUNNING).values_list("pk", flat=True))
    if not all(map(_handed_on, running)):
        return False
    return bool(running) or batches.filter(status=JobStatus.QUEUED).exists()


def _handed_on(batch_id: int) -> bool:
    """Whether a running batch is in no process's hands: the `ner` queue handed it on and no
    worker has received its second half, or its heartbeat is gone (the cache restarted
    empty with the broker, taking the message with it). Not one whose claimer died before
    its first heartbeat: that one is a dead process's (`job_claimer_gone`)."""
    progress = cached_progress(RunBatch, batch_id)
    if progress is None:
        return not job_claimer_gone((RunBatch, batch_id))
    return not progress.pid


def _run_held_by(run: PreannotationRun) -> list[tuple[type[RunBatch], int]]:
    """The batches in workers' hands: their heartbeats name the processes that hold them."""
    running = RunBatch.objects.filter(run=run, status=JobStatus.RUNNING)
    return [(RunBatch, pk) for pk in running.values_list("pk", flat=True)]


def _run_resend(run: PreannotationRun) -> Callable[[], None]:
    """What sends a run's queued batches again, their messages lost from the broker; the
    batches handed on whose second half was lost go back to the queue first (fenced by their
    claim: a worker that writes one after all finds its claim gone and writes nothing)."""
    running = RunBatch.objects.filter(run=run, status=JobStatus.RUNNING)
    for batch_id, claimed_at in running.values_list("pk", "started_at"):
        if _handed_on(batch_id):
            running.filter(pk=batch_id, started_at=claimed_at).update(status=JobStatus.QUEUED)
    queued = RunBatch.objects.filter(run=run, status=JobStatus.QUEUED).order_by("number")
    return partial(_dispatch, run.pk, list(queued.values_list("pk", "language")))


def _run_batches_seen(run: PreannotationRun) -> Iterable[datetime | None]:
    batches = RunBatch.objects.filter(run=run)
    return batches.aggregate(started=Max("started_at"), finished=Max("finished_at")).values()


RUNS = job_kind_register(
    JobKind(
        # Its work is sent as its batches (`_dispatch`), and shown by them.
        model=PreannotationRun,
        counters=("runs_failed", "batches_requeued"),
        unit="documents",
        start_again="Resume the run to start it again.",
        reap=_run_reap,
        waiting=_run_waiting,
        signs_of_life=_run_batches_seen,
        shows_work=False,
        held_by=_run_held_by,
        resend=_run_resend,
    )
)
RUN_BATCHES = job_kind_register(
    JobKind(
        # Reaped with its run, which queues it again; a bug fails its run too.
        model=RunBatch,
        waiting=None,
        fail=lambda batch_id, reason, claimed_at: run_batch_fail(
            batch_id=batch_id, reason=reason, claimed_at=claimed_at
        ),
    )
)
