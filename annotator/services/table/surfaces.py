"""The table as annotators, workers and the other services reach it: the choice for a
surface, the one way a choice gets into it, a person's own choice taken back, suggestions,
and what the workers read (known surfaces, a release's originals, the review's scan).

None of these shows a person the table (an annotator learns only the choice for a surface
they are annotating), so none is audited; the originals some of them decrypt are for the
workers, never for a page or a log.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any

from django.db import transaction

from annotator.audit import audit_record
from annotator.keys import crypto, reads, surfaces
from annotator.keys.edits import entity_relabel as _relabel
from annotator.keys.edits import project_keys_delete as _project_keys_delete
from annotator.keys.notes import pseudonym_digest as _pseudonym_digest
from annotator.keys.reads import NamedAlias
from annotator.keys.surfaces import SUGGESTIONS, Choice
from annotator.models import AuditAction, Project, ReviewItem, Span, SpanSource, SpanStatus
from annotator.permissions import acting_user_id
from annotator.routers import keys_alias
from annotator.services.table.base import in_corpus, scope_of

__all__ = ["SUGGESTIONS", "Choice", "NamedAlias"]

# The table's rule for when two surfaces are one (the engine's matching form).
normalise_surface = crypto.normalise_surface


def surface_digest(project: Project, surface: str) -> str:
    """The keyed digest of `surface` in the project, as the table looks surfaces up."""
    return crypto.surface_digest(project.secret, surface)


def pseudonym_digest(project: Project, pseudonym: str) -> str:
    """A pseudonym as a review fingerprint holds it: keyed; "" for none."""
    return _pseudonym_digest(scope_of(project), pseudonym)


def surface_choice(project: Project, surface: str) -> Choice | None:
    """The choice recorded for `surface` (compared as aliases are), or None."""
    return surfaces.surface_choice(scope_of(project), surface)


def surface_choices(project: Project, wanted: Iterable[str]) -> dict[str, Choice]:
    """The recorded choice of each of `wanted` that has one, in one query."""
    return surfaces.surface_choices(scope_of(project), wanted)


def suggestions_for(
    project: Project, surface: str, label: str, language: str, *, count: int = SUGGESTIONS
) -> list[str]:
    """Pseudonyms for `surface`: the one chosen for it first, then fresh ones."""
    return surfaces.suggestions_for(scope_of(project), surface, label, language, count=count)


def known_surfaces(project: Project) -> list[tuple[str, str]]:
    """Every decided surface of the project as (surface, label): for the workers."""
    return surfaces.known_surfaces(scope_of(project))


def alias_family(project: Project, alias_ids: Collection[int]) -> list[tuple[Choice, str]]:
    """Aliases and the words cut from them, each as its choice with its original: for the
    propagation task."""
    return surfaces.alias_family(scope_of(project), alias_ids)


def release_aliases(project: Project) -> Iterator[tuple[str, str, bool]]:
    """(original, label, kept) of every alias of the project: for the release worker."""
    return reads.release_aliases(scope_of(project))


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
        scope_of(project),
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
            scope_of(project),
            entity_id=entity_id,
            user_id=acting_user_id(actor),
            relied_on=relied_on,
        )
        if withdrawn:
            echoes.delete()
            audit_record(action=AuditAction.KEY_EDIT, actor=actor, project=project,
                         target=f"entity:{entity_id}", detail={"change": "withdrawn"})  # fmt: skip
    return withdrawn


# --- What the review's scan reads and writes -----------------------------------------------


def entity_decisions(project: Project) -> dict[int, tuple[str, str]]:
    """Every entity of the project: its id → (decision, label)."""
    return reads.entity_decisions(scope_of(project))


def replaced_groups(project: Project, chunk: int) -> Iterator[tuple[int, str, list[NamedAlias]]]:
    """(entity id, language, aliases) of each entity with two replaced aliases or more in
    one language; decrypts those originals, for the scan."""
    return reads.replaced_groups(scope_of(project), chunk)


def replacements(project: Project, chunk: int) -> Iterator[tuple[int, int, str, str, str]]:
    """(alias id, entity id, language, replacement, label) of every replaced alias."""
    return reads.replacements(scope_of(project), chunk)


def named_apart(project: Project, chunk: int) -> Iterator[tuple[int, int, str]]:
    """(entity of the wider name, entity of the name it holds, label): one place or person
    decided as two entities, with and without a head word (`annotator.keys.reads`)."""
    return reads.named_apart(scope_of(project), chunk)


def entity_names(project: Project, entity_id: int) -> dict[int, str]:
    """The entity's full aliases (not the words cut from them) → their replacements."""
    return reads.entity_names(scope_of(project), entity_id)


def alias_of(project: Project, surface: str) -> int | None:
    """The id of the alias of `surface`, or None."""
    return reads.alias_of(scope_of(project), surface)


def entity_relabel(project: Project, entity_id: int, label: str) -> None:
    """Give the entity `label` (a lead's resolution of a review item); the pseudonyms drawn
    for its names are drawn again for the label."""
    _relabel(scope_of(project), entity_id, label, in_corpus=lambda t: in_corpus(project, t))


def project_keys_delete(project_id: int) -> None:
    """Everything the keys hold of a project (its deletion)."""
    _project_keys_delete(project_id)
