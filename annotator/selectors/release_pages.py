"""What the release pages and API show of a release: its table row, its manifest summed up,
its leaks with links to their documents, and the name and media type of its files.

Nothing here reads a document's text: a leak is shown by its document, offsets, label and
source, never by what it found.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse

from annotator.models import Document, Project, Release, ReleaseFormat, ReleaseStatus
from annotator.services.releases import release_progress
from annotator.views.forms import language_label

ACTIVE = frozenset({ReleaseStatus.QUEUED.value, ReleaseStatus.RUNNING.value})
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
    """The name a download is saved under: `radical-release-3.jsonl`, `…-3-manifest.json`."""
    stem = f"{release.project.slug}-release-{release.version}"
    return f"{stem}-manifest.json" if what == MANIFEST else f"{stem}.{release.format}"


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


def release_row(release: Release) -> ReleaseRow:
    progress = release_progress(release)
    return ReleaseRow(
        release=release,
        active=release.status in ACTIVE,
        done=int(progress.get("done") or 0),
        total=int(progress.get("total") or 0),
        percent=int(progress.get("percent") or 0),
        error=str(progress.get("error") or release.error or ""),
        language=release_language_label(release),
        sha_short=release.sha256[:SHA_SHORT],
        downloadable=release.status == ReleaseStatus.DONE,
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


def leak_places(release: Release) -> list[DocumentPlace]:
    """The leaks that refused `release`, each with a link to its document."""
    return _places(release.project, release.leak_report or [])


@dataclass(frozen=True)
class ManifestSummary:
    """The manifest of a release (annotator.services.releases) as a page shows it."""

    facts: list[tuple[str, Any]]
    per_label: list[tuple[str, Any]]
    per_decision: list[tuple[str, Any]]
    # (language, documents, spans)
    per_language: list[tuple[str, Any, Any]]
    left_out: list[DocumentPlace]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def manifest_summary(release: Release) -> ManifestSummary:
    manifest = _mapping(release.manifest)
    counts = _mapping(manifest.get("counts"))
    cloak = _mapping(manifest.get("cloak"))
    data = _mapping(manifest.get("data"))
    facts = [
        ("Documents released", counts.get("documents_released")),
        ("Documents left out", counts.get("documents_left_out")),
        ("Spans", counts.get("spans")),
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
        per_label=sorted(_mapping(counts.get("per_label")).items()),
        per_decision=sorted(_mapping(counts.get("per_decision")).items()),
        per_language=[
            (language_label(code), _mapping(row).get("documents"), _mapping(row).get("spans"))
            for code, row in sorted(_mapping(counts.get("per_language")).items())
        ],
        left_out=_places(release.project, left_out),
    )
