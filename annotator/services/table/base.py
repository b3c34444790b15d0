"""What every part of the door needs: the keys' scope of a project, the Domain's part of the
rule for a pseudonym (`in_corpus`), and the audit of a person's read of the table."""

from __future__ import annotations

from typing import Any

from annotator.keys.reads import KeyFilters
from annotator.keys.scope import Scope
from annotator.models import AuditAction, Document, Project
from annotator.selectors.corpus import documents_holding, in_chunks
from annotator.services.audit import audit_record
from pseudonymizer.folding import fold_key
from pseudonymizer.recognizers.known import KnownEntityRecognizer


def scope_of(project: Project) -> Scope:
    return Scope(project.pk, project.secret)


def in_corpus(project: Project, replacement: str) -> bool:
    """Whether `replacement` occurs in a document of the project where the known-entity
    recognizer would find it (case, accents, Arabic variants and proclitics as it reads
    them): the database narrows the documents by a substring of their folded text
    (`documents_holding`, as propagation does)."""
    key = fold_key(replacement)
    if len(key) < 2:
        return False
    if key.startswith("\u0627\u0644") and len(key) > 3:
        key = key[1:]  # found with its article's alef elided too
    matcher = KnownEntityRecognizer([(replacement, "X")])
    for chunk in in_chunks(documents_holding(project.pk, [key]), 100):
        texts = Document.objects.filter(pk__in=chunk).values_list("text", flat=True)
        if any(matcher.recognize_one(text) for text in texts):
            return True
    return False


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
