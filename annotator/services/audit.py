"""The audit log: append-only, and never given an original surface."""

from __future__ import annotations

from typing import Any

from annotator.models import AuditEvent, Project


def audit_record(
    *,
    action: str,
    actor: Any = None,
    project: Project | None = None,
    target: str = "",
    detail: dict[str, Any] | None = None,
    ip_address: str | None = None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        actor=actor if actor is not None and actor.is_authenticated else None,
        project=project,
        action=action,
        target=target,
        detail=detail or {},
        ip_address=ip_address,
    )
