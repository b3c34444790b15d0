"""Where a release's files are kept and what they are called, the writers of its data
formats, the reads of a finished release's files (and their audit), and the removal of
what a failed release left behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from django.conf import settings

from annotator.audit import audit_record
from annotator.errors import DomainError, NotFoundError
from annotator.models import (
    AuditAction,
    JobStatus,
    Project,
    Release,
    ReleaseFormat,
    ReleaseLeak,
    ReleaseNerHits,
)
from pseudonymizer.formats.writers import OutputDocument, write_conll, write_csv, write_jsonl

RELEASES_DIR = "releases"  # under settings.MEDIA_ROOT; one folder per release: <slug>/<version>/
MANIFEST_NAME = "manifest.json"


WRITERS: dict[str, Callable[[Iterator[OutputDocument], TextIO], int]] = {
    ReleaseFormat.JSONL: write_jsonl,
    ReleaseFormat.CSV: write_csv,
    ReleaseFormat.CONLL: write_conll,
}
_EXTENSIONS: dict[str, str] = {
    ReleaseFormat.JSONL: "jsonl",
    ReleaseFormat.CSV: "csv",
    ReleaseFormat.CONLL: "conll",
}


def releases_root() -> Path:
    return Path(settings.MEDIA_ROOT) / RELEASES_DIR


def project_releases_folder(project: Project) -> Path:
    return releases_root() / project.slug


def release_folder(release: Release) -> Path:
    return project_releases_folder(release.project) / str(release.version)


def data_name(release: Release) -> str:
    return f"{release.project.slug}-v{release.version}-{release.strategy}.{_EXTENSIONS[release.format]}"  # noqa: E501


def _within_root(path: Path) -> Path:
    resolved = path.resolve()
    if releases_root().resolve() not in resolved.parents:
        raise NotFoundError("this release's file is not where releases are kept")
    return resolved


def release_data_path(release: Release) -> Path:
    """The data file of a DONE release; DomainError for one not done, NotFoundError when the
    file is gone."""
    if release.status != JobStatus.DONE or not release.file_path:
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


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def part_open(path: Path) -> tuple[Path, TextIO]:
    """A new part file beside `path` (`.<name>.<hex>.part`), open for writing, that only this
    process's user may read (0600) whatever the umask: until its checks pass, what is written
    there may hold originals (a release about to be refused). The caller deletes it on every
    way out but `part_publish`."""
    part = path.with_name(f".{path.name}.{uuid.uuid4().hex}.part")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(part, flags, 0o600)
    try:
        return part, open(descriptor, "w", encoding="utf-8", newline="")  # noqa: SIM115
    except BaseException:
        os.close(descriptor)
        part.unlink(missing_ok=True)
        raise


def part_publish(part: Path, path: Path) -> None:
    """Rename a part file whose checks passed to `path`, with the mode a file created here
    would have had (0666 less the umask: 0644 under the usual 022, the mode published files
    always had, so that a web process running as another user of the group still serves
    them)."""
    os.chmod(part, 0o666 & ~_umask())
    os.replace(part, path)


def _umask() -> int:
    # Linux says it in /proc (since 4.7) without changing it; elsewhere it is set and put back,
    # to the strictest value meanwhile.
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def json_write(path: Path, value: Any) -> None:
    part, stream = part_open(path)
    try:
        with stream:
            stream.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
        part_publish(part, path)
    finally:
        part.unlink(missing_ok=True)


def release_discard_partial(release: Release) -> None:
    """Delete what a release that failed (its worker died, a NER batch failed) left behind:
    half-written files in its folder, the NER hits stored for it, a partial report."""
    ReleaseNerHits.objects.filter(release_id=release.pk).delete()
    ReleaseLeak.objects.filter(release_id=release.pk).delete()
    folder = release_folder(release)
    for part in folder.glob(".*.part"):
        part.unlink(missing_ok=True)
    empty_remove(folder)


def empty_remove(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()
