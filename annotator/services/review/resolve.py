"""The lead's resolution of a review item: apply a decision to its entity everywhere,
or dismiss it; and comments on an item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from annotator.audit import audit_record
from annotator.errors import ConflictError, DomainError, NotFoundError
from annotator.models import (
    AuditAction,
    Comment,
    Document,
    Project,
    ReviewItem,
    ReviewStatus,
    Span,
    SpanStatus,
)
from annotator.permissions import acting_user
from annotator.services.decision_rules import check_decision, check_known_decision
from annotator.services.propagation import propagation_request
from annotator.services.table import (
    EntityChange,
    SurfaceConflict,
    alias_of,
    entity_names,
    entity_relabel,
    entity_update,
    review_note_write,
    surface_decide,
)
from pseudonymizer.vocabulary import REPLACED_DECISIONS, Decision

MAX_RATIONALE = 5000
MAX_COMMENT = 5000
RESOLVE = "resolve"
DISMISS = "dismiss"


def _locked_open(item: ReviewItem) -> ReviewItem:
    locked = (
        ReviewItem.objects.select_for_update(of=("self",))
        .select_related("project", "span", "document")
        .get(pk=item.pk)
    )
    if locked.status != ReviewStatus.OPEN:
        raise ConflictError(
            f"review item {locked.pk} is already resolved"
            + (f" ({locked.resolution.get('action')})" if locked.resolution else "")
        )
    return locked


def _check_rationale(rationale: str) -> str:
    rationale = (rationale or "").strip()
    if not rationale:
        raise DomainError("give a rationale: the annotators read it on their documents")
    if len(rationale) > MAX_RATIONALE:
        raise DomainError(f"a rationale is at most {MAX_RATIONALE} characters")
    return rationale


@dataclass(frozen=True)
class Applied:
    """What a resolution changed in the table."""

    aliases: list[int]  # the full aliases of the entity, to propagate
    replacement: str  # the subject alias's replacement now ("" when none)


def _apply_decision(
    *,
    project: Project,
    entity_id: int,
    decision: str,
    keep_reason: str,
    label: str | None,
    replacement: str | None,
    subject_alias_id: int | None,
    actor: Any,
    ip_address: str | None,
) -> Applied:
    """The lead's decision for an entity, in the correspondence table, through the keys'
    own edit (`annotator.services.table.entity_update`, audited as a key edit): its decision and
    reason, a fresh pseudonym for each surface that needs one, the pseudonym the lead typed
    for the subject alias; then its label."""
    if replacement and subject_alias_id is None:
        raise DomainError(
            "this item names no single surface to give a pseudonym: give a decision only"
        )
    replacements = {subject_alias_id: replacement} if replacement and subject_alias_id else {}
    try:
        entity_update(
            project=project,
            entity_id=entity_id,
            actor=actor,
            version=None,
            change=EntityChange(
                decision=decision, keep_reason=keep_reason, replacements=replacements
            ),
            ip_address=ip_address,
        )
    except NotFoundError:
        raise DomainError(
            "the entity of this item is no longer in the table (merged or removed): "
            "dismiss the item"
        ) from None
    if label:
        entity_relabel(project, entity_id, label)
    names = entity_names(project, entity_id)
    return Applied(list(names), names.get(subject_alias_id, "") if subject_alias_id else "")


def _subject_alias(project: Project, item: ReviewItem) -> int | None:
    """The alias a replacement the lead types is for: the one the item names, else the alias
    of its span's surface."""
    alias_id = item.detail.get("alias_id") if isinstance(item.detail, dict) else None
    if alias_id:
        return int(alias_id)
    if item.span is None:
        return None
    text = Document.objects.filter(pk=item.span.document_id).values_list("text", flat=True)[0]
    return alias_of(project, text[item.span.start : item.span.end])


def _entity_for_span(project: Project, span: Span, decision: str, actor: Any) -> int:
    """The entity of a span that has none yet (a flagged proposal): its surface's, recorded
    now if the table has none."""
    document = Document.objects.get(pk=span.document_id)
    try:
        choice = surface_decide(
            project=project,
            surface=document.text[span.start : span.end],
            language=document.language,
            label=span.label,
            decision=decision,
            actor=actor,
        )
    except SurfaceConflict as conflict:
        return conflict.winner.entity_id
    return choice.entity_id


@transaction.atomic
def review_resolve(
    *,
    item: ReviewItem,
    actor: Any,
    rationale: str,
    decision: str,
    replacement: str | None = None,
    label: str | None = None,
    keep_reason: str = "",
    ip_address: str | None = None,
) -> ReviewItem:
    """Apply the lead's `decision` (and pseudonym, label) to the item's entity: in the table,
    on every span of the entity in the corpus (a flagged proposal is accepted), and wherever
    its surfaces occur (propagation, a task). Raises DomainError (nothing changed) for a bad
    input, ConflictError when the item is resolved already."""
    rationale = _check_rationale(rationale)
    check_known_decision(decision)
    replacement = (replacement or "").strip() or None
    if replacement and decision not in REPLACED_DECISIONS:
        raise DomainError(f"a decision to {decision} takes no pseudonym")
    item = _locked_open(item)
    project = item.project
    if label and label not in project.labels:
        raise DomainError(f"unknown label {label!r}; the project's labels are "
                          f"{', '.join(project.labels)}")  # fmt: skip
    # Kept without a reason of its own: the rationale says why, when it fits as one.
    reason = (keep_reason or "").strip() or (rationale if decision == Decision.KEEP else "")
    keep_reason = check_decision(decision, reason, subject="entity")
    user = acting_user(actor)
    span = item.span
    entity_id = item.entity_id or (span.entity_id if span is not None else None)
    if entity_id is None:
        if span is None:
            raise DomainError("this item names no entity to decide: dismiss it")
        entity_id = _entity_for_span(project, span, decision, user)
    applied = _apply_decision(
        project=project,
        entity_id=entity_id,
        decision=decision,
        keep_reason=keep_reason,
        label=label,
        replacement=replacement,
        subject_alias_id=_subject_alias(project, item),
        actor=user,
        ip_address=ip_address,
    )
    now = timezone.now()
    changes: dict[str, Any] = {
        "decision": decision,
        "keep_reason": keep_reason,
        "version": F("version") + 1,
        "updated_by": user,
        "updated_at": now,
    }
    if label:
        changes["label"] = label
    # The keys' edit has the spans of the entity follow its decision; those it left (a label
    # changed, a keep reason) follow here, each changed once.
    behind = ~Q(decision=decision) | ~Q(keep_reason=changes["keep_reason"])
    if label:
        behind |= ~Q(label=label)
    following = Span.objects.on_originals().filter(document__project=project, entity_id=entity_id)
    following.exclude(status=SpanStatus.REJECTED).filter(behind).update(**changes)
    if span is not None and span.status != SpanStatus.REJECTED:
        # The item's own span: the lead's decision accepts it (a flagged proposal too).
        own = {**changes, "entity_id": entity_id}
        if span.status == SpanStatus.PROPOSED:
            own.update(status=SpanStatus.ACCEPTED, decided_by=user, decided_at=now)
        Span.objects.filter(pk=span.pk).filter(
            behind | Q(status=SpanStatus.PROPOSED) | ~Q(entity_id=entity_id)
        ).update(**own)
    for alias_id in applied.aliases:
        propagation_request(project_id=project.pk, alias_id=alias_id)
    resolution: dict[str, Any] = {
        "action": RESOLVE,
        "decision": decision,
        "entity_id": entity_id,
    }
    if label:
        resolution["label"] = label
    if applied.replacement:
        # The pseudonym applied, beside the item's span: kept with the keys.
        review_note_write(project, item_id=item.pk, resolution={"replacement": applied.replacement})
    return _close(item, user, rationale, resolution, ip_address)


@transaction.atomic
def review_dismiss(
    *, item: ReviewItem, actor: Any, rationale: str, ip_address: str | None = None
) -> ReviewItem:
    """Close the item as it stands, changing nothing else: the lead judged there is nothing
    to change. A scan does not raise the same conflict again while it stays the same."""
    rationale = _check_rationale(rationale)
    item = _locked_open(item)
    return _close(item, acting_user(actor), rationale, {"action": DISMISS}, ip_address)


def review_act(
    *,
    item: ReviewItem,
    actor: Any,
    action: str,
    rationale: str,
    decision: str | None = None,
    replacement: str | None = None,
    label: str | None = None,
    keep_reason: str = "",
    ip_address: str | None = None,
) -> ReviewItem:
    """What the lead's answer to an item asks, from the review page's form or the API:
    `RESOLVE` it with `decision` (and a pseudonym, a label: `review_resolve`) or `DISMISS` it
    (`review_dismiss`, which reads nothing else). An empty pseudonym or label is none."""
    if action == DISMISS:
        return review_dismiss(item=item, actor=actor, rationale=rationale, ip_address=ip_address)
    if action != RESOLVE:
        raise DomainError(f"unknown action {action!r}; actions are {RESOLVE}, {DISMISS}")
    return review_resolve(
        item=item, actor=actor, rationale=rationale, decision=decision or "",
        replacement=replacement or None, label=label or None, keep_reason=keep_reason,
        ip_address=ip_address,
    )  # fmt: skip


def _close(
    item: ReviewItem,
    user: Any,
    rationale: str,
    resolution: dict[str, Any],
    ip_address: str | None,
) -> ReviewItem:
    item.status = ReviewStatus.RESOLVED
    item.rationale = rationale
    item.resolution = resolution
    item.resolved_by = user
    item.resolved_at = timezone.now()
    item.save(update_fields=["status", "rationale", "resolution", "resolved_by", "resolved_at"])
    audit_record(
        action=AuditAction.REVIEW_RESOLVE,
        actor=user,
        project=item.project,
        target=f"review:{item.pk}",
        # Ids and decisions only: never a surface, nor the rationale's free text.
        detail={
            "kind": item.kind,
            "action": resolution["action"],
            "decision": resolution.get("decision", ""),
            "entity_id": resolution.get("entity_id", item.entity_id),
        },
        ip_address=ip_address,
    )
    return item


def review_comment(*, item: ReviewItem, actor: Any, body: str) -> Comment:
    """A comment on an item, open or resolved."""
    body = (body or "").strip()
    if not body:
        raise DomainError("a comment cannot be empty")
    if len(body) > MAX_COMMENT:
        raise DomainError(f"a comment is at most {MAX_COMMENT} characters")
    return Comment.objects.create(review_item=item, author=acting_user(actor), body=body)
