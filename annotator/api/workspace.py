"""What the document page does that the span API did not: proposals accepted or rejected
together, and the document as a release would render it now.

    POST /api/projects/{slug}/documents/{id}/spans/bulk/    status, label and/or source
    GET  /api/projects/{slug}/documents/{id}/preview/       ?strategy=

The same rules as the page (annotator.views.span_actions, annotator.views.workspace): whoever
may open the document (annotator.permissions.can_view_document) acts on it; the writes go
through annotator.services.spans, the rendering through annotator.selectors.rendering.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.spans import DocumentScoped
from annotator.models import SOURCE_CHOICES, STRATEGY_CHOICES, Span, SpanStatus
from annotator.permissions import Can
from annotator.selectors.rendering import document_rendered
from annotator.services.spans import span_choices, spans_decide_all


class SpansBulkSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(
        choices=[SpanStatus.ACCEPTED, SpanStatus.REJECTED],
        help_text="accepted: accept the proposals; rejected: reject them",
    )
    # The metaclass takes it as a field; mypy sees Field.label, the field's title.
    label = StrictCharField(  # type: ignore[assignment]
        max_length=64, required=False, allow_blank=True, help_text="Only proposals of this label"
    )
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=SOURCE_CHOICES, required=False, help_text="Only proposals from this source"
    )

    # As on the page: a label or a source, so that one request never decides everything
    # (the schema says so too: annotator.api.schema).
    schema_any_of = (
        {"required": ["label"], "properties": {"label": {"minLength": 1}}},
        {"required": ["source"]},
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("label") and not attrs.get("source"):
            raise serializers.ValidationError("choose a label or a source")
        return attrs


class BulkOutcomeSerializer(serializers.Serializer[Any]):
    changed = serializers.IntegerField(help_text="Proposals accepted or rejected")
    conflicts = serializers.IntegerField(
        help_text="Proposals left: their surface is decided otherwise in the project, or they "
        "overlap a span a person decided; decide them one by one"
    )


class SpansBulk(DocumentScoped, generics.GenericAPIView[Span]):
    """Accept every proposal of a label, or reject every proposal of a source, in one document
    (the page's "accept all" / "reject all"). Each proposal is decided as one person's
    change; one whose surface the project decided otherwise stays a proposal."""

    required_capability = Can.ANNOTATE
    # What POST reads: OPTIONS describes it from here.
    serializer_class = SpansBulkSerializer

    @extend_schema(request=SpansBulkSerializer, responses={200: BulkOutcomeSerializer})
    def post(self, request: Request, slug: str, pk: int) -> Response:
        form = SpansBulkSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        outcome = spans_decide_all(
            document=self.get_document(),
            actor=request.user,
            status=form.validated_data["status"],
            label=form.validated_data.get("label") or None,
            source=form.validated_data.get("source") or None,
        )
        return Response({"changed": outcome.changed, "conflicts": outcome.conflicts})


class PreviewQuerySerializer(serializers.Serializer[Any]):
    strategy = serializers.ChoiceField(
        choices=STRATEGY_CHOICES, required=False, help_text="Left out: the project's strategy"
    )


class RenderedSpanSerializer(serializers.Serializer[Any]):
    start = serializers.IntegerField(help_text="Code points, in the rendered text")
    end = serializers.IntegerField()
    # The metaclass takes it as a field; mypy sees Field.label, the field's title.
    label = StrictCharField()  # type: ignore[assignment]


class PreviewSerializer(serializers.Serializer[Any]):
    strategy = serializers.ChoiceField(choices=STRATEGY_CHOICES)
    text = StrictCharField(help_text="The document as a release would render it now")
    spans = RenderedSpanSerializer(many=True, help_text="What stands for each original")
    undecided = serializers.IntegerField(help_text="Proposals no one has decided: left as they are")
    problem = StrictCharField(
        allow_blank=True, help_text="Why it cannot be rendered yet; blank when it can"
    )


class DocumentPreview(DocumentScoped, generics.GenericAPIView[Span]):
    """The document as a release would render it now, under the project's strategy or the one
    asked for: what its decisions so far put in place of each original."""

    required_capability = Can.VIEW_PROJECT
    query_serializer = PreviewQuerySerializer

    @extend_schema(responses={200: PreviewSerializer})
    def get(self, request: Request, slug: str, pk: int) -> Response:
        document = self.get_document()
        strategy = self.query.get("strategy") or document.project.strategy
        rendered = document_rendered(document, strategy, choices_of=span_choices)
        return Response(
            {
                "strategy": strategy,
                "text": rendered.text,
                "spans": [
                    {"start": span.start, "end": span.end, "label": span.label}
                    for span in rendered.spans
                ],
                "undecided": rendered.undecided,
                "problem": rendered.problem,
            }
        )
