"""Releases: an immutable, numbered rendering of a project's finished documents that cannot
leak.

`release_create` validates and numbers a release and queues it; `release_build` (the
`release_build` task, or `manage.py release` in-process) renders it:

- Documents: the project's original documents (never a replica) of the release's language
  (or all), in id order, streamed from the database a chunk at a time to the data file, so
  memory stays flat whatever the corpus size. Released: documents marked done or reviewed
  (`RELEASED_STATUSES`). Left out, each with its reason in the manifest: any other status
  (not finished), a document with proposals no one decided (a proposal may be a name: leaving
  the document out is the safe side), and one that cannot be rendered (two accepted spans
  overlap).
- Rendering: the engine's strategies through `annotator.selectors.rendering`, with one S3
  numbering for the whole release: `keep` spans stay, `invalidate` spans are invalidated
  under every strategy but S0, `delete` spans go.
- The leak check, before anything is published: every original of every entity that is not
  kept (token-level aliases too: `annotator.selectors.releases.release_originals`), found
  case- and accent-folded with Arabic proclitics (`pseudonymizer.evaluation.LeakChecker`,
  its automaton built once per release), and every pattern hit (URL, e-mail, handle, phone,
  IBAN, IP, card) outside the rendered spans. An original found inside a span a person kept
  (a word of a kept organisation's name) was published on purpose and is not a leak; one
  found anywhere else, a replacement included, is. Any leak refuses the release: the data
  file is deleted and the release lists each leak by document and offset, never its text.
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
import re
import shutil
import subprocess
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import cache, partial
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from annotator import tasks
from annotator.models import (
    AuditAction,
    Project,
    Release,
    ReleaseFormat,
    ReleaseStatus,
    Span,
    SpanStatus,
)
from annotator.selectors.releases import (
    RELEASED_STATUSES,
    ChunkDocument,
    documents_finished_count,
    documents_not_finished,
    finished_document_chunks,
    release_originals,
)
from annotator.selectors.rendering import document_rendered
from annotator.services.audit import audit_record
from annotator.services.errors import ConflictError, DomainError, NotFoundError
from annotator.services.jobs import (
    job_claim,
    job_fail,
    job_finish,
    job_progress,
    job_progress_set,
    job_send_on_commit,
)
from pseudonymizer.evaluation import Leak, LeakChecker
from pseudonymizer.formats.writers import OutputDocument, write_conll, write_csv, write_jsonl
from pseudonymizer.recognizers.known import fold
from pseudonymizer.recognizers.regex import RegexRecognizer
from pseudonymizer.spans import Span as EngineSpan
from pseudonymizer.strategies import Strategy
from pseudonymizer.vocabulary import Decision

logger = logging.getLogger(__name__)

RELEASES_DIR = "releases"  # under settings.MEDIA_ROOT; one folder per release: <slug>/<version>/
MANIFEST_NAME = "manifest.json"
# What the leak check looks for beside the originals: identifiers with a stable shape.
# Hashtags are topics far more often than people, and are left to the annotators.
LEAK_PATTERNS = ("EMAIL", "URL", "IBAN", "CARD", "IP", "PHONE", "USERNAME")
# A refused release lists this many leaks at most (and counts them all).
LEAK_REPORT_MAX = 1000
_WORD = re.compile(r"\w+")
# Progress goes to the cache at most this often.
REPORT_EVERY_S = 0.5

FINISHED = (ReleaseStatus.DONE, ReleaseStatus.REFUSED, ReleaseStatus.FAILED)
ACTIVE = (ReleaseStatus.QUEUED, ReleaseStatus.RUNNING)

LEFT_OUT_NOT_FINISHED = "not finished: the document is {status}, neither done nor reviewed"
LEFT_OUT_UNDECIDED = "{count} proposal(s) undecided: a proposal may name someone"
LEFT_OUT_PROBLEM = "cannot be rendered: {problem}"

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


def _user(actor: Any) -> Any:
    return actor if actor is not None and getattr(actor, "is_authenticated", False) else None


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
    """A new release of `project`, numbered after the last one, QUEUED; its task is sent
    once the transaction commits (`dispatch=False`: the caller runs `release_build`).

    DomainError, with nothing created, for an unknown strategy, format or language.
    """
    strategy = str(strategy or "")
    format = str(format or "")
    language = str(language or "")
    _check(project, strategy, format, language)
    user = _user(actor)
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
                    created_by=user,
                )
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
                    },
                    ip_address=ip_address,
                )
                if dispatch:
                    job_send_on_commit(release, partial(tasks.release_build.delay, release.pk))
            return release
        except IntegrityError:
            if attempt == 2:
                raise ConflictError(
                    "another release was numbered at the same time: try again"
                ) from None
    raise AssertionError("unreachable")  # pragma: no cover


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
    """Where a release stands, as pages and the API show it:
    {"status", "done", "total", "percent", "error"}."""
    done, total = release.documents_done, release.documents_total
    if release.status == ReleaseStatus.RUNNING:
        reported = job_progress(release)
        done = reported.done
        total = reported.total if reported.total is not None else total
    if release.status == ReleaseStatus.DONE or release.status == ReleaseStatus.REFUSED:
        percent = 100
    else:
        percent = min(100, int(100 * done / total)) if total else 0
    return {
        "status": release.status,
        "done": done,
        "total": total,
        "percent": percent,
        "error": release.error,
    }


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
    """One pass over a release's documents: renders, checks, counts; yields what to write."""

    def __init__(self, release: Release, progress: Callable[[int, int], None] | None) -> None:
        self.release = release
        self.project = release.project
        self.strategy = Strategy(release.strategy)
        self.progress = progress
        self.total = documents_finished_count(self.project, release.language)
        self.done = 0
        self.numbering: dict[object, int] = {}
        originals: list[str] = []
        self.original_labels: list[str] = []
        for original, label in release_originals(self.project):
            originals.append(original)
            self.original_labels.append(label)
        recognizer = RegexRecognizer(labels=LEAK_PATTERNS)
        self.checker = LeakChecker(originals, [recognizer.recognize_one])
        del originals
        self.leaks: list[dict[str, Any]] = []
        self.leak_count = 0
        self.leaky_documents = 0
        self.released: list[list[Any]] = []
        self.left_out: list[dict[str, Any]] = []
        self.by_label: Counter[str] = Counter()
        self.by_decision: Counter[str] = Counter()
        self.by_language: dict[str, Counter[str]] = {}
        self.last_report = 0.0

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
            self.left_out.append(
                {
                    "id": document_id,
                    "external_id": external_id,
                    "reason": LEFT_OUT_NOT_FINISHED.format(status=status),
                }
            )

    def documents(self) -> Iterator[OutputDocument]:
        self._report(now=True)
        for chunk in finished_document_chunks(self.project, self.release.language):
            for item in chunk:
                output = self._one(item)
                self.done += 1
                if output is not None:
                    yield output
            self._report()
        self._report(now=True)

    def _one(self, item: ChunkDocument) -> OutputDocument | None:
        document = item.document
        rendered = document_rendered(
            document, self.strategy, numbering=self.numbering, spans=item.spans,
            choices=item.choices,
        )  # fmt: skip
        reason = ""
        if rendered.problem:
            reason = LEFT_OUT_PROBLEM.format(problem=rendered.problem)
        elif rendered.undecided:
            reason = LEFT_OUT_UNDECIDED.format(count=rendered.undecided)
        if reason:
            self.left_out.append(
                {"id": document.pk, "external_id": document.external_id, "reason": reason}
            )
            return None
        self._check_leaks(item, rendered.text, rendered.spans)
        accepted = [span for span in item.spans if span.status == SpanStatus.ACCEPTED]
        language = self.by_language.setdefault(document.language, Counter())
        language["documents"] += 1
        language["spans"] += len(accepted)
        for span in accepted:
            self.by_label[span.label] += 1
            self.by_decision[span.decision] += 1
        self.released.append([document.pk, document.external_id])
        return OutputDocument(
            id=document.external_id,
            language=document.language,
            text=rendered.text,
            spans=rendered.spans,
        )

    def _sources(self, item: ChunkDocument, rendered: list[EngineSpan]) -> list[str | None]:
        """For each rendered span, the original surface it stands for (None when the two
        lists cannot be aligned: then no hit inside a replacement is excused)."""
        text = item.document.text
        shown = [
            text[span.start : span.end]
            for span in sorted(item.spans, key=lambda span: (span.start, span.end))
            if span.status == SpanStatus.ACCEPTED and self._shown(span)
        ]
        if len(shown) != len(rendered):
            return [None] * len(rendered)
        return list(shown)

    def _excused(
        self, leak: Leak, text: str, spans: list[EngineSpan], sources: list[str | None]
    ) -> bool:
        """Whether an original found in the rendered text is no leak: inside a span a person
        kept (published on purpose), or a word of a pseudonym that happens to be a word of
        someone else's name ("Nora" in the pseudonym "Nora Bell" while a Nora Haddad is in
        the corpus) - never a word of the original the pseudonym replaces, nor a pseudonym
        that is someone's whole name."""
        for span, source in zip(spans, sources, strict=True):
            if not (span.start <= leak.start and leak.end <= span.end):
                continue
            if span.decision == Decision.KEEP:
                return True
            if source is None or (leak.start, leak.end) == (span.start, span.end):
                return False
            found = _words(text[leak.start : leak.end])
            own = _words(source)
            return not any(
                own[index : index + len(found)] == found
                for index in range(len(own) - len(found) + 1)
            )
        return False

    def _shown(self, span: Span) -> bool:
        """Whether an accepted span stands in the rendered text (else it was deleted)."""
        return span.decision != Decision.DELETE and (
            self.strategy is not Strategy.S0 or span.decision == Decision.KEEP
        )

    def _in_document(
        self, item: ChunkDocument, rendered: list[EngineSpan], start: int, end: int
    ) -> tuple[int, int, int | None]:
        """Where a leak found at `start`:`end` of the rendered text lies in the document as
        stored, and the span there (any status: a rejected phone number, say), so that the
        page can send the admin to it. Inside a replacement, the whole replaced span."""
        accepted = sorted(
            (span for span in item.spans if span.status == SpanStatus.ACCEPTED),
            key=lambda span: (span.start, span.end),
        )
        places: list[tuple[Span, int, int]] = []  # accepted span, its start and end rendered
        shown = iter(rendered)
        delta = 0  # rendered offset minus stored offset, after the last span placed
        for span in accepted:
            if self._shown(span):
                stand_in = next(shown, None)
                if stand_in is None:
                    break  # not aligned: the offsets below stay the rendered ones
                places.append((span, stand_in.start, stand_in.end))
            else:
                places.append((span, span.start + delta, span.start + delta))
            delta = places[-1][2] - span.end
        shift = 0
        for span, new_start, new_end in places:
            if new_end <= start:  # before the leak (a deletion right at it too)
                shift = span.end - new_end
                continue
            if new_start >= end:
                break
            if new_start < new_end:
                return span.start, span.end, span.pk
        original = (start + shift, end + shift)
        # A span a person rejected there (the chunk holds no rejected span): one query, and
        # only for a leak.
        covering = (
            Span.objects.filter(
                document_id=item.document.pk, start__lt=original[1], end__gt=original[0]
            )
            .order_by("start", "end")
            .values_list("pk", flat=True)
            .first()
        )
        return original[0], original[1], covering

    def _check_leaks(self, item: ChunkDocument, text: str, spans: list[EngineSpan]) -> None:
        sources = self._sources(item, spans)
        found = 0
        covered = -1  # the end of the longest original found so far
        leaks = sorted(self.checker(text, allowed=spans), key=lambda x: (x.start, -x.end))
        for leak in leaks:
            if leak.original is not None:
                if self._excused(leak, text, spans, sources):
                    continue
                # "Moshe" inside "Moshe Chaya": one leak, the longest.
                if leak.end <= covered:
                    continue
                covered = leak.end
                label, source = self.original_labels[leak.original], "original"
            else:
                label, source = leak.label or "", "pattern"
            found += 1
            if len(self.leaks) >= LEAK_REPORT_MAX:
                continue  # counted, not listed: placing it would cost a query for nothing
            document_start, document_end, span_id = self._in_document(
                item, spans, leak.start, leak.end
            )
            self.leaks.append(
                {
                    "document_id": item.document.pk,
                    "external_id": item.document.external_id,
                    "start": leak.start,
                    "end": leak.end,
                    # Where it is in the document as stored, and the span there if any.
                    "document_start": document_start,
                    "document_end": document_end,
                    "span_id": span_id,
                    "label": label,
                    "source": source,
                }
            )
        if found:
            self.leaky_documents += 1
            self.leak_count += found

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
                "left_out": "documents not done or reviewed, with undecided proposals, or "
                "whose accepted spans overlap",
                "leak_check": {
                    "originals": "every alias of every entity not kept, case- and "
                    "accent-folded, Arabic proclitics included",
                    "patterns": list(LEAK_PATTERNS),
                },
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


def _words(text: str) -> list[str]:
    """The words of `text` as the leak check compares them (the known-entity matcher's
    folding: case, accents and Arabic letter variants)."""
    return _WORD.findall(fold(text))


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
    """Delete what a release whose worker died left half-written in its folder."""
    folder = _folder(release)
    for part in folder.glob(".*.part"):
        part.unlink(missing_ok=True)
    _remove_empty(folder)


def _remove_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()


def _failure_reason(error: BaseException, build: _Build | None) -> str:
    # Never the exception's message: it may quote a text (a UnicodeError does).
    where = f" after {build.done} of {build.total} documents" if build is not None else ""
    return (
        f"The release failed on an internal error ({type(error).__name__}){where}; "
        "nothing was released. See the worker's log, then cut a new release."
    )


def release_build(
    release_id: int, *, progress: Callable[[int, int], None] | None = None
) -> Release:
    """Build a queued release: RUNNING, then DONE (file and manifest written), REFUSED (a
    leak: no file) or FAILED (an error: no file). A finished release is returned as it is;
    one another worker is building is left to it. `progress(done, total)` is called as the
    documents go by."""
    release = Release.objects.select_related("project", "created_by").filter(pk=release_id).first()
    if release is None:
        raise NotFoundError(f"no release {release_id}")
    if release.status in FINISHED:
        return release
    stale_after = timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if not job_claim(Release, release.pk, stale_after=stale_after):
        release.refresh_from_db()
        return release
    release.refresh_from_db()
    claimed_at = release.started_at
    folder = _folder(release)
    part = folder / f".{_data_name(release)}.{uuid.uuid4().hex}.part"
    build: _Build | None = None
    try:
        build = _Build(release, progress)
        Release.objects.filter(pk=release.pk, started_at=claimed_at).update(
            documents_total=build.total
        )
        build.left_out_not_finished()
        folder.mkdir(parents=True, exist_ok=True)
        with open(part, "w", encoding="utf-8", newline="") as stream:
            _WRITERS[release.format](build.documents(), stream)
        if build.leak_count:
            _refuse(release, build, part, claimed_at)
        else:
            _publish(release, build, part, claimed_at)
    except Exception as error:
        part.unlink(missing_ok=True)
        _remove_empty(folder)
        reason = _failure_reason(error, build)
        job_fail(Release, release.pk, reason, claimed_at=claimed_at)
        logger.error(
            "release %s failed: %s\n%s",
            release.pk,
            type(error).__name__,
            "".join(traceback.format_tb(error.__traceback__)),
        )
        _audit_outcome(release, "failed", {})
    release.refresh_from_db()
    return release


def _refuse(release: Release, build: _Build, part: Path, claimed_at: Any) -> None:
    part.unlink(missing_ok=True)
    _remove_empty(_folder(release))
    message = (
        f"{build.leak_count} possible leak(s) in {build.leaky_documents} document(s): nothing "
        "was published. Fix the documents listed, then cut a new release."
    )
    with transaction.atomic():
        # Finished as a job, then marked refused, in one transaction: no reader sees DONE.
        if job_finish(
            Release, release.pk, claimed_at=claimed_at, documents_done=build.done,
            leak_report=build.leaks, manifest=build.manifest(data=None), error=message,
        ):  # fmt: skip
            Release.objects.filter(pk=release.pk).update(status=ReleaseStatus.REFUSED)
    logger.warning(
        "release %s refused: %s possible leak(s) in %s document(s)",
        release.pk,
        build.leak_count,
        build.leaky_documents,
    )
    _audit_outcome(
        release, "refused", {"leaks": build.leak_count, "documents": build.leaky_documents}
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
        manifest=manifest, leak_report=[], sha256=manifest["data"]["sha256"],
        file_path=str(data.relative_to(Path(settings.MEDIA_ROOT))),
    )  # fmt: skip
    if not finished:
        # Another worker took the release over (or the reaper failed it): unless that one
        # published it, nothing of this folder stands for the release.
        if not Release.objects.filter(pk=release.pk, status=ReleaseStatus.DONE).exists():
            shutil.rmtree(folder, ignore_errors=True)
        return
    logger.info(
        "release %s done: %s document(s) released, %s left out",
        release.pk,
        len(build.released),
        len(build.left_out),
    )
    _audit_outcome(
        release, "done", {"released": len(build.released), "left_out": len(build.left_out)}
    )


def _audit_outcome(release: Release, event: str, detail: dict[str, Any]) -> None:
    audit_record(
        action=AuditAction.RELEASE,
        actor=release.created_by,
        project=release.project,
        target=f"release:{release.pk}",
        detail={"event": event, "version": release.version, **detail},
    )
