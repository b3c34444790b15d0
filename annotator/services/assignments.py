"""Who works on which document: each document has one assignee, its language's annotator.

A document that arrives (an import) or that nobody holds when an annotator joins goes to the
annotator of its language: the one who joined the project first, as the design has one
annotator per language. An admin reassigns one document or many, to any member who may open
them, or to nobody. A document keeps its assignee when memberships change later: only an
admin moves work that someone has.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotator.audit import audit_record
from annotator.errors import DomainError
from annotator.models import AuditAction, Document, Project
from annotator.permissions import access_for
from annotator.selectors.assignments import annotators_by_language

# How many documents one reassignment may name: a page's selection, or a script's batch.
MAX_ASSIGN = 10_000


def documents_assign_arrivals(*, project: Project, languages: Iterable[str] | None = None) -> int:
    """Give each unassigned document of `project` (of `languages`, or all) to its language's
    annotator; the number assigned. One UPDATE per language, whatever the number of
    documents."""
    wanted = set(languages) if languages is not None else None
    assigned = 0
    for language, user in annotators_by_language(project).items():
        if wanted is not None and language not in wanted:
            continue
        # A replica nobody holds is not the first annotator's to take: an admin gives it.
        assigned += Document.objects.filter(
            project=project, language=language, assignee__isnull=True, replica_of__isnull=True
        ).update(assignee=user, updated_at=timezone.now())
    return assigned


@transaction.atomic
def documents_assign(
    *,
    project: Project,
    actor: Any,
    document_ids: Sequence[int],
    assignee: str | None,
) -> int:
    """Give the documents `document_ids` of `project` to the member named `assignee` (None:
    to nobody); the number changed. Refused whole, changing nothing, when an id is not a
    document of the project or the assignee may not open one of them."""
    ids = sorted(set(document_ids))
    if not ids:
        raise DomainError("name at least one document to assign")
    if len(ids) > MAX_ASSIGN:
        raise DomainError(f"at most {MAX_ASSIGN} documents at once")
    documents = Document.objects.filter(project=project, pk__in=ids)
    found = dict(documents.values_list("pk", "language"))
    missing = [pk for pk in ids if pk not in found]
    if missing:
        shown = ", ".join(str(pk) for pk in missing[:10])
        raise DomainError(f"not documents of {project.slug}: {shown}")
    user = None
    if assignee:
        user = get_user_model().objects.filter(username=assignee).first()
        access = access_for(user, project)
        if user is None or not access.is_member:
            raise DomainError(f"{assignee!r} is not a member of {project.slug}")
        unseen = sorted({lang for lang in found.values() if not access.can_see_language(lang)})
        if unseen:
            raise DomainError(
                f"{assignee} does not work on {', '.join(unseen)}: "
                "assign those documents to a member who does"
            )
        # Blind double annotation: nobody holds both a document and its replica.
        paired = sorted(
            set(
                documents.filter(
                    Q(replica_of__assignee=user) | Q(replicas__assignee=user)
                ).values_list("pk", flat=True)
            )
        )
        if paired:
            shown = ", ".join(str(pk) for pk in paired[:10])
            raise DomainError(
                f"{assignee} holds the other half of a double annotation of {shown}: "
                "give those documents to someone else"
            )
    changed = documents.exclude(assignee=user) if user else documents.exclude(assignee=None)
    count = changed.update(assignee=user, updated_at=timezone.now())
    audit_record(
        action=AuditAction.ASSIGN,
        actor=actor,
        project=project,
        target=f"user:{user.pk}" if user else "",
        detail={"documents": len(ids), "changed": count, "unassigned": user is None},
    )
    return count
