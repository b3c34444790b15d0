"""The audit log: append-only, and never given an original surface. Its one writer, below
every layer that records (services, the door to the keys, the admin) and the address of a
request (`client_ip`) for the pages and the API."""

from __future__ import annotations

import ipaddress
from typing import Any

from django.http import HttpRequest

from annotator.models import AuditEvent, Project
from annotator.permissions import acting_user


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
        actor=acting_user(actor),
        project=project,
        action=action,
        target=target,
        detail=detail or {},
        ip_address=ip_address,
    )


def client_ip(request: HttpRequest) -> str | None:
    """Where a request came from, for the audit log: REMOTE_ADDR, the address of the peer.

    Never `X-Forwarded-For`: anyone can send that header, and Cloak is not configured with
    a proxy it trusts (docker-compose serves gunicorn directly). Behind a proxy, the proxy's
    own address is recorded, until a trusted-proxy setting says which header to believe.
    """
    address = request.META.get("REMOTE_ADDR") or ""
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return None
