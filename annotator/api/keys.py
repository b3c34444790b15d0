"""The correspondence table in the API, for leads and admins (`Can.READ_KEYS`): list and
search the entities, read and edit one, merge, split, link, and the candidate links.

Every read is audited by the table's reads themselves (`key_read`, or `key_search` when
filtered: the filters, never the query's words); every write by its edit (`key_edit`),
both in `annotator.services.table`. Bodies are JSON only.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.pagination import LimitOffsetPage
from annotator.api.parsers import BoundedJSONParser
from annotator.api.views import ProjectScoped
from annotator.audit import client_ip
from annotator.errors import NotFoundError, StaleVersion
from annotator.models import DECISION_CHOICES
from annotator.permissions import Can
from annotator.services.table import (
    DEFAULT_LIMIT,
    EntityChange,
    EntityRow,
    KeyFilters,
    alias_link,
    entity_merge,
    entity_page,
    entity_read,
    entity_split,
    entity_update,
    link_candidates_read,
)
from pseudonymizer.vocabulary import MAX_KEEP_REASON

VERSION_MAX = 2**31 - 1
ID_MAX = 2**63 - 1


class AliasSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    language = StrictCharField()
    script = StrictCharField(help_text="e.g. Latn, Arab; blank when unknown")
    original = StrictCharField(help_text="The surface form, decrypted for this answer")
    replacement = StrictCharField(help_text="Blank for a kept or deleted entity")
    token = serializers.BooleanField(help_text="A word cut from a longer name of the entity")
    parent_id = serializers.IntegerField(allow_null=True)


class EntitySerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    # The metaclass takes it as a field; mypy sees Field.label, the field's title.
    label = StrictCharField()  # type: ignore[assignment]
    decision = serializers.ChoiceField(choices=DECISION_CHOICES)
    keep_reason = StrictCharField()
    version = serializers.IntegerField()
    created_by = StrictCharField(help_text="Who first decided it; blank when unknown")
    span_count = serializers.IntegerField()
    aliases = AliasSerializer(many=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class EntityFilterSerializer(serializers.Serializer[Any]):
    label = StrictCharField(max_length=64, required=False, default="")  # type: ignore[assignment]
    decision = serializers.ChoiceField(choices=DECISION_CHOICES, required=False, default="")
    language = StrictCharField(max_length=16, required=False, default="")
    q = StrictCharField(
        max_length=200,
        required=False,
        default="",
        allow_blank=True,
        help_text="Words of an original or a replacement (every one must match), or #id",
    )


class ReplacementSerializer(serializers.Serializer[Any]):
    alias = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    replacement = StrictCharField(max_length=500, allow_blank=True)


class EntityPatchSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(
        min_value=1, max_value=VERSION_MAX, help_text="The version you read"
    )
    decision = serializers.ChoiceField(choices=DECISION_CHOICES, required=False)
    keep_reason = StrictCharField(max_length=MAX_KEEP_REASON, required=False, allow_blank=True)
    replacements = serializers.ListField(
        child=ReplacementSerializer(), required=False, max_length=100
    )


class EntityMergeSerializer(serializers.Serializer[Any]):
    other = serializers.IntegerField(
        min_value=1, max_value=ID_MAX, help_text="The entity folded into this one"
    )
    version = serializers.IntegerField(
        min_value=1, max_value=VERSION_MAX, help_text="This entity's version"
    )
    other_version = serializers.IntegerField(
        min_value=1, max_value=VERSION_MAX, help_text="The other's version"
    )
    decision = serializers.ChoiceField(
        choices=DECISION_CHOICES,
        required=False,
        help_text="Needed when the two are decided differently",
    )
    keep_reason = StrictCharField(max_length=MAX_KEEP_REASON, required=False, allow_blank=True)


class EntitySplitSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(min_value=1, max_value=VERSION_MAX)
    aliases = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        min_length=1,
        max_length=1000,
        help_text="The aliases that move to a new entity (their words follow)",
    )


class AliasLinkSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(
        min_value=1, max_value=VERSION_MAX, help_text="This entity's version"
    )
    alias = serializers.IntegerField(
        min_value=1, max_value=ID_MAX, help_text="An alias of another entity"
    )


class CandidateQuerySerializer(serializers.Serializer[Any]):
    entity = serializers.IntegerField(
        min_value=1, max_value=ID_MAX, required=False, help_text="Candidates of one entity"
    )
    label = StrictCharField(max_length=64, required=False, default="")  # type: ignore[assignment]


class CandidateSerializer(serializers.Serializer[Any]):
    entity_id = serializers.IntegerField()
    other_id = serializers.IntegerField()
    label = StrictCharField()  # type: ignore[assignment]
    score = serializers.FloatField()
    reasons = serializers.ListField(child=StrictCharField())


EntityConflictSerializer = inline_serializer(
    "EntityConflict",
    {"detail": StrictCharField(), "current": EntitySerializer(required=False)},
)
EntitySplitResultSerializer = inline_serializer(
    "EntitySplitResult", {"entity": EntitySerializer(), "new": EntitySerializer()}
)


class KeysScoped(ProjectScoped):
    required_capability = Can.READ_KEYS
    capability_by_method = {"POST": Can.EDIT_KEYS, "PATCH": Can.EDIT_KEYS}
    parser_classes = [BoundedJSONParser]

    def ip(self) -> str | None:
        return client_ip(self.request)

    def conflict(self, error: StaleVersion) -> Response:
        body: dict[str, Any] = {"detail": str(error)}
        if isinstance(error.current, int):
            # Gone meanwhile: the detail says enough.
            with suppress(NotFoundError):
                # Shown to this person: an audited read, whatever the edit's outcome.
                row = entity_read(self.get_project(), error.current, actor=self.request.user,
                                  ip_address=self.ip())  # fmt: skip
                body["current"] = EntitySerializer(row).data
        return Response(body, status=status.HTTP_409_CONFLICT)


class EntityList(KeysScoped, generics.ListAPIView[Any]):
    """The project's entities, newest first, with their aliases (originals decrypted) per
    language, filtered and searched."""

    serializer_class = EntitySerializer
    query_serializer = EntityFilterSerializer

    def filters(self) -> KeyFilters:
        return KeyFilters(**self.query)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # Paged by the table's own reader: a search is counted from the word index, and
        # only the page's originals are decrypted.
        paginator = self.paginator
        assert isinstance(paginator, LimitOffsetPage)
        limit = paginator.get_limit(request) or DEFAULT_LIMIT
        offset = paginator.get_offset(request)
        page = entity_page(
            self.get_project(),
            self.filters(),
            actor=request.user,
            ip_address=self.ip(),
            limit=limit,
            offset=offset,
        )
        paginator.request, paginator.limit, paginator.offset = request, limit, offset
        paginator.count = page.total
        return paginator.get_paginated_response(EntitySerializer(page.rows, many=True).data)


class EntityDetail(KeysScoped, generics.GenericAPIView[Any]):
    """One entity; PATCH edits its decision, reason to keep or an alias's pseudonym (checked
    against the table and every document of the project), naming the version read."""

    serializer_class = EntitySerializer
    conflict_responses = ("PATCH",)

    def get(self, request: Request, slug: str, pk: int) -> Response:
        row = entity_read(self.get_project(), pk, actor=request.user, ip_address=self.ip())
        return Response(EntitySerializer(row).data)

    @extend_schema(
        request=EntityPatchSerializer,
        responses={200: EntitySerializer, 409: EntityConflictSerializer},
    )
    def patch(self, request: Request, slug: str, pk: int) -> Response:
        form = EntityPatchSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        change = EntityChange(
            decision=data.get("decision"),
            keep_reason=data.get("keep_reason"),
            replacements={r["alias"]: r["replacement"] for r in data.get("replacements", [])},
        )
        try:
            row = entity_update(
                project=self.get_project(),
                entity_id=pk,
                actor=request.user,
                version=data["version"],
                change=change,
                ip_address=self.ip(),
            )
        except StaleVersion as error:
            return self.conflict(error)
        return Response(EntitySerializer(row).data)


def _row(row: EntityRow) -> dict[str, Any]:
    return dict(EntitySerializer(row).data)


class EntityMerge(KeysScoped, generics.GenericAPIView[Any]):
    """Fold another entity into this one: its aliases and spans move here."""

    serializer_class = EntitySerializer
    conflict_responses = True

    @extend_schema(
        request=EntityMergeSerializer,
        responses={200: EntitySerializer, 409: EntityConflictSerializer},
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        form = EntityMergeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            row = entity_merge(
                project=self.get_project(),
                entity_id=pk,
                other_id=data["other"],
                actor=request.user,
                version=data["version"],
                other_version=data["other_version"],
                decision=data.get("decision"),
                keep_reason=data.get("keep_reason"),
                ip_address=self.ip(),
            )
        except StaleVersion as error:
            return self.conflict(error)
        return Response(_row(row))


class EntitySplit(KeysScoped, generics.GenericAPIView[Any]):
    """Move some aliases of this entity to a new one; the spans of their surfaces follow."""

    serializer_class = EntitySerializer
    conflict_responses = True

    @extend_schema(
        request=EntitySplitSerializer,
        responses={201: EntitySplitResultSerializer, 409: EntityConflictSerializer},
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        form = EntitySplitSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            kept, new = entity_split(
                project=self.get_project(),
                entity_id=pk,
                alias_ids=form.validated_data["aliases"],
                actor=request.user,
                version=form.validated_data["version"],
                ip_address=self.ip(),
            )
        except StaleVersion as error:
            return self.conflict(error)
        return Response({"entity": _row(kept), "new": _row(new)}, status=status.HTTP_201_CREATED)


class EntityLink(KeysScoped, generics.GenericAPIView[Any]):
    """Link an alias of another entity ("موشيه حايا") to this one ("Moshe Chaya"): it moves
    here with the words cut from it and the spans of its surfaces, and takes this entity's
    decision; the entity it leaves goes when no alias is left in it."""

    serializer_class = EntitySerializer
    conflict_responses = True

    @extend_schema(
        request=AliasLinkSerializer,
        responses={200: EntitySerializer, 409: EntityConflictSerializer},
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        form = AliasLinkSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            row = alias_link(
                project=self.get_project(),
                entity_id=pk,
                alias_id=form.validated_data["alias"],
                actor=request.user,
                version=form.validated_data["version"],
                ip_address=self.ip(),
            )
        except StaleVersion as error:
            return self.conflict(error)
        return Response(_row(row))


class EntityCandidates(KeysScoped, generics.GenericAPIView[Any]):
    """Pairs of entities that may be one referent (transliteration, shared words, the same
    pseudonym chosen twice), best first; ids only, no originals."""

    serializer_class = CandidateSerializer
    query_serializer = CandidateQuerySerializer
    pagination_class = None  # bounded by the search itself (the keys' links, LIMIT)

    @extend_schema(responses={200: CandidateSerializer(many=True)})
    def get(self, request: Request, slug: str) -> Response:
        found = link_candidates_read(
            self.get_project(),
            actor=request.user,
            entity_id=self.query.get("entity"),
            label=self.query.get("label", ""),
            ip_address=self.ip(),
        )
        return Response(CandidateSerializer(found, many=True).data)
