"""Releases: an immutable, numbered rendering of a project's finished documents in which no
identifier leaves unless a person decided on it.

`release_create` validates, numbers and queues a release; its documents' names are then found
on the `ner` queue, and `release_build` (the `release_build` task, or `manage.py release` in
process) renders and checks it. The work is the engine's release pipeline
(`pseudonymizer.release`); this module streams documents into it from the database and writes
the files, the manifest and the report.

- Documents: the project's original documents (never a replica) of the release's language
  (or all), in id order, streamed a chunk at a time, so memory stays flat whatever the corpus
  size. Released: documents marked done or reviewed (`RELEASED_STATUSES`). Left out, each with
  its reason in the manifest: any other status, a document with proposals no one decided, one
  that cannot be rendered, and one whose names the `ner` queue did not look for (finished after
  the release was cut, or its text changed since).
- NER: the model of each language (`Release.ner_models`, recorded when the release is cut)
  never runs in the default queue's process. `release_create` cuts the finished documents of
  the languages that have one into batches (`ReleaseBatch`, CLOAK_RUN_BATCH_SIZE documents),
  which the `ner` queue's workers claim and run (`release_batch_ner`), storing offsets and
  labels (`ReleaseNerHits`); the last batch to finish sends the build to the default queue.
  A release waits for them queued; a batch whose worker died fails the release (the reaper).
  `manage.py release` runs the model in its own process instead (`ner_here`).
- The check, before anything is published: the rendered text holds no original of an entity
  that is not kept (`release_aliases`) and no pattern hit outside the rendered spans; and every
  detector of the project (the `recall` profile's patterns and lexicons, the known entities of
  the table, the newest ready learned model, NER), run over each document as stored, finds
  nothing that a person did not decide on (a span accepted or rejected there). A hit a lead or
  admin judged harmless is dismissed (`release_hit_dismiss`, audited) and listed in the next
  manifest. Anything else refuses the release: the data file is deleted, and every leaking
  document gets a row (`ReleaseLeak`: counts and its first findings, by offset, never text).
- Files: `MEDIA_ROOT/releases/<slug>/<version>/`, the data written to a temporary file then
  renamed (a failed or refused release leaves no file), `manifest.json` beside it. A finished
  release is never rewritten; building it again does nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from functools import cache, partial
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Max, Q
from django.utils import timezone

from annotator import tasks
from annotator.models import (
    AuditAction,
    BatchStatus,
    Document,
    HitDismissal,
    JobStatus,
    Project,
    Release,
    ReleaseBatch,
    ReleaseFormat,
    ReleaseLeak,
    ReleaseNerHits,
    ReleaseStatus,
    SpanStatus,
)
from annotator.permissions import acting_user
from annotator.selectors.learning import learned_latest
from annotator.selectors.releases import (
    RELEASED_STATUSES,
    ChunkDocument,
    documents_finished_count,
    documents_not_finished,
    finished_document_chunks,
    ner_documents,
)
from annotator.services.audit import audit_record
from annotator.services.errors import ConflictError, DomainError, NotFoundError
from annotator.services.jobs import (
    Counts,
    JobKind,
    job_claim,
    job_crashed,
    job_dispatch,
    job_fail,
    job_finish,
    job_kind_register,
    job_progress,
    job_progress_set,
)
from annotator.services.learning import learned_recognizer
from annotator.services.table import release_aliases, surface_choices
from pseudonymizer.detection import Detector, NerSpecError
from pseudonymizer.formats.writers import OutputDocument, write_conll, write_csv, write_jsonl
from pseudonymizer.labels import map_to_schema
from pseudonymizer.learning import LearningError
from pseudonymizer.release import (
    LEAK,
    LEAK_PATTERN_LABELS,
    DecidedSpan,
    DetectionUnavailable,
    DocumentResult,
    Finding,
    ReleaseDetection,
    ReleaseDocument,
    ReleasePipeline,
    document_fingerprint,
)
from pseudonymizer.spans import Span as EngineSpan
from pseudonymizer.strategies import Strategy
from pseudonymizer.vocabulary import DEFAULT_PROFILE, Source

logger = logging.getLogger(__name__)

RELEASES_DIR = "releases"  # under settings.MEDIA_ROOT; one folder per release: <slug>/<version>/
MANIFEST_NAME = "manifest.json"
# The detection a release runs over the stored documents: the widest profile, whatever the
# runs used, so that what a narrower run never proposed is found before it leaves.
RELEASE_PROFILE = DEFAULT_PROFILE
# A leaking document's row lists this many findings at most (and counts them all): the report
# names every leaking document, and stays bounded per document.
FINDINGS_PER_DOCUMENT = 50
# Progress goes to the cache at most this often.
REPORT_EVERY_S = 0.5

FINISHED = (ReleaseStatus.DONE, ReleaseStatus.REFUSED, ReleaseStatus.FAILED)
ACTIVE = (ReleaseStatus.QUEUED, ReleaseStatus.RUNNING)

LEFT_OUT_NOT_FINISHED = "not finished: the document is {status}, neither done nor reviewed"
LEFT_OUT_NO_NER = (
    "its names were not looked for: it was finished after this release was cut, or its text "
    "changed since; cut a new release to include it"
)

_WRITERS: dict[str, Callable[[Iterator[OutputDocument], TextIO], int]] = {
    ReleaseFormat.JSONL: write_jsonl,
    ReleaseFormat.CSV: write_csv,
    ReleaseFormat.CONLL: write_conll,
}
_EXTENSIONS: dict[str, str] = {
    ReleaseFormat.JSONL: "jsonl",
    ReleaseFormat.CSV: "csv",
    ReleaseFormat.CONLL: "conll",
}


# --- Creating ---------------------------------------------------------------------------------


def _check(project: Project, strategy: str, format: str, language: str) -> None:
    if strategy not in Strategy.__members__.values():
        raise DomainError(
            f"unknown strategy {strategy!r}; strategies are {', '.join(s.value for s in Strategy)}"
        )
    if format not in ReleaseFormat.values:
        raise DomainError(f"unknown format {format!r}; formats are {', '.join(ReleaseFormat)}")
    if language and language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's "
            f"({', '.join(project.languages)}); leave it empty for all of them"
        )


def _ner_models(project: Project, language: str) -> dict[str, str]:
    """The NER model of each language the release covers, as settings name them now."""
    detector = Detector(ner_models=settings.CLOAK_NER_MODELS)
    return {
        code: detector.ner_spec(code) for code in ([language] if language else project.languages)
    }


def _ner_detector(ner_models: dict[str, str]) -> Detector:
    return Detector(
        profile=RELEASE_PROFILE,
        ner_models=ner_models,
        device=settings.CLOAK_NER_DEVICE,
        batch_size=settings.CLOAK_NER_BATCH_SIZE,
    )


def release_create(
    *,
    project: Project,
    strategy: str,
    format: str,
    language: str = "",
    actor: Any = None,
    ip_address: str | None = None,
    dispatch: bool = True,
) -> Release:
    """A new release of `project`, numbered after the last one, QUEUED. Once the transaction
    commits, the finished documents of the languages with a NER model go to the `ner` queue in
    batches, whose last one sends the build; without any, the build is sent at once.
    `dispatch=False` sends nothing: the caller runs `release_build(..., ner_here=True)`.

    DomainError, with nothing created, for an unknown strategy, format or language.
    """
    strategy = str(strategy or "")
    format = str(format or "")
    language = str(language or "")
    _check(project, strategy, format, language)
    user = acting_user(actor)
    ner_models = _ner_models(project, language)
    for attempt in range(3):
        try:
            with transaction.atomic():
                # One release numbered at a time per project; the unique constraint backs it.
                Project.objects.select_for_update().filter(pk=project.pk).exists()
                last = Release.objects.filter(project=project).aggregate(last=Max("version"))
                release = Release.objects.create(
                    project=project,
                    version=(last["last"] or 0) + 1,
                    strategy=strategy,
                    format=format,
                    language=language,
                    ner_models=ner_models,
                    created_by=user,
                )
                batches = _ner_batches(release) if dispatch else []
                audit_record(
                    action=AuditAction.RELEASE,
                    actor=user,
                    project=project,
                    target=f"release:{release.pk}",
                    detail={
                        "event": "requested",
                        "version": release.version,
                        "strategy": strategy,
                        "format": format,
                        "language": language or "all",
                        "ner_batches": len(batches),
                    },
                    ip_address=ip_address,
                )
                if dispatch:
                    job_dispatch(release, partial(_dispatch, release.pk, batches))
            return release
        except IntegrityError:
            if attempt == 2:
                raise ConflictError(
                    "another release was numbered at the same time: try again"
                ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def _ner_batches(release: Release) -> list[int]:
    """Cut the finished documents of the languages with a NER model into batches; their ids."""
    languages = {code for code, spec in release.ner_models.items() if spec}
    rows = ner_documents(release.project, release.language, languages)
    size = max(1, settings.CLOAK_RUN_BATCH_SIZE)
    batches: list[ReleaseBatch] = []
    for start in range(0, len(rows), size):
        chunk = rows[start : start + size]
        # Rows come by language, then id: a chunk that spans two languages is cut in two.
        for code in dict.fromkeys(code for code, _ in chunk):
            ids = [pk for lang, pk in chunk if lang == code]
            batches.append(
                ReleaseBatch(
                    release=release, number=len(batches) + 1, language=code, document_ids=ids
                )
            )
    return [batch.pk for batch in ReleaseBatch.objects.bulk_create(batches)]


def _dispatch(release_id: int, batches: Sequence[int]) -> None:
    """Send the NER batches to the `ner` queue, or the build at once when there are none. A
    broker error goes up to `job_dispatch`, which fails the release."""
    if not batches:
        tasks.release_build.delay(release_id)
        return
    for batch_id in batches:
        tasks.release_ner.delay(batch_id)


# --- Files ------------------------------------------------------------------------------------


def releases_root() -> Path:
    return Path(settings.MEDIA_ROOT) / RELEASES_DIR


def project_releases_folder(project: Project) -> Path:
    return releases_root() / project.slug


def _folder(release: Release) -> Path:
    return project_releases_folder(release.project) / str(release.version)


def _data_name(release: Release) -> str:
    return f"{release.project.slug}-v{release.version}-{release.strategy}.{_EXTENSIONS[release.format]}"  # noqa: E501


def _within_root(path: Path) -> Path:
    resolved = path.resolve()
    if releases_root().resolve() not in resolved.parents:
        raise NotFoundError("this release's file is not where releases are kept")
    return resolved


def release_data_path(release: Release) -> Path:
    """The data file of a DONE release; DomainError for one not done, NotFoundError when the
    file is gone."""
    if release.status != ReleaseStatus.DONE or not release.file_path:
        raise DomainError(f"release {release.version} is {release.status}: it has no file")
    path = _within_root(Path(settings.MEDIA_ROOT) / release.file_path)
    if not path.is_file():
        raise NotFoundError(f"the file of release {release.version} is missing on the server")
    return path


def release_manifest_path(release: Release) -> Path:
    """manifest.json beside the data file of a DONE release."""
    path = release_data_path(release).parent / MANIFEST_NAME
    if not path.is_file():
        raise NotFoundError(f"the manifest of release {release.version} is missing")
    return path


def release_download_record(
    *, release: Release, actor: Any, what: str, ip_address: str | None = None
) -> None:
    """Audit a download of a release's data or manifest."""
    if what not in ("data", "manifest"):
        raise DomainError(f"a release has data and a manifest, not {what!r}")
    audit_record(
        action=AuditAction.RELEASE,
        actor=actor,
        project=release.project,
        target=f"release:{release.pk}",
        detail={"event": "downloaded", "what": what, "version": release.version},
        ip_address=ip_address,
    )


def release_progress(release: Release) -> dict[str, Any]:
    """Where a release stands, as pages and the API show it: {"status", "done", "total",
    "percent", "error", "ner"}; `ner` is {"done", "total"} batches of its documents' names on
    the `ner` queue while it waits for them (None when it sends none)."""
    done, total = release.documents_done, release.documents_total
    if release.status == ReleaseStatus.RUNNING:
        reported = job_progress(release)
        done = reported.done
        total = reported.total if reported.total is not None else total
    if release.status == ReleaseStatus.DONE or release.status == ReleaseStatus.REFUSED:
        percent = 100
    else:
        percent = min(100, int(100 * done / total)) if total else 0
    ner: dict[str, int] | None = None
    if release.status == ReleaseStatus.QUEUED:
        counts = ReleaseBatch.objects.filter(release_id=release.pk).aggregate(
            total=Count("pk"), done=Count("pk", filter=Q(status=BatchStatus.DONE))
        )
        if counts["total"]:
            ner = {"done": int(counts["done"]), "total": int(counts["total"])}
    return {
        "status": release.status,
        "done": done,
        "total": total,
        "percent": percent,
        "error": release.error,
        "ner": ner,
    }


# --- Names on the `ner` queue -------------------------------------------------------------------


def _of_queued_release() -> Q:
    # A subquery, not `release__status`: the claim's update must stay on the batch's own table
    # (annotator.services.jobs.job_claim).
    return Q(release_id__in=Release.objects.filter(status=ReleaseStatus.QUEUED).values("pk"))


def text_digest(text: str) -> str:
    """What a stored NER result holds to: the text the model read."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def release_batch_ner(*, batch_id: int, retried: bool = False) -> bool:
    """The `ner` queue's work for a release: claim a batch, run its language's model over its
    documents, store what it found (offsets and labels, never text), and let the last batch
    send the build. False when the batch is not this worker's to do (done, another's, or its
    release ended: no GPU time is spent on it). A model that cannot run fails the release."""
    stale_after = timedelta(0) if retried else timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if not job_claim(ReleaseBatch, batch_id, stale_after=stale_after, where=_of_queued_release()):
        return False
    ReleaseBatch.objects.filter(pk=batch_id).update(attempts=F("attempts") + 1)
    batch = ReleaseBatch.objects.select_related("release__project").filter(pk=batch_id).first()
    if batch is None or batch.started_at is None:
        return False
    release, claimed_at = batch.release, batch.started_at
    rows = list(
        Document.objects.filter(pk__in=batch.document_ids, project_id=release.project_id)
        .order_by("pk")
        .values_list("pk", "text")
    )
    texts = [text for _, text in rows]
    try:
        detection = _ner_detector(release.ner_models).ner(texts, batch.language)
        errors = dict(detection.errors)
    except NerSpecError as error:
        errors = {"ner": str(error)}
    if errors:
        reasons = "; ".join(f"{name}: {why}" for name, why in sorted(errors.items()))
        release_batch_fail(
            batch_id=batch_id,
            claimed_at=claimed_at,
            reason=f"the NER model for {batch.language!r} could not run ({reasons})",
        )
        return False
    found = {
        pk: (text_digest(text), [[s.start, s.end, s.label] for s in spans])
        for (pk, text), spans in zip(rows, detection.spans, strict=True)
    }
    return _batch_store(batch_id, claimed_at, found)


@transaction.atomic
def _batch_store(
    batch_id: int, claimed_at: datetime, found: dict[int, tuple[str, list[list[Any]]]]
) -> bool:
    # The batch, then its release: the order in which the reaper locks them too.
    batch = ReleaseBatch.objects.select_for_update().filter(pk=batch_id).first()
    if batch is None or batch.status != BatchStatus.RUNNING or batch.started_at != claimed_at:
        return False
    release = Release.objects.select_for_update().get(pk=batch.release_id)
    if release.status != ReleaseStatus.QUEUED:
        # Failed meanwhile (another batch's model, the reaper): nothing of this one counts.
        job_fail(ReleaseBatch, batch_id, "its release ended", claimed_at=claimed_at)
        return False
    ReleaseNerHits.objects.filter(release=release, document_id__in=list(found)).delete()
    ReleaseNerHits.objects.bulk_create(
        ReleaseNerHits(release=release, document_id=pk, digest=digest, spans=spans)
        for pk, (digest, spans) in found.items()
    )
    job_finish(ReleaseBatch, batch_id, claimed_at=claimed_at)
    left = ReleaseBatch.objects.filter(release=release).exclude(status=BatchStatus.DONE)
    if not left.exists():
        # The last batch to finish, under the release's lock: exactly one sends the build.
        job_dispatch(release)
    return True


def release_batch_fail(*, batch_id: int, reason: str, claimed_at: datetime | None = None) -> bool:
    """Fail a NER batch and its release (nothing is released without its names looked for):
    `reason` is shown to admins, never an original. False when the batch was not failable."""
    with transaction.atomic():
        batch = ReleaseBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or not job_fail(ReleaseBatch, batch_id, reason, claimed_at=claimed_at):
            return False
        release = Release.objects.select_for_update().get(pk=batch.release_id)
        failed = job_fail(
            Release,
            release.pk,
            f"NER batch {batch.number} failed: {reason}. Nothing was released; cut the "
            "release again.",
            unclaimed=True,
        )
    if failed:
        release_discard_partial(release)
        _audit_outcome(release, "failed", {"ner_batch": batch.number})
    return True


# --- Building ---------------------------------------------------------------------------------


@cache
def cloak_version() -> str:
    try:
        return metadata.version("cloak")
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def cloak_commit() -> str:
    """The commit this Cloak runs from: CLOAK_COMMIT, or git when the code is a checkout."""
    commit = os.environ.get("CLOAK_COMMIT", "").strip()
    if commit:
        return commit
    try:
        found = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parents[2],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return found.stdout.strip() if found.returncode == 0 else ""


class _Build:
    """One pass over a release's documents through the engine's pipeline: streams them in,
    counts, records the leaking documents; yields what to write."""

    def __init__(
        self, release: Release, progress: Callable[[int, int], None] | None, *, ner_here: bool
    ) -> None:
        self.release = release
        self.project = release.project
        self.strategy = Strategy(release.strategy)
        self.progress = progress
        self.ner_here = ner_here
        self.total = documents_finished_count(self.project, release.language)
        self.done = 0
        self.ner_languages = {code for code, spec in release.ner_models.items() if spec}
        originals: list[tuple[str, str]] = []
        known: list[tuple[str, str]] = []
        for original, label, kept in release_aliases(self.project):
            known.append((original, label))
            if not kept:
                originals.append((original, label))
        schema = self.project.labels
        detection = ReleaseDetection(
            profile=RELEASE_PROFILE,
            known=known,
            learned=self._learned(),
            ner=_ner_detector(release.ner_models) if ner_here else None,
            labels=lambda label: map_to_schema(label, schema),
        )
        del known
        self.detectors: dict[str, list[str]] = {}
        for code in sorted(release.ner_models):
            names = detection.detectors(code)
            if code in self.ner_languages and "ner" not in names:
                names.append("ner")
            self.detectors[code] = names
        self.pipeline = ReleasePipeline(self.strategy, originals=originals, detection=detection)
        del originals
        self.leak_documents = 0
        self.leak_count = 0
        self.hit_count = 0
        self.dismissed: list[dict[str, Any]] = []
        self.released: list[list[Any]] = []
        self.left_out: list[dict[str, Any]] = []
        self.by_label: Counter[str] = Counter()
        self.by_decision: Counter[str] = Counter()
        self.by_language: dict[str, Counter[str]] = {}
        self.last_report = 0.0
        self._rows: list[ReleaseLeak] = []

    def _learned(self) -> list[Any]:
        """The newest ready learned model of each language the release covers."""
        found = []
        for code in sorted(self.release.ner_models):
            model = learned_latest(self.project, code)
            if model is None:
                continue
            try:
                found.append(learned_recognizer(model))
            except (LearningError, NotFoundError) as error:
                raise DetectionUnavailable(
                    f"the learned model v{model.version} of {code!r} cannot be loaded "
                    f"({type(error).__name__})"
                ) from error
        return found

    @property
    def findings(self) -> int:
        return self.leak_count + self.hit_count

    def _report(self, *, now: bool = False) -> None:
        clock = time.monotonic()
        if now or clock - self.last_report >= REPORT_EVERY_S:
            self.last_report = clock
            job_progress_set(self.release, self.done, self.total, unit="documents")
        if self.progress is not None:
            self.progress(self.done, self.total)

    def left_out_not_finished(self) -> None:
        for document_id, external_id, status in documents_not_finished(
            self.project, self.release.language
        ):
            self._leave_out(document_id, external_id, LEFT_OUT_NOT_FINISHED.format(status=status))

    def _leave_out(self, document_id: int, external_id: str, reason: str) -> None:
        self.left_out.append({"id": document_id, "external_id": external_id, "reason": reason})

    def documents(self) -> Iterator[OutputDocument]:
        self._report(now=True)
        # The NER hits the `ner` queue stored, unless the model runs here.
        stored = self.release if self.ner_languages and not self.ner_here else None
        chunks = finished_document_chunks(
            self.project,
            self.release.language,
            choices_of=partial(surface_choices, self.project),
            release=stored,
        )
        for chunk in chunks:
            releasing = []
            for item in chunk:
                document = self._document(item)
                if document is None:
                    self.done += 1
                else:
                    releasing.append(document)
            for result in self.pipeline.run(releasing):
                self.done += 1
                output = self._result(result)
                if output is not None:
                    yield output
            if self._rows:
                ReleaseLeak.objects.bulk_create(self._rows)
                self._rows = []
            self._report()
        self._report(now=True)

    def _document(self, item: ChunkDocument) -> ReleaseDocument | None:
        """A chunk's document as the pipeline takes it; None (left out) when its names were
        to be found on the `ner` queue and were not, for its text as it is now."""
        choices = item.choices
        spans = []
        for span in item.spans:
            choice = choices.get(span.id)
            spans.append(
                DecidedSpan(
                    span.start,
                    span.end,
                    span.label,
                    span.status,  # the app's SpanStatus values are the engine's SpanState
                    span.decision,
                    choice.replacement if choice is not None else None,
                    None if span.entity_id is None else ("entity", span.entity_id),
                    # Only people accept or reject; a proposal is a machine's until then.
                    span.status != SpanStatus.PROPOSED or span.source == Source.HUMAN,
                    span.id,
                    span.score,
                    span.source,
                )
            )
        ner: list[EngineSpan] | None = None
        if item.language in self.ner_languages and not self.ner_here:
            if item.ner is None or item.ner[0] != text_digest(item.text):
                self._leave_out(item.id, item.external_id, LEFT_OUT_NO_NER)
                return None
            ner = [
                EngineSpan(int(start), int(end), str(label), source=Source.NER.value)
                for start, end, label in item.ner[1]
            ]
        dismissed: dict[tuple[int, int, str], int] = {}
        if item.dismissals:
            fingerprint = document_fingerprint(item.text, spans)
            for key, entries in item.dismissals.items():
                for held, dismissal_id in entries:
                    if held == fingerprint:
                        dismissed[key] = dismissal_id
        return ReleaseDocument(
            (item, dismissed), item.text, item.language, spans, ner=ner, dismissed=dismissed
        )

    def _result(self, result: DocumentResult) -> OutputDocument | None:
        item, dismissals = result.document.ref
        if not result.released:
            self._leave_out(item.id, item.external_id, result.reason)
            return None
        if result.findings:
            self._leaking(item, result)
        for finding in result.dismissed:
            self.dismissed.append(
                {
                    "document_id": item.id,
                    "document_start": finding.document_start,
                    "document_end": finding.document_end,
                    "source": finding.source,
                    "label": finding.label,
                    "dismissal_id": dismissals.get(finding.key),
                }
            )
        language = self.by_language.setdefault(item.language, Counter())
        language["documents"] += 1
        for span in item.spans:
            if span.status == SpanStatus.ACCEPTED:
                language["spans"] += 1
                self.by_label[span.label] += 1
                self.by_decision[span.decision] += 1
        self.released.append([item.id, item.external_id])
        return OutputDocument(
            id=item.external_id, language=item.language, text=result.text, spans=result.spans
        )

    def _leaking(self, item: ChunkDocument, result: DocumentResult) -> None:
        leaks = sum(1 for finding in result.findings if finding.kind == LEAK)
        hits = len(result.findings) - leaks
        self.leak_documents += 1
        self.leak_count += leaks
        self.hit_count += hits
        self._rows.append(
            ReleaseLeak(
                release=self.release,
                document_id=item.id,
                external_id=item.external_id,
                fingerprint=document_fingerprint(item.text, result.document.spans),
                leaks=leaks,
                hits=hits,
                findings=[f.as_dict() for f in result.findings[:FINDINGS_PER_DOCUMENT]],
            )
        )

    def manifest(self, *, data: dict[str, Any] | None) -> dict[str, Any]:
        release = self.release
        return {
            "release": release.version,
            "project": self.project.slug,
            "strategy": release.strategy,
            "strategy_name": self.strategy.label,
            "format": release.format,
            "language": release.language or "all",
            "label_schema": self.project.label_schema,
            "policy": {
                "released": list(RELEASED_STATUSES),
                "left_out": "documents not done or reviewed, with undecided proposals, whose "
                "accepted spans overlap, or whose names the ner queue did not look for",
                "leak_check": {
                    "originals": "every alias of every entity not kept, folded as the "
                    "known-entity matcher folds them, Arabic proclitics included",
                    "patterns": list(LEAK_PATTERN_LABELS),
                },
                "detection_check": {
                    "profile": RELEASE_PROFILE,
                    "detectors": self.detectors,
                    "ner_models": dict(release.ner_models),
                    "ner_ran": "in this process" if self.ner_here else "on the ner queue",
                    "covered_by": "every word character of a hit lies in spans a person "
                    "decided there: accepted (rendered, kept or deleted) or rejected",
                },
            },
            "check": {
                "documents_with_findings": self.leak_documents,
                "leaks": self.leak_count,
                "undecided_hits": self.hit_count,
                # Dismissed by a person as harmless: listed, never silent.
                "dismissed": self.dismissed,
            },
            "counts": {
                "documents_released": len(self.released),
                "documents_left_out": len(self.left_out),
                "spans": sum(self.by_label.values()),
                "per_label": dict(sorted(self.by_label.items())),
                "per_decision": dict(sorted(self.by_decision.items())),
                "per_language": {
                    language: dict(counts) for language, counts in sorted(self.by_language.items())
                },
            },
            "documents": {"released": self.released, "left_out": self.left_out},
            "data": data,
            "cloak": {"version": cloak_version(), "commit": cloak_commit()},
            "cut_by": release.created_by.get_username() if release.created_by else None,
            "requested_at": release.created_at.isoformat(),
            "finished_at": timezone.now().isoformat(),
        }


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_json(path: Path, value: Any) -> None:
    part = path.with_name(f".{path.name}.{uuid.uuid4().hex}.part")
    part.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(part, path)


def release_discard_partial(release: Release) -> None:
    """Delete what a release that failed (its worker died, a NER batch failed) left behind:
    half-written files in its folder, the NER hits stored for it, a partial report."""
    ReleaseNerHits.objects.filter(release_id=release.pk).delete()
    ReleaseLeak.objects.filter(release_id=release.pk).delete()
    folder = _folder(release)
    for part in folder.glob(".*.part"):
        part.unlink(missing_ok=True)
    _remove_empty(folder)


def _remove_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()


def _failure_reason(error: BaseException, build: _Build | None) -> str:
    where = f" after {build.done} of {build.total} documents" if build is not None else ""
    if isinstance(error, DetectionUnavailable):
        # Our own words: a detector and a language, never a text.
        return (
            f"The release's check could not run{where}: {error}. Nothing was released; "
            "make the detector available (or fix its settings), then cut a new release."
        )
    # Never the exception's message: it may quote a text (a UnicodeError does).
    return (
        f"The release failed on an internal error ({type(error).__name__}){where}; "
        "nothing was released. See the worker's log, then cut a new release."
    )


def release_build(
    release_id: int,
    *,
    progress: Callable[[int, int], None] | None = None,
    ner_here: bool = False,
) -> Release:
    """Build a queued release: RUNNING, then DONE (file and manifest written), REFUSED (a
    leak or a hit no person decided on: no file, a report) or FAILED (an error, or a detector
    that cannot run: no file). A finished release is returned as it is; one another worker is
    building, or whose names the `ner` queue is still finding, is left alone. `ner_here` runs
    the NER models in this process (`manage.py release`); without it, the documents' names come
    from the `ner` queue and the default queue's process never loads a model. `progress(done,
    total)` is called as the documents go by."""
    release = Release.objects.select_related("project", "created_by").filter(pk=release_id).first()
    if release is None:
        raise NotFoundError(f"no release {release_id}")
    if release.status in FINISHED:
        return release
    if ReleaseBatch.objects.filter(release=release).exclude(status=BatchStatus.DONE).exists():
        return release  # the last NER batch to finish sends the build again
    stale_after = timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if not job_claim(Release, release.pk, stale_after=stale_after):
        release.refresh_from_db()
        return release
    release.refresh_from_db()
    claimed_at = release.started_at
    # A build taken over from a worker that died starts its report again.
    ReleaseLeak.objects.filter(release=release).delete()
    folder = _folder(release)
    part = folder / f".{_data_name(release)}.{uuid.uuid4().hex}.part"
    build: _Build | None = None
    try:
        build = _Build(release, progress, ner_here=ner_here)
        Release.objects.filter(pk=release.pk, started_at=claimed_at).update(
            documents_total=build.total
        )
        build.left_out_not_finished()
        folder.mkdir(parents=True, exist_ok=True)
        with open(part, "w", encoding="utf-8", newline="") as stream:
            _WRITERS[release.format](build.documents(), stream)
        if build.findings:
            _refuse(release, build, part, claimed_at)
        else:
            _publish(release, build, part, claimed_at)
    except Exception as error:
        part.unlink(missing_ok=True)
        _remove_empty(folder)
        job_crashed(release, error, reason=_failure_reason(error, build), claimed_at=claimed_at)
        ReleaseLeak.objects.filter(release=release).delete()
        _audit_outcome(release, "failed", {})
    finally:
        # The NER hits served this build only: whatever its outcome, they go.
        ReleaseNerHits.objects.filter(release_id=release.pk).delete()
    release.refresh_from_db()
    return release


def _refuse(release: Release, build: _Build, part: Path, claimed_at: Any) -> None:
    part.unlink(missing_ok=True)
    _remove_empty(_folder(release))
    message = (
        f"{build.leak_documents} document(s) hold {build.leak_count} leak(s) in their rendered "
        f"text and {build.hit_count} identifier(s) a detector found that no person decided on: "
        "nothing was published. Fix the documents listed (or dismiss a hit a person judges "
        "harmless), then cut a new release."
    )
    with transaction.atomic():
        # Finished as a job, then marked refused, in one transaction: no reader sees DONE.
        if job_finish(
            Release, release.pk, claimed_at=claimed_at, documents_done=build.done,
            manifest=build.manifest(data=None), error=message,
        ):  # fmt: skip
            Release.objects.filter(pk=release.pk).update(status=ReleaseStatus.REFUSED)
    logger.warning(
        "release %s refused: %s leak(s) and %s undecided hit(s) in %s document(s)",
        release.pk,
        build.leak_count,
        build.hit_count,
        build.leak_documents,
    )
    _audit_outcome(
        release,
        "refused",
        {"leaks": build.leak_count, "hits": build.hit_count, "documents": build.leak_documents},
    )


def _publish(release: Release, build: _Build, part: Path, claimed_at: Any) -> None:
    folder = _folder(release)
    data = folder / _data_name(release)
    os.replace(part, data)
    manifest = build.manifest(
        data={"file": data.name, "sha256": _sha256(data), "bytes": data.stat().st_size}
    )
    _write_json(folder / MANIFEST_NAME, manifest)
    finished = job_finish(
        Release, release.pk, claimed_at=claimed_at, documents_done=build.done,
        manifest=manifest, sha256=manifest["data"]["sha256"],
        file_path=str(data.relative_to(Path(settings.MEDIA_ROOT))),
    )  # fmt: skip
    if not finished:
        # Another worker took the release over (or the reaper failed it): unless that one
        # published it, nothing of this folder stands for the release.
        if not Release.objects.filter(pk=release.pk, status=ReleaseStatus.DONE).exists():
            shutil.rmtree(folder, ignore_errors=True)
        return
    logger.info(
        "release %s done: %s document(s) released, %s left out, %s hit(s) dismissed",
        release.pk,
        len(build.released),
        len(build.left_out),
        len(build.dismissed),
    )
    _audit_outcome(
        release,
        "done",
        {
            "released": len(build.released),
            "left_out": len(build.left_out),
            "dismissed": len(build.dismissed),
        },
    )


def _audit_outcome(release: Release, event: str, detail: dict[str, Any]) -> None:
    audit_record(
        action=AuditAction.RELEASE,
        actor=release.created_by,
        project=release.project,
        target=f"release:{release.pk}",
        detail={"event": event, "version": release.version, **detail},
    )


# --- Dismissing a hit -------------------------------------------------------------------------

REASON_MAX = 2000


def release_hit_dismiss(
    *,
    release: Release,
    document_id: int,
    start: int,
    end: int,
    detector: str,
    reason: str,
    actor: Any,
    ip_address: str | None = None,
) -> HitDismissal:
    """Judge a finding of a refused release harmless: what `detector` found at `start`:`end`
    of a document (or a pattern left in its rendering). The next release does not count it
    while the document's text and decisions stay as they were when it was checked, and lists
    it in its manifest; the dismissal is audited.

    DomainError without a reason, for a release that is not refused, or for an original of
    the table (fix the document instead); NotFoundError for a finding the release did not
    list; ConflictError when it is dismissed already.
    """
    reason = str(reason or "").strip()
    if not reason:
        raise DomainError("say why this is harmless: a dismissal needs a reason")
    if len(reason) > REASON_MAX:
        raise DomainError(f"the reason is too long: {REASON_MAX} characters at most")
    if release.status != ReleaseStatus.REFUSED:
        raise DomainError(
            f"release {release.version} is {release.status}: only a refused release's "
            "findings can be dismissed"
        )
    row = ReleaseLeak.objects.filter(release=release, document_id=document_id).first()
    if row is None:
        raise NotFoundError(f"document {document_id} is not in the report of this release")
    finding = next(
        (
            entry
            for entry in row.findings
            if (entry.get("document_start"), entry.get("document_end"), entry.get("source"))
            == (start, end, detector)
        ),
        None,
    )
    if finding is None:
        raise NotFoundError(
            f"release {release.version} lists nothing found by {detector!r} at "
            f"[{start}, {end}) of document {document_id}"
        )
    if not Finding(**_finding_fields(finding)).dismissible:
        raise DomainError(
            "an original of the correspondence table left in the output is a leak, not a "
            "judgement: fix the document (pseudonymize the surface there), then cut again"
        )
    document = Document.objects.filter(pk=document_id, project=release.project).first()
    if document is None:
        raise NotFoundError(f"document {document_id} is gone")
    user = acting_user(actor)
    try:
        with transaction.atomic():
            dismissal = HitDismissal.objects.create(
                project=release.project,
                document=document,
                start=start,
                end=end,
                detector=detector,
                label=str(finding.get("label") or ""),
                fingerprint=row.fingerprint,
                reason=reason,
                release=release,
                dismissed_by=user,
            )
            audit_record(
                action=AuditAction.HIT_DISMISS,
                actor=user,
                project=release.project,
                target=f"document:{document_id}",
                # Where and what found it, never the text there nor the reason (a person
                # may quote the name in it): the reason stays with the dismissal.
                detail={
                    "release": release.version,
                    "document_id": document_id,
                    "start": start,
                    "end": end,
                    "detector": detector,
                    "label": dismissal.label,
                    "dismissal": dismissal.pk,
                },
                ip_address=ip_address,
            )
    except IntegrityError:
        raise ConflictError(
            "this finding is dismissed already for the document as it was checked"
        ) from None
    return dismissal


def _finding_fields(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": str(entry.get("kind") or LEAK),
        "document_start": int(entry.get("document_start") or 0),
        "document_end": int(entry.get("document_end") or 0),
        "label": str(entry.get("label") or ""),
        "source": str(entry.get("source") or ""),
    }


# --- Its kinds of job ---------------------------------------------------------------------------

RELEASE_REAPED = "The worker stopped while writing this release; nothing was released."
# A release's NER batch whose worker died: the release fails with it (its error says so).
RELEASE_NER_REAPED = "its worker on the ner queue stopped"


def _release_reap(release: Release) -> Counts:
    if not job_fail(Release, release.pk, RELEASE_REAPED):
        return {}
    release_discard_partial(release)
    return {"releases_failed": 1}


def _release_batch_reap(batch: ReleaseBatch) -> Counts:
    """Fail a NER batch whose worker died, and its release (nothing is released without its
    names looked for); the release counts when it failed here."""
    if not release_batch_fail(
        batch_id=batch.pk, reason=RELEASE_NER_REAPED, claimed_at=batch.started_at
    ):
        return {}
    logger.warning("release batch %s reaped: its worker stopped", batch.pk)
    failed = Release.objects.filter(pk=batch.release_id, status=JobStatus.FAILED).exists()
    return {"releases_failed": int(failed)}


def _release_batches_seen(release: Release) -> Iterable[datetime | None]:
    # A release waits queued while the `ner` queue finds its documents' names.
    batches = ReleaseBatch.objects.filter(release=release)
    return batches.aggregate(started=Max("started_at"), finished=Max("finished_at")).values()


RELEASES = job_kind_register(
    JobKind(
        model=Release,
        task=tasks.release_build,
        counters=("releases_failed",),
        unit="documents",
        start_again="Nothing was released: cut the release again.",
        reap=_release_reap,
        signs_of_life=_release_batches_seen,
    )
)
RELEASE_BATCHES = job_kind_register(
    JobKind(
        model=ReleaseBatch,
        task=tasks.release_ner,
        reap=_release_batch_reap,
        waiting=None,
        fail=lambda batch_id, reason, claimed_at: release_batch_fail(
            batch_id=batch_id, reason=reason, claimed_at=claimed_at
        ),
    )
)
