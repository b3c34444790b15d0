"""Reading the audit log: a project's events, filtered, newest first; and what a page shows of
one.

The log only grows, so every read goes through `audit_project_idx` (project, -created_at):
the filters narrow the rows of one project, dates become a range on `created_at` (never a
function of the column), and the order is the index's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from annotator.models import AuditAction, AuditEvent, Project
from pseudonymizer.formats.writers import spreadsheet_safe

# A detail is shown in one line; the rest is in the CSV.
DETAIL_CHARS = 160
CSV_COLUMNS = ("when", "who", "action", "action_label", "target", "detail", "ip_address")


@dataclass(frozen=True)
class AuditFilter:
    """What a reader of the log narrows it to; empty fields filter nothing."""

    actions: Sequence[str] = field(default_factory=tuple)
    actor: str = ""  # a username, exact (case ignored)
    since: date | None = None  # from this day on, inclusive
    until: date | None = None  # up to this day, inclusive
    target: str = ""  # a part of the target, case ignored

    @property
    def active(self) -> bool:
        return bool(self.actions or self.actor or self.since or self.until or self.target)

    def as_detail(self) -> dict[str, Any]:
        """The filters for an audit event's detail (AUDIT_READ): plain JSON."""
        return {
            "actions": list(self.actions),
            "actor": self.actor,
            "since": self.since.isoformat() if self.since else "",
            "until": self.until.isoformat() if self.until else "",
            "target": self.target,
        }


def _start_of(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_current_timezone())


def audit_events(project: Project, filters: AuditFilter | None = None) -> QuerySet[AuditEvent]:
    """The project's audit events matching `filters`, newest first."""
    filters = filters or AuditFilter()
    events = AuditEvent.objects.filter(project=project)
    if filters.actions:
        events = events.filter(action__in=list(filters.actions))
    if filters.actor:
        events = events.filter(actor__username__iexact=filters.actor)
    if filters.since:
        events = events.filter(created_at__gte=_start_of(filters.since))
    if filters.until:
        events = events.filter(created_at__lt=_start_of(filters.until + timedelta(days=1)))
    if filters.target:
        events = events.filter(target__icontains=filters.target)
    return events.select_related("actor").order_by("-created_at", "-pk")


def action_label(action: str) -> str:
    try:
        return str(AuditAction(action).label)
    except ValueError:
        return action


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def detail_text(detail: Any, limit: int | None = DETAIL_CHARS) -> str:
    """A detail in one line: `key=value, key=value` (nested values as compact JSON), cut at
    `limit` characters with an ellipsis."""
    if isinstance(detail, Mapping):
        text = ", ".join(f"{key}={_plain(value)}" for key, value in detail.items())
    elif detail in (None, "", [], {}):
        text = ""
    else:
        text = _plain(detail)
    if limit is not None and len(text) > limit:
        return text[: limit - 1] + "…"
    return text


@dataclass(frozen=True)
class AuditRow:
    """What the page shows of one event."""

    event: AuditEvent
    who: str
    what: str
    detail: str
    detail_full: str


def audit_rows(events: Iterable[AuditEvent]) -> list[AuditRow]:
    return [
        AuditRow(
            event=event,
            who=event.actor.username if event.actor is not None else "",
            what=action_label(event.action),
            detail=detail_text(event.detail),
            detail_full=detail_text(event.detail, limit=None),
        )
        for event in events
    ]


def audit_csv_rows(events: QuerySet[AuditEvent]) -> Iterator[list[str]]:
    """The header, then one row per event (streamed from the database in chunks)."""
    yield list(CSV_COLUMNS)
    for event in events.iterator(chunk_size=2000):
        # A cell a spreadsheet shows as text, never runs, as in a release's CSV: a target or
        # a detail may carry what a person typed.
        yield [
            spreadsheet_safe(value)
            for value in (
                event.created_at.isoformat(),
                event.actor.username if event.actor is not None else "",
                event.action,
                action_label(event.action),
                event.target,
                _plain(event.detail) if event.detail else "",
                event.ip_address or "",
            )
        ]
