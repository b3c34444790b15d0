"""What every part of the door needs: the keys' scope of a project and the audit of a
person's read of the table."""

from __future__ import annotations

from typing import Any

from annotator.keys.reads import KeyFilters
from annotator.keys.scope import Scope
from annotator.models import AuditAction, Project
from annotator.services.audit import audit_record


def scope_of(project: Project) -> Scope:
    return Scope(project.pk, project.secret)


def read_record(
    *,
    project: Project,
    actor: Any,
    shown: int,
    filters: KeyFilters | None = None,
    entity_id: int | None = None,
    candidates: bool = False,
    ip_address: str | None = None,
) -> None:
    """Audit a person's read of the table: `key_search` with the filters when it was
    filtered or searched (the query only as given and its word count), else `key_read`."""
    detail: dict[str, Any] = {"shown": shown}
    action = AuditAction.KEY_READ
    if filters is not None and filters.any:
        action = AuditAction.KEY_SEARCH
        words = len(filters.q.split())  # the query only as "given" and its word count
        detail.update(
            label=filters.label,
            decision=filters.decision,
            language=filters.language,
            query=bool(words),
            query_words=words,
        )
    if candidates:
        detail["view"] = "candidates"
    audit_record(
        action=action,
        actor=actor,
        project=project,
        target=f"entity:{entity_id}" if entity_id is not None else "",
        detail=detail,
        ip_address=ip_address,
    )
