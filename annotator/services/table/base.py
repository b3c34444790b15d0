"""What every part of the door needs: the keys' scope of a project, the corpus's part of the
rule for a pseudonym (`in_corpus`, handed over as the app starts: the door reads no
document), and the audit of a person's read of the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from annotator.audit import audit_record
from annotator.keys.reads import KeyFilters
from annotator.models import AuditAction, Project

# Whether a pseudonym occurs in a document of a project (project id, pseudonym): a read of
# the corpus, which the door does not make itself. The app hands it over as it starts
# (`annotator.apps`: `annotator.selectors.corpus.in_corpus`); a test may hand another.
CorpusCheck = Callable[[int, str], bool]
_corpus_check: CorpusCheck | None = None


def corpus_check_set(check: CorpusCheck) -> None:
    """Give the door its read of the corpus (`in_corpus`)."""
    global _corpus_check
    _corpus_check = check


def in_corpus(project: Project, replacement: str) -> bool:
    """Whether `replacement` occurs in a document of the project, as the known-entity
    recognizer would find it: the corpus's rule for a pseudonym, which the table applies."""
    if _corpus_check is None:
        raise ImproperlyConfigured("the door to the keys was given no read of the corpus")
    return _corpus_check(project.pk, replacement)


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
