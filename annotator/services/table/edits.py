"""A lead's edits of the correspondence table: a replacement or a decision, merge two
entities, split one, link an alias to another entity; and a person's relabel of a decided
span, which the table follows (`span_relabel`). The keys make the change
(`annotator.keys.edits`) and say which spans it reaches; this makes those spans follow and
audits the edit (`key_edit`, the entity as target).

The order of writes. The keys may live in another database than the spans and the audit
(`annotator.routers.keys_alias`): two connections, two transactions, never one. Each edit is
written in this order (`_written`):

1. the keys, in a transaction on the keys database that holds the entities locked, left
   open;
2. the spans that follow and the audit row, in a transaction on the default database,
   committed;
3. the keys' transaction, committed.

A failure in 1 or 2 (a refusal, a stale version, a span that cannot be written, the audit
row) rolls back both: nothing changed. Only a failure between 2 and 3 (the keys' commit
itself: their database gone at that instant) leaves the two apart: the spans hold the new
decision (or entity) while the table holds the old one, and the edit answered an error. That
state is repaired by the next action and harmless meanwhile: the lead repeats the edit and
the spans follow again (they are rewritten from the entity, whatever they held); the
review's scan raises every span whose decision differs from its entity's as a conflict; and
a release renders a span's pseudonym from the table's choice for its surface, never from
the span. The keys are written first so that a refusal by the table's rules (the most
common failure) costs no write of the default database at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Substr
from django.utils import timezone

from annotator.audit import audit_record
from annotator.errors import ConflictError, DomainError, NotFoundError, StaleVersion
from annotator.keys import crypto
from annotator.keys import edits as keys
from annotator.keys.edits import Edit, EntityChange, SpansFollow
from annotator.models import AuditAction, Project, Span, SpanStatus
from annotator.permissions import acting_user_id
from annotator.routers import keys_alias
from annotator.services.table.base import in_corpus
from annotator.services.table.reads import EntityRow, entity_get

__all__ = [
    "EntityChange",
    "alias_link",
    "entity_merge",
    "entity_split",
    "entity_update",
    "span_relabel",
]


def _spans_follow(project: Project, follow: SpansFollow) -> int:
    """Make the spans `follow` names take what it says; how many did."""
    spans = Span.objects.filter(entity_id__in=list(follow.entity_ids))
    if follow.digests is not None:
        # A span holds its entity by id only: its surface is its document's text at its
        # offsets, read in the database and held only long enough to take its digest.
        rows = spans.annotate(
            surface=Substr("document__text", F("start") + 1, F("end") - F("start"))
        ).values_list("pk", "surface")
        secret = project.secret
        moving = [
            pk for pk, surface in rows if crypto.surface_digest(secret, surface) in follow.digests
        ]
        spans = Span.objects.filter(pk__in=moving)
    change: dict[str, Any] = {
        "decision": follow.decision,
        "keep_reason": follow.keep_reason,
        "version": F("version") + 1,
        "updated_at": timezone.now(),
    }
    if follow.entity_id is not None:
        change["entity_id"] = follow.entity_id
    if follow.label is not None:
        change["label"] = follow.label
    return int(spans.update(**change))


def _audit(
    project: Project, actor: Any, entity_id: int | None, detail: dict[str, Any], ip: str | None
) -> None:
    audit_record(
        action=AuditAction.KEY_EDIT,
        actor=actor,
        project=project,
        target=f"entity:{entity_id}" if entity_id is not None else "",
        detail=detail,
        ip_address=ip,
    )


def _refusal(error: DomainError) -> str:
    """A refused edit's reason as its audit row says it: a kind, never the message."""
    if isinstance(error, StaleVersion):
        return "stale"
    if isinstance(error, NotFoundError):
        return "missing"
    if isinstance(error, ConflictError):
        return "conflict"
    return "refused"


def _written(
    project: Project,
    actor: Any,
    ip_address: str | None,
    write: Callable[[], Edit],
    *,
    lead: str = "",
    entity_id: int | None = None,
) -> Edit:
    """`write` the keys, then the spans and the audit, in the order the module's docstring
    gives. A lead's edit of `entity_id` (`lead`: what it is, "edit", "merge"…) that is
    refused is audited as refused, once both databases have rolled back: its answer shows
    the entity, and a refusal is a read of the table too."""
    try:
        return _write_ordered(project, actor, ip_address, write)
    except DomainError as error:
        if lead:
            _audit(project, actor, entity_id, {"action": lead, "refused": _refusal(error)},
                   ip_address)  # fmt: skip
        raise


def _write_ordered(
    project: Project, actor: Any, ip_address: str | None, write: Callable[[], Edit]
) -> Edit:
    with transaction.atomic(using=keys_alias()):
        edit = write()  # 1. the keys, their entities locked until the end of this block
        if edit.detail is not None:
            with transaction.atomic(using="default"):  # 2. spans and audit, committed
                detail = dict(edit.detail)
                if edit.follow:
                    detail["spans"] = sum(_spans_follow(project, f) for f in edit.follow)
                _audit(project, actor, edit.entity_id, detail, ip_address)
                for entity_id, also in edit.also:
                    _audit(project, actor, entity_id, also, ip_address)
    # 3. the keys committed on leaving the block above
    return edit


def entity_update(
    *,
    project: Project,
    entity_id: int,
    actor: Any,
    version: int | None,
    change: EntityChange,
    ip_address: str | None = None,
) -> EntityRow:
    """Apply a lead's `change` to one entity, or raise having changed nothing."""
    edit = _written(
        project,
        actor,
        ip_address,
        lambda: keys.entity_update(
            project,
            entity_id=entity_id,
            version=version,
            change=change,
            user_id=acting_user_id(actor),
            in_corpus=lambda text: in_corpus(project, text),
        ),
        lead="edit",
        entity_id=entity_id,
    )
    return entity_get(project, edit.entity_id)


def entity_merge(
    *,
    project: Project,
    entity_id: int,
    other_id: int,
    actor: Any,
    version: int | None,
    other_version: int | None,
    decision: str | None = None,
    keep_reason: str | None = None,
    ip_address: str | None = None,
) -> EntityRow:
    """Fold `other_id` into `entity_id`: its aliases and spans move, it goes. Two entities
    decided differently merge only with the `decision` the merged one takes; the merged
    entity keeps `entity_id`'s label."""
    edit = _written(
        project,
        actor,
        ip_address,
        lambda: keys.entity_merge(
            project,
            entity_id=entity_id,
            other_id=other_id,
            version=version,
            other_version=other_version,
            decision=decision,
            keep_reason=keep_reason,
            user_id=acting_user_id(actor),
            in_corpus=lambda text: in_corpus(project, text),
        ),
        lead="merge",
        entity_id=entity_id,
    )
    return entity_get(project, edit.entity_id)


def entity_split(
    *,
    project: Project,
    entity_id: int,
    alias_ids: Sequence[int],
    actor: Any,
    version: int | None,
    ip_address: str | None = None,
) -> tuple[EntityRow, EntityRow]:
    """Move the chosen aliases of an entity (each with the words cut from it) to a new entity
    of the same label and decision; the spans of their surfaces follow. (entity, new one)."""
    edit = _written(
        project,
        actor,
        ip_address,
        lambda: keys.entity_split(
            project,
            entity_id=entity_id,
            alias_ids=alias_ids,
            version=version,
            user_id=acting_user_id(actor),
            in_corpus=lambda text: in_corpus(project, text),
        ),
        lead="split",
        entity_id=entity_id,
    )
    new_id = edit.also[0][0]
    return entity_get(project, edit.entity_id), entity_get(project, new_id)


def alias_link(
    *,
    project: Project,
    entity_id: int,
    alias_id: int,
    actor: Any,
    version: int | None,
    ip_address: str | None = None,
) -> EntityRow:
    """Link an alias ("موشيه حايا") to an entity in another language ("Moshe Chaya"): the
    alias, the words cut from it and the spans of those surfaces move to `entity_id` and take
    its decision; the entity it leaves goes when no alias is left in it."""
    edit = _written(
        project,
        actor,
        ip_address,
        lambda: keys.alias_link(
            project,
            entity_id=entity_id,
            alias_id=alias_id,
            version=version,
            user_id=acting_user_id(actor),
            in_corpus=lambda text: in_corpus(project, text),
        ),
        lead="link",
        entity_id=entity_id,
    )
    return entity_get(project, edit.entity_id)


def _relied_on(project: Project, entity_id: int, span_id: int) -> frozenset[str]:
    """The digests of the surfaces of the spans but `span_id` that hold `entity_id` and that a
    person decided (accepted). A proposal, whatever found it, follows its entity: a machine's
    proposal in French that took the entity refused the French-speaking annotator's relabel
    back in English (issue 31, 3)."""
    spans = (
        Span.objects.filter(document__project=project, entity_id=entity_id)
        .exclude(pk=span_id)
        .filter(status=SpanStatus.ACCEPTED)
    )
    surfaces = spans.annotate(
        surface=Substr("document__text", F("start") + 1, F("end") - F("start"))
    ).values_list("surface", flat=True)
    secret = project.secret
    return frozenset(crypto.surface_digest(secret, surface) for surface in surfaces)


def span_relabel(
    *,
    project: Project,
    span_id: int,
    entity_id: int,
    surface: str,
    label: str,
    actor: Any,
    ip_address: str | None = None,
    back: str | None = None,
) -> int:
    """A person relabelled the decided span `span_id` of `surface` (whose entity is
    `entity_id`) `label`: the table follows (`annotator.keys.edits.surface_relabel`), and
    the entity the span's surface now names is returned. Alone on its entity, the entity
    takes the label and its drawn pseudonyms are drawn again for it; where another span a
    person decided relies on the entity, the surface moves to a new entity of the label.
    Audited as a key edit (ids and labels only), for the lead. SurfaceConflict when another
    span decided the surface itself under the entity's label. `back`: the pseudonym the
    surface had under `label` (an undone relabel puts it back)."""
    relied_on = _relied_on(project, entity_id, span_id)
    edit = _written(
        project,
        actor,
        ip_address,
        lambda: keys.surface_relabel(
            project,
            entity_id=entity_id,
            surface=surface,
            label=label,
            relied_on=relied_on,
            user_id=acting_user_id(actor),
            in_corpus=lambda text: in_corpus(project, text),
            back=back,
        ),
    )
    if edit.detail is not None and "new" in edit.detail:
        return int(edit.detail["new"])
    return edit.entity_id
