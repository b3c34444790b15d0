"""Building a release: one pass over its documents through the engine's pipeline
(`pseudonymizer.release`), then its outcome: published (file and manifest), refused (a
report, no file) or failed; and how far a release has got.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from annotator.errors import NotFoundError
from annotator.models import (
    JobStatus,
    Release,
    ReleaseBatch,
    ReleaseLeak,
    ReleaseNerHits,
    SpanStatus,
    span_by_person,
)
from annotator.selectors.learning import learned_latest
from annotator.selectors.releases import (
    ChunkDocument,
    documents_finished_count,
    documents_in_scope_count,
    documents_not_finished,
    finished_document_chunks,
)
from annotator.services.jobs import (
    job_claim,
    job_crashed,
    job_finish,
    job_progress_set,
)
from annotator.services.learning import learned_recognizer
from annotator.services.releases.create import release_outcome_audit
from annotator.services.releases.files import (
    MANIFEST_NAME,
    WRITERS,
    data_name,
    empty_remove,
    json_write,
    part_open,
    part_publish,
    release_folder,
    sha256_of,
)
from annotator.services.releases.manifest import release_manifest
from annotator.services.releases.ner import RELEASE_PROFILE, ner_detector, text_digest
from annotator.services.table import release_aliases, surface_choices
from pseudonymizer.detection import uses_ner
from pseudonymizer.detection_check import DetectionUnavailable, ReleaseDetection
from pseudonymizer.formats.writers import OutputDocument
from pseudonymizer.labels import map_to_schema
from pseudonymizer.learning import LearningError
from pseudonymizer.release import (
    LEAK,
    DecidedSpan,
    DocumentResult,
    ReleaseDocument,
    ReleasePipeline,
    document_fingerprint,
)
from pseudonymizer.spans import Span as EngineSpan
from pseudonymizer.strategies import Strategy
from pseudonymizer.vocabulary import Source

logger = logging.getLogger(__name__)

# A leaking document's row lists this many findings at most (and counts them all): the report
# names every leaking document, and stays bounded per document.
FINDINGS_PER_DOCUMENT = 50
# Progress goes to the cache at most this often.
REPORT_EVERY_S = 0.5

FINISHED = (JobStatus.DONE, JobStatus.REFUSED, JobStatus.FAILED)
ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)


LEFT_OUT_NOT_FINISHED = "not finished: the document is {status}, neither done nor reviewed"
LEFT_OUT_REOPENED = (
    "reopened: a person marked it done ({finished}), and a change since left a proposal "
    "undecided; it is {status}"
)
LEFT_OUT_NO_NER = (
    "its names were not looked for: it was finished after this release was cut, or its text "
    "changed since; cut a new release to include it"
)


@contextmanager
def _one_snapshot() -> Iterator[bool]:
    """Every read inside sees the database as it was at one moment: the documents counted,
    those left out, each chunk's text, spans and choices, and the table's originals. Without
    it a document reopened while the release read (a propagation pass, a person) was counted
    finished, then missed by both the chunks and the "left out" list: released by nobody,
    reported by nobody, and its leak unseen (issue 31, 1). Yields whether the build may write
    inside (PostgreSQL: yes; SQLite's snapshot cannot take a write once another process has
    written since, so its rows wait for the end). Inside a caller's transaction (a test's),
    that transaction is the snapshot."""
    if connection.in_atomic_block:
        yield True
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield True
        else:
            yield False


class UnaccountedDocuments(RuntimeError):
    """Some document of the release was neither released nor left out with a reason."""


class ReleasePass:
    """One pass over a release's documents through the engine's pipeline: streams them in,
    counts, records the leaking documents; yields what to write."""

    def __init__(
        self,
        release: Release,
        progress: Callable[[int, int], None] | None,
        *,
        ner_here: bool,
        writes: bool = True,
    ) -> None:
        self.release = release
        self.writes = writes
        self.project = release.project
        self.strategy = Strategy(release.strategy)
        self.progress = progress
        self.ner_here = ner_here
        self.total = documents_finished_count(self.project, release.language)
        self.done = 0
        self.ner_languages = {
            code for code in release.ner_models if uses_ner(release.ner_models, code)
        }
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
            ner=ner_detector(release.ner_models) if ner_here else None,
            labels=lambda label: map_to_schema(label, schema),
        )
        del known
        self.detectors: dict[str, list[str]] = {}
        covered = [release.language] if release.language else self.project.languages
        for code in sorted(covered):
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
        for document_id, external_id, status, finished_at in documents_not_finished(
            self.project, self.release.language
        ):
            if finished_at is None:
                reason = LEFT_OUT_NOT_FINISHED.format(status=status)
            else:
                reason = LEFT_OUT_REOPENED.format(
                    status=status, finished=f"{finished_at:%Y-%m-%d %H:%M} UTC"
                )
            self._leave_out(document_id, external_id, reason, reopened=finished_at is not None)

    def _leave_out(
        self, document_id: int, external_id: str, reason: str, *, reopened: bool = False
    ) -> None:
        entry: dict[str, Any] = {"id": document_id, "external_id": external_id, "reason": reason}
        if reopened:
            entry["reopened"] = True
        self.left_out.append(entry)

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
            if self.writes:
                self.rows_write()
            self._report()
        self._report(now=True)

    def rows_write(self) -> None:
        if self._rows:
            ReleaseLeak.objects.bulk_create(self._rows)
            self._rows = []

    def accounted(self) -> None:
        """Raise unless every document the release covers was released or left out."""
        seen = len(self.released) + len(self.left_out)
        expected = documents_in_scope_count(self.project, self.release.language)
        if seen != expected:
            raise UnaccountedDocuments(
                f"{expected - seen} of {expected} documents were neither released nor left out"
            )

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
                    # A proposal is a machine's until a person accepts or rejects it; one
                    # set aside without a person (decided by nobody) is a machine's still.
                    span_by_person(span.status, span.source, span.decided_by_id),
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
            # A dismissal holds to its finding's stretch (or, made before stretches were
            # fingerprinted, to the whole document).
            whole = document_fingerprint(item.text, spans)
            for key, entries in item.dismissals.items():
                stretch = document_fingerprint(item.text, spans, key[:2])
                for held, dismissal_id in entries:
                    if held in (stretch, whole):
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


def _failure_reason(error: BaseException, build: ReleasePass | None) -> str:
    where = f" after {build.done} of {build.total} documents" if build is not None else ""
    if isinstance(error, DetectionUnavailable):
        # Our own words: a detector and a language, never a text.
        return (
            f"The release's check could not run{where}: {error}. Nothing was released; "
            "make the detector available (or fix its settings), then cut a new release."
        )
    if isinstance(error, UnaccountedDocuments):
        return (
            f"The release's count did not add up{where}: {error}. Nothing was released; "
            "cut a new release, and report this if it happens again."
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
    if ReleaseBatch.objects.filter(release=release).exclude(status=JobStatus.DONE).exists():
        return release  # the last NER batch to finish sends the build again
    stale_after = timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if not job_claim(Release, release.pk, stale_after=stale_after):
        release.refresh_from_db()
        return release
    release.refresh_from_db()
    claimed_at = release.started_at
    # A build taken over from a worker that died starts its report again.
    ReleaseLeak.objects.filter(release=release).delete()
    folder = release_folder(release)
    # The data is written to a part file only this worker's user may read (0600): until the
    # checks pass it may hold originals. Only `_publish` makes it the release's file; every
    # other way out deletes it at once, a refusal, an error or an interruption alike (the
    # reaper deletes the part files of a worker killed outright).
    part: Path | None = None
    build: ReleasePass | None = None
    try:
        with _one_snapshot() as writes:
            build = ReleasePass(release, progress, ner_here=ner_here, writes=writes)
            build.left_out_not_finished()
            folder.mkdir(parents=True, exist_ok=True)
            part, stream = part_open(folder / data_name(release))
            with stream:
                WRITERS[release.format](build.documents(), stream)
            build.accounted()
        build.rows_write()
        Release.objects.filter(pk=release.pk, started_at=claimed_at).update(
            documents_total=build.total
        )
        if build.findings:
            _refuse(release, build, part, claimed_at)
        else:
            _publish(release, build, part, claimed_at)
    except Exception as error:
        if part is not None:
            part.unlink(missing_ok=True)
        reason = _failure_reason(error, build)
        if job_crashed(release, error, reason=reason, claimed_at=claimed_at):
            # Failed by this claim: whatever it published before the error (the data, renamed
            # before the manifest was written) does not stand for the release.
            shutil.rmtree(folder, ignore_errors=True)
        ReleaseLeak.objects.filter(release=release).delete()
        release_outcome_audit(release, "failed", {})
    finally:
        if part is not None:
            part.unlink(missing_ok=True)  # published: renamed away already
        empty_remove(folder)
        # The NER hits served this build only: whatever its outcome, they go.
        ReleaseNerHits.objects.filter(release_id=release.pk).delete()
    release.refresh_from_db()
    return release


def _refuse(release: Release, build: ReleasePass, part: Path, claimed_at: Any) -> None:
    part.unlink(missing_ok=True)
    empty_remove(release_folder(release))
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
            manifest=release_manifest(build, data=None), error=message,
        ):  # fmt: skip
            Release.objects.filter(pk=release.pk).update(status=JobStatus.REFUSED)
    logger.warning(
        "release %s refused: %s leak(s) and %s undecided hit(s) in %s document(s)",
        release.pk,
        build.leak_count,
        build.hit_count,
        build.leak_documents,
    )
    release_outcome_audit(
        release,
        "refused",
        {"leaks": build.leak_count, "hits": build.hit_count, "documents": build.leak_documents},
    )


def _publish(release: Release, build: ReleasePass, part: Path, claimed_at: Any) -> None:
    folder = release_folder(release)
    data = folder / data_name(release)
    part_publish(part, data)
    manifest = release_manifest(
        build, data={"file": data.name, "sha256": sha256_of(data), "bytes": data.stat().st_size}
    )
    json_write(folder / MANIFEST_NAME, manifest)
    finished = job_finish(
        Release, release.pk, claimed_at=claimed_at, documents_done=build.done,
        manifest=manifest, sha256=manifest["data"]["sha256"],
        file_path=str(data.relative_to(Path(settings.MEDIA_ROOT))),
    )  # fmt: skip
    if not finished:
        # Another worker took the release over (or the reaper failed it): unless that one
        # published it, nothing of this folder stands for the release.
        if not Release.objects.filter(pk=release.pk, status=JobStatus.DONE).exists():
            shutil.rmtree(folder, ignore_errors=True)
        return
    logger.info(
        "release %s done: %s document(s) released, %s left out, %s hit(s) dismissed",
        release.pk,
        len(build.released),
        len(build.left_out),
        len(build.dismissed),
    )
    release_outcome_audit(
        release,
        "done",
        {
            "released": len(build.released),
            "left_out": len(build.left_out),
            "dismissed": len(build.dismissed),
        },
    )
