"""A document as it will be released: its accepted spans rendered by the engine's strategies
(pseudonymizer.strategies.render) from the project's decisions and correspondence table.

The workspace previews one document with it, proposals still undecided left as they are; a
release renders through the engine's release pipeline (pseudonymizer.release), from the same
table: pseudonyms and invalidated forms are the table's, here and there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Protocol

from annotator.models import Document, Span, SpanStatus
from pseudonymizer.spans import Span as EngineSpan
from pseudonymizer.strategies import Strategy, default_entity, render
from pseudonymizer.vocabulary import Decision


class Choice(Protocol):
    """What a rendering reads of the table's choice for a span (the table's own choice,
    handed in by the Domain, which reaches the keys)."""

    @property
    def replacement(self) -> str: ...


# The table's choice for each span not rejected, by span id (services.spans.span_choices).
ChoicesOf = Callable[[Document, list[Span]], Mapping[int, Choice]]


@dataclass(frozen=True)
class RenderedDocument:
    text: str
    # The spans of what stands in the text for the originals, in its own code points.
    spans: list[EngineSpan] = field(default_factory=list)
    # Proposals no one has decided: they stay as they are in this rendering.
    undecided: int = 0
    # Why the document cannot be rendered yet ("" when it can): two accepted spans overlap.
    problem: str = ""


def document_rendered(
    document: Document,
    strategy: Strategy | str,
    *,
    choices_of: ChoicesOf,
    numbering: MutableMapping[object, int] | None = None,
    spans: Iterable[Span] | None = None,
) -> RenderedDocument:
    """`document` under `strategy`, from its accepted spans and their decisions.

    `spans` (the document's spans; rejected ones are skipped) are read from the database when
    not given. `choices_of` gives the table's choice for each accepted span, by span id: the
    Domain's read of the table (annotator.services.spans.span_choices), which a selector does
    not reach itself.
    """
    if spans is None:
        spans = Span.objects.for_document(document).exclude(status=SpanStatus.REJECTED)
    spans = [span for span in spans if span.status != SpanStatus.REJECTED]
    accepted = [span for span in spans if span.status == SpanStatus.ACCEPTED]
    undecided = len(spans) - len(accepted)
    choices = choices_of(document, accepted)
    by_place = {(span.start, span.end): span for span in accepted}

    def replacement(span: EngineSpan, surface: str) -> str:
        choice = choices.get(by_place[(span.start, span.end)].pk)
        # An accepted span always has a choice; were one missing, its label stands in.
        return choice.replacement if choice and choice.replacement else f"[{span.label}]"

    # The invalidated form the table holds (one source for it, as in a release): one surface,
    # one choice. Were one missing, the label stands in.
    invalidated: dict[str, str] = {}
    for span in accepted:
        if span.decision == Decision.INVALIDATE:
            choice = choices.get(span.pk)
            surface = document.text[span.start : span.end]
            invalidated[surface] = (
                choice.replacement if choice and choice.replacement else (f"[{span.label}]")
            )

    def entity_of(span: EngineSpan, surface: str) -> object:
        entity = by_place[(span.start, span.end)].entity_id
        return ("entity", entity) if entity is not None else default_entity(span, surface)

    engine_spans = [
        EngineSpan(span.start, span.end, span.label, span.score, span.source, span.decision)
        for span in accepted
    ]
    try:
        rendered = render(
            document.text,
            engine_spans,
            strategy,
            replacement=replacement,
            entity_of=entity_of,
            invalidate=invalidated.__getitem__,
            numbering=numbering,
        )
    except ValueError as problem:
        return RenderedDocument(document.text, [], undecided, str(problem))
    return RenderedDocument(rendered.text, rendered.spans, undecided)
