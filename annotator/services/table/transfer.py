"""Key export and import (`annotator.keys.transfer`), audited: an export as `key_export`
with its counts, an import as `key_import` whether it succeeds or not (counts and outcome,
never a surface or the passphrase)."""

from __future__ import annotations

from typing import Any

from annotator.audit import audit_record
from annotator.keys import transfer as keys
from annotator.keys.errors import ImportConflicts, KeyFileRefused
from annotator.keys.transfer import (
    FILE_CONTENT_TYPE,
    MAX_FILE_BYTES,
    MIN_PASSPHRASE,
    ImportConflict,
    ImportCounts,
    conflicts_as_dicts,
)
from annotator.models import AuditAction, Project
from annotator.permissions import acting_user_id
from annotator.services.table.base import in_corpus

__all__ = [
    "FILE_CONTENT_TYPE",
    "MAX_FILE_BYTES",
    "MIN_PASSPHRASE",
    "ImportConflict",
    "ImportCounts",
    "conflicts_as_dicts",
]


def export_filename(project: Project) -> str:
    return f"{project.slug}-keys.json.enc"


def keys_export(
    *, project: Project, passphrase: str, actor: Any = None, ip_address: str | None = None
) -> tuple[bytes, int]:
    """The project's key file under `passphrase` and how many aliases it holds; audited."""
    exported = keys.keys_export(project, passphrase)
    audit_record(
        action=AuditAction.KEY_EXPORT,
        actor=actor,
        project=project,
        target=f"project:{project.slug}",
        detail={"aliases": exported.aliases, "entities": exported.entities},
        ip_address=ip_address,
    )
    return exported.data, exported.aliases


def keys_import(
    *,
    project: Project,
    data: bytes,
    passphrase: str,
    actor: Any = None,
    ip_address: str | None = None,
) -> ImportCounts:
    """Import a key file's bytes into the project, all or nothing; audited whether it
    succeeds or not (KEY_IMPORT with counts and the outcome)."""

    def audit(outcome: str, counts: dict[str, int] | None = None) -> None:
        audit_record(
            action=AuditAction.KEY_IMPORT,
            actor=actor,
            project=project,
            target=f"project:{project.slug}",
            detail={"outcome": outcome, **(counts or {})},
            ip_address=ip_address,
        )

    try:
        counts = keys.keys_import(
            project,
            data=data,
            passphrase=passphrase,
            user_id=acting_user_id(actor),
            in_corpus=lambda text: in_corpus(project, text),
        )
    except ImportConflicts as error:
        audit("refused: conflicts", error.counts.as_dict())
        raise
    except KeyFileRefused:
        audit("refused: unreadable or invalid file")
        raise
    audit("imported", counts.as_dict())
    return counts


def check_export_passphrase(passphrase: str) -> None:
    """Refuse a passphrase too short to guard every original of a project."""
    keys.check_export_passphrase(passphrase)
