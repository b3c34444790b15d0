"""The table as annotators, workers and the other services reach it: the choice for a
surface, the one way a choice gets into it, a person's own choice taken back, suggestions,
and what the workers read (known surfaces, a release's originals, the review's scan).

None of these shows a person the table (an annotator learns only the choice for a surface
they are annotating), so none is audited; the originals some of them decrypt are for the
workers, never for a page or a log.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction

from annotator.audit import audit_record
from annotator.keys import crypto, surfaces
from annotator.keys.edits import entity_relabel as _relabel
from annotator.keys.edits import project_keys_delete as _project_keys_delete
from annotator.keys.reads import NamedAlias
from annotator.keys.surfaces import SUGGESTIONS, Choice
from annotator.models import AuditAction, Project, ReviewItem, Span, SpanSource, SpanStatus
from annotator.permissions import acting_user_id
from annotator.routers import keys_alias
from annotator.services.table.base import in_corpus

__all__ = ["SUGGESTIONS", "Choice", "NamedAlias"]

# The table's rule for when two surfaces are one (the engine's matching form).
normalise_surface = crypto.normalise_surface


def surface_digest(project: Project, surface: str) -> str:
    """The keyed digest of `surface` in the project, as the table looks surfaces up."""
    return crypto.surface_digest(project.secret, surface)


def _spans_of(project: Project, entity_id: int, span_id: int | None) -> Any:
    """The spans of the project that hold `entity_id`, but `span_id`."""
    spans = Span.objects.filter(document__project=project, entity_id=entity_id)
    return spans.exclude(pk=span_id) if span_id is not None else spans


def surface_decide(
    *,
    project: Project,
    surface: str,
    language: str,
    label: str,
    decision: str,
    replacement: str | None = None,
    keep_reason: str = "",
    actor: Any = None,
    span_id: int | None = None,
) -> Choice:
    """Record `decision` for `surface`, or find it recorded; the surface's choice.

    A surface with another choice raises SurfaceConflict with it, unless the choice is the
    caller's own and no span but `span_id` (the span being decided) holds its entity: then
    it is changed (`annotator.keys.surfaces.surface_decide`)."""
    return surfaces.surface_decide(
        project,
        surface=surface,
        language=language,
        label=label,
        decision=decision,
        replacement=replacement,
        keep_reason=keep_reason,
        in_corpus=lambda text: in_corpus(project, text),
        user_id=acting_user_id(actor),
        relied_on=lambda entity_id: _spans_of(project, entity_id, span_id).exists(),
    )


def entity_withdraw(*, project: Project, entity_id: int, actor: Any, span_id: int) -> bool:
    """Take a person's own choice out of the table once the span that made it no longer holds
    its surface (its edge moved, it was rejected or deleted) and nothing else relies on it:
    the entity, its aliases, and the untouched proposals propagation made of it. Otherwise a
    slip ("Banque" selected before "Banque Laurentide") would stay an identifier of the
    project, proposed wherever the word occurs and refused in every release that holds it.
    False, changing nothing, when someone else made the choice, another name was linked to
    it, a span a person touched or a review item relies on it.

    Written in the order of the table's edits (`annotator.services.table.edits`): the keys
    (the entity locked), then the proposals on the default database, then the keys
    committed."""
    spans = _spans_of(project, entity_id, span_id)
    echoes = spans.filter(source=SpanSource.KNOWN, status=SpanStatus.PROPOSED)

    def relied_on() -> bool:
        return (
            spans.exclude(pk__in=echoes).exists()
            or ReviewItem.objects.filter(project=project, entity_id=entity_id).exists()
        )

    with transaction.atomic(using=keys_alias()):
        withdrawn = surfaces.entity_withdraw(
            project,
            entity_id=entity_id,
            user_id=acting_user_id(actor),
            relied_on=relied_on,
        )
        if withdrawn:
            echoes.delete()
            audit_record(action=AuditAction.KEY_EDIT, actor=actor, project=project,
                         target=f"entity:{entity_id}", detail={"change": "withdrawn"})  # fmt: skip
    return withdrawn


def pseudonyms_draw_ahead(project: Project, wanted: Iterable[tuple[str, str, str]]) -> int:
    """Draw ahead, on the worker, the pseudonyms the decisions of (surface, label, language)
    would draw, for those decisions to take (`annotator.keys.drawn_ahead`); how many."""
    return surfaces.surfaces_draw_ahead(
        project, wanted, in_corpus=lambda text: in_corpus(project, text)
    )


# --- What the review's scan reads and writes -----------------------------------------------


def entity_relabel(project: Project, entity_id: int, label: str) -> None:
    """Give the entity `label` (a lead's resolution of a review item); the pseudonyms drawn
    for its names are drawn again for the label."""
    _relabel(project, entity_id, label, in_corpus=lambda t: in_corpus(project, t))


def project_keys_delete(project_id: int) -> None:
    """Everything the keys hold of a project (its deletion)."""
    _project_keys_delete(project_id)
