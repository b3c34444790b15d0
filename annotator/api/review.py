"""The lead's review queue in the API: list the items, read one with its comments, resolve or
dismiss it.

    GET  /api/projects/{slug}/review/                 ?kind=&status=&language=&limit=&offset=
    GET  /api/projects/{slug}/review/{id}/
    POST /api/projects/{slug}/review/{id}/resolve/    action, decision, replacement, rationale

Leads and admins only (Can.REVIEW): annotators get 403, outsiders 404. An item's `detail`
holds ids, labels, decisions, languages and pseudonyms, never an original; its pseudonyms (and
the one a resolution applied) are kept with the keys and read back for the answer, audited as
a read of the table (`annotator.services.table.review_notes_read`). Resolving an item that is
resolved already answers 409 with the item as it is.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.views import ProjectScoped
from annotator.audit import client_ip
from annotator.errors import ConflictError
from annotator.models import DECISION_CHOICES, Comment, ReviewItem, ReviewKind, ReviewStatus
from annotator.permissions import Can
from annotator.selectors.review import ALL_STATUSES, review_items, with_note
from annotator.services.review import resolve, scan
from annotator.services.table import Note, review_notes_read
from pseudonymizer.vocabulary import MAX_KEEP_REASON


class CommentSerializer(serializers.ModelSerializer[Comment]):
    author: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = Comment
        fields = ["id", "author", "body", "created_at"]
        read_only_fields = fields


class ReviewItemSerializer(serializers.ModelSerializer[ReviewItem]):
    """An item; its pseudonyms come from the `notes` of the context (item id → note), which
    the view read for the items it answers with (audited)."""

    language = serializers.SerializerMethodField()
    detail = serializers.SerializerMethodField()
    resolution = serializers.SerializerMethodField()
    raised_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    resolved_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    comment_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = ReviewItem
        fields = [
            "id", "kind", "status", "document", "span", "entity_id", "language", "detail",
            "resolution", "rationale", "raised_by", "resolved_by", "resolved_at", "created_at",
            "comment_count",
        ]  # fmt: skip
        read_only_fields = fields

    def get_language(self, item: ReviewItem) -> str:
        if item.document is not None:
            return item.document.language
        detail = item.detail if isinstance(item.detail, dict) else {}
        return str(detail.get("language", ""))

    def _note(self, item: ReviewItem) -> Note | None:
        notes: dict[int, Note] = self.context.get("notes") or {}
        return notes.get(item.pk)

    @extend_schema_field(serializers.JSONField())  # as the model's field
    def get_detail(self, item: ReviewItem) -> dict[str, Any]:
        return with_note(item, self._note(item))[0]

    @extend_schema_field(serializers.JSONField())  # as the model's field
    def get_resolution(self, item: ReviewItem) -> dict[str, Any]:
        return with_note(item, self._note(item))[1]


class ReviewItemDetailSerializer(ReviewItemSerializer):
    comments = CommentSerializer(many=True, read_only=True)

    class Meta(ReviewItemSerializer.Meta):
        fields = [*ReviewItemSerializer.Meta.fields, "comments"]
        read_only_fields = fields


class ReviewFilterSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=ReviewKind.choices, required=False)
    status = serializers.ChoiceField(
        choices=[*ReviewStatus.choices, (ALL_STATUSES, "Any status")],
        default=ReviewStatus.OPEN.value,
        help_text="open (the default), resolved or all",
    )
    language = StrictCharField(max_length=16, required=False)


class ReviewResolveSerializer(serializers.Serializer[Any]):
    action = serializers.ChoiceField(
        choices=[resolve.RESOLVE, resolve.DISMISS],
        default=resolve.RESOLVE,
        help_text="resolve: apply the decision to the entity everywhere; dismiss: change nothing",
    )
    decision = serializers.ChoiceField(choices=DECISION_CHOICES, required=False)
    replacement = StrictCharField(
        max_length=500, required=False, help_text="The pseudonym for the item's surface"
    )
    # The metaclass takes it as a field; mypy sees Field.label, the field's title.
    label = StrictCharField(max_length=64, required=False)  # type: ignore[assignment]
    keep_reason = StrictCharField(max_length=MAX_KEEP_REASON, required=False, allow_blank=True)
    rationale = StrictCharField(
        max_length=resolve.MAX_RATIONALE, help_text="Why: the annotators read it"
    )

    # Resolving needs a decision; dismissing does not (the schema says so too).
    schema_any_of = (
        {"required": ["decision"]},
        # A pattern, not an enum: drf-spectacular's enum hook would fold an enum away.
        {"required": ["action"], "properties": {"action": {"pattern": f"^{resolve.DISMISS}$"}}},
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["action"] == resolve.RESOLVE and not attrs.get("decision"):
            raise serializers.ValidationError({"decision": ["required to resolve"]})
        return attrs


class ReviewList(ProjectScoped, generics.ListAPIView[ReviewItem]):
    """The review queue, open items first; opening it asks for a scan of the project."""

    serializer_class = ReviewItemSerializer
    required_capability = Can.REVIEW
    query_serializer = ReviewFilterSerializer

    def get_queryset(self) -> Any:
        return review_items(self.get_project(), **self.query)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project = self.get_project()
        scan.review_scan_request(project=project)
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset())) or []
        notes = review_notes_read(
            project=project,
            item_ids=[item.pk for item in page],
            actor=request.user,
            ip_address=client_ip(request),
        )
        context = {**self.get_serializer_context(), "notes": notes}
        return self.get_paginated_response(
            self.get_serializer(page, many=True, context=context).data
        )


class ItemScoped(ProjectScoped):
    required_capability = Can.REVIEW

    def get_object(self) -> ReviewItem:
        items = review_items(self.get_project(), status=ALL_STATUSES).prefetch_related(
            "comments__author"
        )
        return get_object_or_404(items, pk=self.kwargs["pk"])

    def item_data(self, item: ReviewItem) -> Any:
        """The item as the answer shows it, its pseudonyms read from the keys (audited)."""
        notes = review_notes_read(
            project=self.get_project(),
            item_ids=[item.pk],
            actor=self.request.user,
            ip_address=client_ip(self.request),
        )
        return ReviewItemDetailSerializer(item, context={"notes": notes}).data


class ReviewDetail(ItemScoped, generics.RetrieveAPIView[ReviewItem]):
    """One item with its comments."""

    serializer_class = ReviewItemDetailSerializer

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return Response(self.item_data(self.get_object()))


ReviewConflictSerializer = inline_serializer(
    "ReviewConflict",
    {"detail": StrictCharField(), "current": ReviewItemDetailSerializer()},
)


class ReviewResolve(ItemScoped, generics.GenericAPIView[ReviewItem]):
    """Resolve an open item with a rationale (the decision applies to the entity in every
    document and is proposed wherever its surfaces occur), or dismiss it."""

    serializer_class = ReviewItemDetailSerializer
    conflict_responses = True

    @extend_schema(
        request=ReviewResolveSerializer,
        responses={200: ReviewItemDetailSerializer, 409: ReviewConflictSerializer},
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        item = self.get_object()
        form = ReviewResolveSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            resolve.review_act(item=item, actor=request.user, ip_address=client_ip(request), **data)
        except ConflictError as conflict:
            current = self.item_data(self.get_object())
            return Response(
                {"detail": str(conflict), "current": current}, status=status.HTTP_409_CONFLICT
            )
        return Response(self.item_data(self.get_object()))
