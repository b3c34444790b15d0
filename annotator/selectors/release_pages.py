"""What the release pages and API show of a release: its table row, its manifest summed up,
the documents that refused it with links to them, and the name and media type of its files.

Nothing here reads a document's text: a finding is shown by its document, offsets, label and
source, never by what it found.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse

from annotator.languages import language_label
from annotator.models import (
    Document,
    HitDismissal,
    JobStatus,
    Project,
    Release,
    ReleaseFormat,
    ReleaseLeak,
)
from pseudonymizer.release import ORIGINAL_SOURCE

ACTIVE = frozenset({JobStatus.QUEUED.value, JobStatus.RUNNING.value})
CONTENT_TYPES = {
    ReleaseFormat.JSONL.value: "application/x-ndjson",
    ReleaseFormat.CSV.value: "text/csv",
    ReleaseFormat.CONLL.value: "text/plain",
}
MANIFEST_CONTENT_TYPE = "application/json"
DATA = "data"
MANIFEST = "manifest"
SHA_SHORT = 12


def releases_of(project: Project) -> QuerySet[Release]:
    """The project's releases, newest first."""
    return Release.objects.filter(project=project).select_related("created_by").order_by("-version")


def release_filename(release: Release, what: str) -> str:
    """The name a download is saved under: the data file's name as its manifest gives it
    (`radical-v3-S2.jsonl`, the name the file has on the server), and the manifest beside
    it (`radical-v3-S2-manifest.json`), so that what a user saves matches what the
    manifest says."""
    name = str(_mapping(_mapping(release.manifest).get("data")).get("file") or "")
    if not name:
        name = PurePosixPath(release.file_path).name if release.file_path else ""
    if not name:
        name = f"{release.project.slug}-v{release.version}-{release.strategy}.{release.format}"
    if what != MANIFEST:
        return name
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return f"{stem}-manifest.json"


def release_content_type(release: Release, what: str) -> str:
    return MANIFEST_CONTENT_TYPE if what == MANIFEST else CONTENT_TYPES[release.format]


def release_language_label(release: Release) -> str:
    return language_label(release.language) if release.language else "Every language"


@dataclass(frozen=True)
class ReleaseRow:
    """What a page shows of one release."""

    release: Release
    active: bool
    done: int
    total: int
    percent: int
    error: str
    language: str
    sha_short: str
    downloadable: bool
    # Batches of its documents' names done on the `ner` queue, while it waits for them.
    ner_done: int = 0
    ner_total: int = 0
    # Documents that refused it.
    leak_documents: int = 0


def release_row(release: Release, progress: Mapping[str, Any]) -> ReleaseRow:
    """The row of `release`, with where it stands (`progress`: the release service's
    `release_progress`, which reads the job's last report)."""
    ner = progress.get("ner") or {}
    check = _mapping(_mapping(release.manifest).get("check"))
    return ReleaseRow(
        release=release,
        active=release.status in ACTIVE,
        done=int(progress.get("done") or 0),
        total=int(progress.get("total") or 0),
        percent=int(progress.get("percent") or 0),
        error=str(progress.get("error") or release.error or ""),
        language=release_language_label(release),
        sha_short=release.sha256[:SHA_SHORT],
        downloadable=release.status == JobStatus.DONE,
        ner_done=int(ner.get("done") or 0),
        ner_total=int(ner.get("total") or 0),
        leak_documents=int(check.get("documents_with_findings") or 0),
    )


@dataclass(frozen=True)
class DocumentPlace:
    """A place in a document that a page links to: a leak, or a document left out."""

    document_id: int | None
    external_id: str
    url: str
    start: int | None = None
    end: int | None = None
    # Where a leak is in the document as stored (the released text's offsets differ).
    document_start: int | None = None
    document_end: int | None = None
    label: str = ""
    source: str = ""
    reason: str = ""


def _document_urls(project: Project, ids: Iterable[Any]) -> dict[int, tuple[str, str]]:
    """The documents of `project` among `ids`: their external id and their page."""
    wanted = {int(i) for i in ids if isinstance(i, int) or (isinstance(i, str) and i.isdigit())}
    rows = Document.objects.filter(project=project, pk__in=wanted).values_list("pk", "external_id")
    return {
        pk: (external_id, reverse("document_detail", args=[project.slug, pk]))
        for pk, external_id in rows
    }


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _places(project: Project, entries: Iterable[Any]) -> list[DocumentPlace]:
    entries = [entry for entry in entries if isinstance(entry, Mapping)]
    documents = _document_urls(project, (entry.get("document_id") for entry in entries))
    places = []
    for entry in entries:
        document_id = _int_or_none(entry.get("document_id"))
        external_id, url = documents.get(document_id or 0, ("", ""))
        span_id = _int_or_none(entry.get("span_id"))
        if url and span_id is not None:
            url = f"{url}#span-{span_id}"  # the workspace focuses the span there
        places.append(
            DocumentPlace(
                document_id=document_id,
                external_id=str(entry.get("external_id") or external_id),
                url=url,
                start=_int_or_none(entry.get("start")),
                end=_int_or_none(entry.get("end")),
                document_start=_int_or_none(entry.get("document_start")),
                document_end=_int_or_none(entry.get("document_end")),
                label=str(entry.get("label") or ""),
                source=str(entry.get("source") or ""),
                reason=str(entry.get("reason") or ""),
            )
        )
    return places


def release_leak_rows(release: Release) -> QuerySet[ReleaseLeak]:
    """Every document that refused `release`, in id order: one row each, never text."""
    return ReleaseLeak.objects.filter(release=release).order_by("document_id")


@dataclass(frozen=True)
class LeakFinding:
    """One finding of a leaking document, as a page shows it."""

    kind: str
    label: str
    source: str
    document_start: int | None
    document_end: int | None
    # In the rendered text (a leak); None for a detector's hit.
    start: int | None
    end: int | None
    # The stretches of a hit that no decided span covers (code points, the stored text).
    uncovered: list[tuple[int, int]]
    url: str
    dismissible: bool
    # Who dismissed it from this release, and why ("" while nobody has).
    dismissed_by: str = ""
    dismissed_reason: str = ""
    dismissed: bool = False


@dataclass(frozen=True)
class LeakingDocument:
    """One document that refused a release: its link, counts and first findings."""

    document_id: int
    external_id: str
    url: str
    leaks: int
    hits: int
    findings: list[LeakFinding]

    @property
    def more(self) -> int:
        """Findings counted but not listed."""
        return max(0, self.leaks + self.hits - len(self.findings))


def _pairs(value: Any) -> list[tuple[int, int]]:
    if not isinstance(value, list):
        return []
    return [
        (pair[0], pair[1])
        for pair in value
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, int) for v in pair)
    ]


def leaking_documents(
    project: Project, rows: Iterable[ReleaseLeak], *, release: Release | None = None
) -> list[LeakingDocument]:
    """`rows` (a page of `release_leak_rows`) with links to their documents, and the findings
    people dismissed from `release` since (two queries)."""
    rows = list(rows)
    documents = _document_urls(project, (row.document_id for row in rows))
    dismissals: dict[tuple[int, int, int, str], tuple[str, str]] = {}
    if release is not None and rows:
        found_dismissals = (
            HitDismissal.objects.filter(
                release=release, document_id__in=[row.document_id for row in rows]
            )
            .select_related("dismissed_by")
            .order_by("pk")
        )
        for dismissal in found_dismissals:
            who = dismissal.dismissed_by.get_username() if dismissal.dismissed_by else ""
            key = (dismissal.document_id, dismissal.start, dismissal.end, dismissal.detector)
            dismissals[key] = (who, dismissal.reason)
    found = []
    for row in rows:
        external_id, url = documents.get(row.document_id, (row.external_id, ""))
        findings = []
        for entry in row.findings if isinstance(row.findings, list) else []:
            if not isinstance(entry, Mapping):
                continue
            span_id = _int_or_none(entry.get("span_id"))
            source = str(entry.get("source") or "")
            place = (
                row.document_id,
                _int_or_none(entry.get("document_start")) or 0,
                _int_or_none(entry.get("document_end")) or 0,
                source,
            )
            who, why = dismissals.get(place, ("", ""))
            findings.append(
                LeakFinding(
                    kind=str(entry.get("kind") or "leak"),
                    label=str(entry.get("label") or ""),
                    source=source,
                    document_start=_int_or_none(entry.get("document_start")),
                    document_end=_int_or_none(entry.get("document_end")),
                    start=_int_or_none(entry.get("start")),
                    end=_int_or_none(entry.get("end")),
                    uncovered=_pairs(entry.get("uncovered")),
                    url=_finding_url(url, span_id, entry),
                    dismissible=bool(source) and source != ORIGINAL_SOURCE,
                    dismissed_by=who,
                    dismissed_reason=why,
                    dismissed=place in dismissals,
                )
            )
        found.append(
            LeakingDocument(
                document_id=row.document_id,
                external_id=row.external_id or external_id,
                url=url,
                leaks=row.leaks,
                hits=row.hits,
                findings=findings,
            )
        )
    return found


@dataclass(frozen=True)
class CheckSummary:
    """What a release's check found, from its manifest: counts and the dismissed hits."""

    documents: int
    leaks: int
    hits: int
    dismissed: list[DocumentPlace]


def check_summary(release: Release) -> CheckSummary:
    check = _mapping(_mapping(release.manifest).get("check"))
    dismissed = [
        {
            **entry,
            "start": entry.get("document_start"),
            "end": entry.get("document_end"),
            "document_start": entry.get("document_start"),
            "document_end": entry.get("document_end"),
        }
        for entry in check.get("dismissed") or []
        if isinstance(entry, Mapping)
    ]
    return CheckSummary(
        documents=int(check.get("documents_with_findings") or 0),
        leaks=int(check.get("leaks") or 0),
        hits=int(check.get("undecided_hits") or 0),
        dismissed=_places(release.project, dismissed),
    )


@dataclass(frozen=True)
class ManifestSummary:
    """The manifest of a release (annotator.services.releases) as a page shows it."""

    facts: list[tuple[str, Any]]
    # False for a release refused or failed: its counts are what it would have released.
    published: bool
    per_label: list[tuple[str, Any]]
    per_decision: list[tuple[str, Any]]
    # (language, documents, spans)
    per_language: list[tuple[str, Any, Any]]
    left_out: list[DocumentPlace]
    # Those of `left_out` a person had finished before a change reopened them.
    reopened: list[DocumentPlace]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def manifest_summary(release: Release) -> ManifestSummary:
    manifest = _mapping(release.manifest)
    counts = _mapping(manifest.get("counts"))
    cloak = _mapping(manifest.get("cloak"))
    data = _mapping(manifest.get("data"))
    published = release.status == JobStatus.DONE
    facts = [
        (
            "Documents released" if published else "Documents it would have released",
            counts.get("documents_released"),
        ),
        ("Documents left out", counts.get("documents_left_out")),
        ("Spans" if published else "Spans it would have released", counts.get("spans")),
        ("Label schema", _mapping(manifest.get("label_schema")).get("name")),
        ("File", data.get("file")),
        ("Size (bytes)", data.get("bytes")),
        ("Cloak", " ".join(str(v) for v in (cloak.get("version"), cloak.get("commit")) if v)),
    ]
    left_out = [
        {**entry, "document_id": entry.get("id")}
        for entry in _mapping(manifest.get("documents")).get("left_out") or []
        if isinstance(entry, Mapping)
    ]
    return ManifestSummary(
        facts=[(title, value) for title, value in facts if value not in (None, "")],
        published=published,
        per_label=sorted(_mapping(counts.get("per_label")).items()),
        per_decision=sorted(_mapping(counts.get("per_decision")).items()),
        per_language=[
            (language_label(code), _mapping(row).get("documents"), _mapping(row).get("spans"))
            for code, row in sorted(_mapping(counts.get("per_language")).items())
        ],
        left_out=_places(release.project, left_out),
        reopened=_places(release.project, [entry for entry in left_out if entry.get("reopened")]),
    )


def _finding_url(url: str, span_id: int | None, entry: Mapping[str, Any]) -> str:
    """Where a finding's link opens its document: on its span's row, or (a hit no span
    holds) with the stretch selected in the text (`#at-start-end`, code points), ready for
    a label key to add the span there."""
    if not url:
        return url
    if span_id is not None:
        return f"{url}#span-{span_id}"
    start = _int_or_none(entry.get("document_start"))
    end = _int_or_none(entry.get("document_end"))
    if start is not None and end is not None and 0 <= start < end:
        return f"{url}#at-{start}-{end}"
    return url
