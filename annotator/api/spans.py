"""The span API: a document's spans, each change a person makes, and pseudonym suggestions.

    GET    /api/projects/{slug}/documents/{id}/spans/
    POST   /api/projects/{slug}/documents/{id}/spans/                     start, end, label, …
    PATCH  /api/projects/{slug}/documents/{id}/spans/{span_id}/           version + changes
    DELETE /api/projects/{slug}/documents/{id}/spans/{span_id}/?version=N
    GET    /api/projects/{slug}/documents/{id}/spans/{span_id}/suggestions/

Offsets are code points; the document's text is never sent with a span. Views stay thin: the
rules are in annotator.permissions, the writes in annotator.services.spans.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictBooleanField, StrictCharField
from annotator.api.parsers import BoundedJSONParser
from annotator.api.views import ProjectScoped
from annotator.errors import StaleVersion
from annotator.models import DECISION_CHOICES, Document, ReviewKind, ReviewStatus, Span, SpanStatus
from annotator.permissions import Can, document_or_404
from annotator.services.spans import (
    SpanChange,
    pseudonym_chosen,
    pseudonym_suggestions,
    span_choices,
    span_create,
    span_delete,
    span_update,
)
from annotator.services.table import Choice, SurfaceConflict
from pseudonymizer.vocabulary import MAX_KEEP_REASON, Decision

STATUS_CHOICES = [(value, label) for value, label in SpanStatus.choices]


class SpanSerializer(serializers.ModelSerializer[Span]):
    """A span as the API shows it: `replacement` is the correspondence table's choice for the
    span's surface (what the annotator is allowed to see of it), `flagged` whether a flag
    for the lead is open."""

    replacement = serializers.SerializerMethodField()
    flagged = serializers.SerializerMethodField()
    decided_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    updated_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = Span
        fields = [
            "id", "start", "end", "label", "source", "score", "status", "decision",
            "keep_reason", "replacement", "entity_id", "flagged", "version", "created_at",
            "decided_by", "decided_at", "updated_by", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_replacement(self, span: Span) -> str | None:
        choices: dict[int, Choice] = self.context.get("choices", {})
        choice = choices.get(span.pk)
        return choice.replacement if choice is not None else None

    def get_flagged(self, span: Span) -> bool:
        flagged: set[int] = self.context.get("flagged", set())
        return span.pk in flagged


def span_context(document: Document, spans: list[Span]) -> dict[str, Any]:
    """What SpanSerializer needs for `spans`, read in two queries whatever their number."""
    flagged = set(
        document.review_items.filter(
            kind=ReviewKind.FLAG, status=ReviewStatus.OPEN, span__isnull=False
        ).values_list("span_id", flat=True)
    )
    return {"choices": span_choices(document, spans), "flagged": flagged}


def span_data(document: Document, span: Span) -> dict[str, Any]:
    return dict(SpanSerializer(span, context=span_context(document, [span])).data)


class SpanCreateSerializer(serializers.Serializer[Any]):
    start = serializers.IntegerField(min_value=0, max_value=2**31 - 1, help_text="Code points")
    end = serializers.IntegerField(min_value=1, max_value=2**31 - 1, help_text="Code points")
    # The metaclass takes it as a field; mypy sees Field.label, the field's title.
    label = StrictCharField(max_length=64)  # type: ignore[assignment]
    decision = serializers.ChoiceField(choices=DECISION_CHOICES, default=Decision.PSEUDONYMIZE)
    keep_reason = StrictCharField(max_length=MAX_KEEP_REASON, required=False, allow_blank=True)
    replacement = StrictCharField(max_length=500, required=False)
    confirm = StrictBooleanField(
        required=False,
        help_text="Decide less than a word (a single letter, a piece of a word) as it is; "
        "without it such a decision is refused with 400 and changes nothing",
    )


class SpanPatchSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(
        min_value=1, max_value=2**31 - 1, help_text="The version you read"
    )
    status = serializers.ChoiceField(choices=STATUS_CHOICES, required=False)
    label = StrictCharField(max_length=64, required=False)  # type: ignore[assignment]
    start = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False)
    end = serializers.IntegerField(min_value=1, max_value=2**31 - 1, required=False)
    decision = serializers.ChoiceField(choices=DECISION_CHOICES, required=False)
    keep_reason = StrictCharField(max_length=MAX_KEEP_REASON, required=False, allow_blank=True)
    replacement = StrictCharField(max_length=500, required=False)
    flag = StrictCharField(
        max_length=5000, required=False, help_text="Flag the span for the lead, with a comment"
    )
    confirm = StrictBooleanField(
        required=False,
        help_text="Decide less than a word (a single letter, a piece of a word) as it is, or "
        "relabel a decided span whose entity other spans hold (they all follow); without it "
        "either is refused with 400 and changes nothing",
    )


class SpanDeleteQuery(serializers.Serializer[Any]):
    version = serializers.IntegerField(min_value=1, max_value=2**31 - 1)


SpanConflictSerializer = inline_serializer(
    "SpanConflict",
    {
        "detail": StrictCharField(),
        "current": SpanSerializer(required=False),
        "winner": inline_serializer(
            "SurfaceChoice",
            {
                "entity_id": serializers.IntegerField(),
                "decision": serializers.ChoiceField(choices=DECISION_CHOICES),
                "replacement": StrictCharField(),
                "keep_reason": StrictCharField(),
                "label": StrictCharField(),
            },
            required=False,
        ),
    },
)


class DocumentScoped(ProjectScoped):
    """Views under a document: 404 for a document the caller may not open. Bodies are JSON
    only: a form would read an empty field as an absent one."""

    parser_classes = [BoundedJSONParser]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        # Before the body is read: a document the caller may not open is a 404, never a 415
        # or a 400 that would tell it exists.
        self.get_document()

    def get_document(self) -> Document:
        if not hasattr(self, "_document"):
            documents = Document.objects.defer("search_text")
            self._document = document_or_404(
                self.request.user, self.get_project(), self.kwargs["pk"], documents
            )
        return self._document

    def conflict(self, error: StaleVersion | SurfaceConflict) -> Response:
        body: dict[str, Any] = {"detail": str(error)}
        if isinstance(error, StaleVersion) and isinstance(error.current, Span):
            body["current"] = span_data(self.get_document(), error.current)
        if isinstance(error, SurfaceConflict):
            body["winner"] = error.winner.as_dict()
        return Response(body, status=status.HTTP_409_CONFLICT)


class SpanList(DocumentScoped, generics.ListAPIView[Span]):
    """A document's spans in text order; POST adds a span a person found (accepted)."""

    serializer_class = SpanSerializer
    capability_by_method = {"POST": Can.ANNOTATE}
    conflict_responses = ("POST",)

    def get_queryset(self) -> Any:
        return (
            Span.objects.for_document(self.get_document())
            .select_related("decided_by", "updated_by")
            .order_by("start", "end", "id")
        )

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        page = getattr(self, "_page_spans", None)
        if page is not None:
            context.update(span_context(self.get_document(), page))
        return context

    def paginate_queryset(self, queryset: Any) -> list[Any] | None:
        page = super().paginate_queryset(queryset)
        self._page_spans = list(page) if page is not None else list(queryset)
        return page

    @extend_schema(
        request=SpanCreateSerializer,
        responses={201: SpanSerializer, 409: SpanConflictSerializer},
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        form = SpanCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        document = self.get_document()
        try:
            span = span_create(
                document=document,
                actor=request.user,
                start=data["start"],
                end=data["end"],
                label=data["label"],
                decision=data["decision"],
                keep_reason=data.get("keep_reason", ""),
                replacement=data.get("replacement"),
                confirm=data.get("confirm", False),
            )
        except SurfaceConflict as error:
            return self.conflict(error)
        return Response(span_data(document, span), status=status.HTTP_201_CREATED)


class SpanDetail(DocumentScoped, generics.RetrieveAPIView[Span]):
    """One span; PATCH changes it (with the version you read), DELETE removes a span a person
    added and rejects any other."""

    serializer_class = SpanSerializer
    capability_by_method = {"PATCH": Can.ANNOTATE, "DELETE": Can.ANNOTATE}
    conflict_responses = ("PATCH", "DELETE")

    def get_object(self) -> Span:
        document = self.get_document()
        return get_object_or_404(Span, document=document, pk=self.kwargs["span_id"])

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return Response(span_data(self.get_document(), self.get_object()))

    @extend_schema(
        request=SpanPatchSerializer,
        responses={200: SpanSerializer, 409: SpanConflictSerializer},
    )
    def patch(self, request: Request, slug: str, pk: int, span_id: int) -> Response:
        form = SpanPatchSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = dict(form.validated_data)
        version = data.pop("version")
        document = self.get_document()
        try:
            span = span_update(
                document=document,
                span_id=span_id,
                actor=request.user,
                version=version,
                change=SpanChange(**data),
            )
        except (StaleVersion, SurfaceConflict) as error:
            return self.conflict(error)
        return Response(span_data(document, span))

    @extend_schema(
        parameters=[SpanDeleteQuery],
        responses={204: None, 409: SpanConflictSerializer},
    )
    def delete(self, request: Request, slug: str, pk: int, span_id: int) -> Response:
        form = SpanDeleteQuery(data=request.query_params.dict())
        form.is_valid(raise_exception=True)
        try:
            span_delete(
                document=self.get_document(),
                span_id=span_id,
                actor=request.user,
                version=form.validated_data["version"],
            )
        except StaleVersion as error:
            return self.conflict(error)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def query_parameter_names(self, request: Request) -> set[str]:
        names = super().query_parameter_names(request)
        return names | {"version"} if request.method == "DELETE" else names


SuggestionsSerializer = inline_serializer(
    "SpanSuggestions",
    {
        "chosen": StrictCharField(allow_null=True),
        "suggestions": serializers.ListField(child=StrictCharField()),
    },
)


class SpanSuggestions(DocumentScoped, generics.GenericAPIView[Span]):
    """Pseudonyms for the span's surface: the one already chosen for it first (`chosen`),
    then fresh ones that keep its shape and equal no original of the project."""

    required_capability = Can.ANNOTATE

    @extend_schema(
        responses={200: SuggestionsSerializer},
        parameters=[OpenApiParameter("span_id", int, OpenApiParameter.PATH)],
    )
    def get(self, request: Request, slug: str, pk: int, span_id: int) -> Response:
        document = self.get_document()
        span = get_object_or_404(Span, document=document, pk=span_id)
        surface = document.text[span.start : span.end]
        suggestions = pseudonym_suggestions(document, surface, span.label)
        chosen = pseudonym_chosen(document, surface)
        return Response(
            {
                "chosen": chosen.replacement if chosen is not None else None,
                "suggestions": suggestions,
            }
        )
