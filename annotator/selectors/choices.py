"""What whoever annotates a document sees of the correspondence table: the one choice for the
surface of each span they work on, and pseudonyms to suggest. A replica (blind double
annotation) sees none of the project's choices: they would show the first annotator's.
"""

from __future__ import annotations

from annotator.keys.services import (
    SUGGESTIONS,
    Choice,
    suggestions_for,
    surface_choice,
    surface_choices,
)
from annotator.models import Document, Span, SpanStatus


def span_choices(document: Document, spans: list[Span]) -> dict[int, Choice]:
    """The correspondence-table choice for the surface of each span of `document` that is not
    rejected, by span id: the one replacement for a surface the caller is annotating (already
    chosen elsewhere, it is preselected), and nothing else of the table. None for a replica:
    its annotator is blind to the choices of the project, the first annotator's among them."""
    if document.replica_of_id is not None:
        return {}
    surfaces = {
        span.pk: document.text[span.start : span.end]
        for span in spans
        if span.status != SpanStatus.REJECTED
    }
    choices = surface_choices(document.project, surfaces.values())
    return {
        span_id: choices[surface] for span_id, surface in surfaces.items() if surface in choices
    }


def surface_pseudonyms(document: Document, surfaces: set[str]) -> dict[str, str]:
    """The pseudonym a row of `document` shows for each of `surfaces` (of spans not rejected)
    that has one: what `span_choices` gives its spans, by surface, for a caller that has
    offsets and no Span to build (the page's check of what changed). None for a replica."""
    if document.replica_of_id is not None:
        return {}
    choices = surface_choices(document.project, surfaces)
    return {surface: choice.replacement for surface, choice in choices.items()}


def pseudonym_chosen(document: Document, surface: str) -> Choice | None:
    """The choice the project holds for `surface`, as shown to whoever annotates `document`:
    none on a replica (blind to the first annotator's)."""
    if document.replica_of_id is not None:
        return None
    return surface_choice(document.project, surface)


def pseudonym_suggestions(
    document: Document, surface: str, label: str, *, count: int = SUGGESTIONS
) -> list[str]:
    """Pseudonyms for `surface` in `document` (`suggestions_for`). On a replica the one
    already chosen is not put first, nor anywhere: it would show the first annotator's
    choice; the fresh ones are as many as anywhere else."""
    if document.replica_of_id is None:
        return suggestions_for(document.project, surface, label, document.language, count=count)
    chosen = surface_choice(document.project, surface)
    if chosen is None:
        return suggestions_for(document.project, surface, label, document.language, count=count)
    wider = suggestions_for(document.project, surface, label, document.language, count=count + 1)
    return [s for s in wider if s != chosen.replacement][:count]
