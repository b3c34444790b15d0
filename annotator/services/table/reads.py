"""A person's reads of the correspondence table, each audited here, by construction: a page
of it (filtered, searched), one entity, the candidate links. Leads and admins only
(`Can.READ_KEYS`): the pages and the API that call these check that.

A search names a person: the pages keep it in the session sealed as the originals are
(`search_remember`, `search_recall`), never in an address.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.base import SessionBase
from django.db.models import Count

from annotator.keys import crypto
from annotator.keys import reads as keys
from annotator.keys.links import Candidate, link_candidates
from annotator.keys.reads import DEFAULT_LIMIT, MAX_LIMIT, AliasRow, EntityRecord, KeyFilters
from annotator.models import Project, Span
from annotator.services.table.base import read_record

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "AliasRow",
    "Candidate",
    "EntityPage",
    "EntityRow",
    "KeyFilters",
]


@dataclass(frozen=True)
class EntityRow(EntityRecord):
    """An entity as a page or the API shows it: the table's record (`EntityRecord`), and
    what the Domain adds, who decided it and how many spans hold it."""

    created_by: str = ""
    span_count: int = 0


@dataclass(frozen=True)
class EntityPage:
    rows: list[EntityRow]
    total: int
    limit: int
    offset: int

    @property
    def has_next(self) -> bool:
        return self.offset + len(self.rows) < self.total

    @property
    def has_previous(self) -> bool:
        return self.offset > 0

    @property
    def number(self) -> int:
        return self.offset // self.limit + 1

    @property
    def num_pages(self) -> int:
        return max(1, -(-self.total // self.limit))

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1


def entity_rows(records: Sequence[EntityRecord]) -> list[EntityRow]:
    """`records` as a page shows them: two more queries whatever their number (the span
    counts grouped, the people who decided)."""
    ids = [record.id for record in records]
    if not ids:
        return []
    spans = dict(
        Span.objects.filter(entity_id__in=ids)
        .values("entity_id")
        .annotate(count=Count("pk"))
        .values_list("entity_id", "count")
    )
    people = dict(
        get_user_model()
        .objects.filter(pk__in={r.created_by_id for r in records if r.created_by_id})
        .values_list("pk", "username")
    )
    return [
        EntityRow(
            **{name.name: getattr(record, name.name) for name in fields(EntityRecord)},
            created_by=people.get(record.created_by_id, "") if record.created_by_id else "",
            span_count=spans.get(record.id, 0),
        )
        for record in records
    ]


def entity_page(
    project: Project,
    filters: KeyFilters,
    *,
    actor: Any,
    ip_address: str | None = None,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
    last_if_past: bool = False,
) -> EntityPage:
    """One page of the table for a person, audited: the entities `filters` select, their
    aliases decrypted. `last_if_past`: a page past the last is the last."""
    scope = project
    found = keys.entity_page(scope, filters, limit=limit, offset=offset)
    if last_if_past and not found.records and found.total:
        last = (-(-found.total // found.limit) - 1) * found.limit
        found = keys.entity_page(scope, filters, limit=limit, offset=last)
    page = EntityPage(entity_rows(found.records), found.total, found.limit, found.offset)
    read_record(
        project=project,
        actor=actor,
        filters=filters,
        shown=len(page.rows),
        ip_address=ip_address,
    )
    return page


def entity_get(project: Project, entity_id: int) -> EntityRow:
    """One entity, unaudited: for the answer to an edit (audited as that edit, `key_edit`),
    or for code; an answer that shows it otherwise, a refusal included, is audited
    (`entity_read`, `entity_shown`)."""
    return entity_rows([keys.entity_record(project, entity_id)])[0]


def entity_read(
    project: Project, entity_id: int, *, actor: Any, ip_address: str | None = None
) -> EntityRow:
    """One entity for a person, audited (`key_read`, the entity as target)."""
    row = entity_get(project, entity_id)
    entity_shown(project, entity_id, actor=actor, ip_address=ip_address)
    return row


def entity_shown(
    project: Project, entity_id: int, *, actor: Any, ip_address: str | None = None
) -> None:
    """Audit an answer that shows entity `entity_id` (`key_read`): a page or answer built
    from `entity_get`, an edit's refusal among them, is a read of the table by its person."""
    read_record(project=project, actor=actor, entity_id=entity_id, shown=1, ip_address=ip_address)


def link_candidates_read(
    project: Project,
    *,
    actor: Any,
    entity_id: int | None = None,
    label: str = "",
    ip_address: str | None = None,
) -> list[Candidate]:
    """Scored pairs of entities that may be one (`annotator.keys.links`), ids only; audited."""
    found = link_candidates(project, entity_id=entity_id, label=label)
    read_record(
        project=project, actor=actor, shown=len(found), candidates=True, ip_address=ip_address
    )
    return found


def candidate_pairs_read(
    project: Project, *, actor: Any, label: str = "", ip_address: str | None = None
) -> list[tuple[Candidate, EntityRow, EntityRow]]:
    """The candidate links with both entities as a page shows them (originals decrypted);
    audited."""
    scope = project
    found = link_candidates(scope, label=label)
    ids = {c.entity_id for c in found} | {c.other_id for c in found}
    rows = {row.id: row for row in entity_rows(keys.entities_by_id(scope, ids))}
    pairs = [
        (candidate, rows[candidate.entity_id], rows[candidate.other_id])
        for candidate in found
        if candidate.entity_id in rows and candidate.other_id in rows
    ]
    read_record(
        project=project, actor=actor, shown=len(pairs), candidates=True, ip_address=ip_address
    )
    return pairs


# A search names a person: the page keeps it in the session, sealed as the originals are,
# and puts only a token in the address, so that no name reaches the address bar, the
# browser's history, a Referer or a proxy's access log.
SEARCHES_KEY = "cloak_key_searches"
SEARCHES_KEPT = 20


def search_remember(session: SessionBase, query: str) -> str:
    """A token for `query`, which this session keeps sealed (the last `SEARCHES_KEPT`)."""
    searches: dict[str, str] = dict(session.get(SEARCHES_KEY, {}))
    token = secrets.token_urlsafe(9)
    searches[token] = crypto.encrypt(query).decode("ascii")
    session[SEARCHES_KEY] = dict(list(searches.items())[-SEARCHES_KEPT:])
    return token


def search_recall(session: SessionBase, token: str) -> str | None:
    """The query a token stands for in this session; None when it is unknown (expired, or
    from another session)."""
    sealed = session.get(SEARCHES_KEY, {}).get(token)
    return crypto.decrypt(sealed.encode("ascii")) if isinstance(sealed, str) else None
