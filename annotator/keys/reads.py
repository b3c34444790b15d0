"""The correspondence table as leads and admins read it: browse it, search it, open one
entity; and the reads the review's scan and a release make of it (a repository: the Domain
reaches it through `annotator.services.table`, which audits every read by a person).

`entity_page` filters and searches without decrypting anything (a search looks words up in
the blind index, `annotator.keys.words`), then decrypts the originals of the one page it
returns. Nothing here logs an original.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from annotator.errors import NotFoundError
from annotator.keys import crypto
from annotator.keys.models import Alias, AliasWord, Entity
from annotator.keys.scope import Scope
from annotator.keys.words import query_digests, replacement_digests
from annotator.routers import keys_alias
from pseudonymizer.pseudonyms.heads import HEAD_LABELS, cores
from pseudonymizer.vocabulary import Decision

DEFAULT_LIMIT = 25
MAX_LIMIT = 1000  # the API's bound on `limit`
MAX_QUERY_WORDS = 12
DENSE = 5000
DRAWS = 5  # pseudonyms drawn at once when an entity becomes pseudonymized
_ENTITY_ID = re.compile(r"#\s*([0-9]{1,18})")


@dataclass(frozen=True)
class KeyFilters:
    """What a lead narrows the table to; `q` is searched, never stored or logged."""

    label: str = ""
    decision: str = ""
    language: str = ""
    q: str = ""

    @property
    def any(self) -> bool:
        return bool(self.label or self.decision or self.language or self.q.strip())


@dataclass(frozen=True)
class AliasRow:
    id: int
    language: str
    script: str
    original: str
    replacement: str
    token: bool  # cut from a longer name of the entity ("Moshe" from "Moshe Chaya")
    parent_id: int | None


@dataclass(frozen=True)
class EntityRecord:
    """One entity as the table holds it, its aliases decrypted."""

    id: int
    label: str
    decision: str
    keep_reason: str
    version: int
    created_by_id: int | None
    aliases: list[AliasRow]
    created_at: Any
    updated_at: Any

    @property
    def by_language(self) -> list[tuple[str, list[AliasRow]]]:
        grouped: dict[str, list[AliasRow]] = defaultdict(list)
        for alias in self.aliases:
            grouped[alias.language].append(alias)
        return sorted(grouped.items())

    @property
    def names(self) -> list[AliasRow]:
        """The aliases a person chose, without the words cut from them."""
        return [alias for alias in self.aliases if not alias.token]


@dataclass(frozen=True)
class RecordPage:
    records: list[EntityRecord]
    total: int
    limit: int
    offset: int


def _entities(scope: Scope) -> QuerySet[Entity]:
    return Entity.objects.using(keys_alias()).filter(project_id=scope.pk)


def _matching_aliases(scope: Scope, digests: Sequence[str]) -> QuerySet[Any, Any]:
    """The aliases whose index holds every one of `digests`: one indexed lookup per digest
    (grouped by alias when there are several)."""
    wanted = sorted(set(digests))
    rows = AliasWord.objects.using(keys_alias()).filter(project_id=scope.pk)
    if len(wanted) == 1:
        return rows.filter(digest=wanted[0]).values("alias_id")
    return (
        rows.filter(digest__in=wanted)
        .values("alias_id")
        .annotate(found=Count("digest", distinct=True))
        .filter(found=len(wanted))
        .values("alias_id")
    )


@dataclass(frozen=True)
class _Search:
    """What a search selects: the entities by id (`ids`, read from the word index), or, for
    words so common that more than `DENSE` entities hold them, a condition the database
    evaluates (`dense`)."""

    ids: frozenset[int]
    dense: Q | None = None

    def condition(self) -> Q:
        named = Q(pk__in=sorted(self.ids))
        return named | self.dense if self.dense is not None else named


def _search(scope: Scope, q: str) -> _Search:
    """Entities with an alias holding every word of `q` in its original or in its
    replacement, or the entity `#N`."""
    number = _ENTITY_ID.fullmatch(q.strip())
    if number:
        return _Search(frozenset({int(number.group(1))}))
    secret = scope.secret
    words = query_digests(secret, q)[:MAX_QUERY_WORDS]
    if not words:
        return _Search(frozenset())
    aliases = Alias.objects.using(keys_alias())
    dense: Q | None = None
    found: set[int] = set()
    for digests in (words, replacement_digests(secret, q)[:MAX_QUERY_WORDS]):
        matching = aliases.filter(pk__in=_matching_aliases(scope, digests)).values("entity_id")
        ids = list(matching.values_list("entity_id", flat=True)[: DENSE + 1])
        if len(ids) > DENSE:
            dense = Q(pk__in=matching) if dense is None else dense | Q(pk__in=matching)
        else:
            found.update(ids)
    return _Search(frozenset(found), dense)


def entity_queryset(
    scope: Scope, filters: KeyFilters, *, search: _Search | None = None
) -> QuerySet[Entity]:
    """The project's entities that `filters` select, newest first; nothing decrypted."""
    entities = _entities(scope)
    if filters.label:
        entities = entities.filter(label=filters.label)
    if filters.decision:
        entities = entities.filter(decision=filters.decision)
    if filters.language:
        in_language = Alias.objects.using(keys_alias()).filter(
            entity_id=OuterRef("pk"), language=filters.language
        )
        entities = entities.filter(Exists(in_language))
    if filters.q.strip():
        search = search or _search(scope, filters.q)
        entities = entities.filter(search.condition())
    return entities.order_by("-pk")


def entity_page(
    scope: Scope, filters: KeyFilters, *, limit: int = DEFAULT_LIMIT, offset: int = 0
) -> RecordPage:
    """One page of the table: the entities `filters` select, their aliases decrypted.

    A search alone, answered by id from the word index, is paged and counted from those ids:
    the database then reads only the page's entities."""
    limit = max(1, min(limit, MAX_LIMIT))
    offset = max(0, offset)
    search = _search(scope, filters.q) if filters.q.strip() else None
    if search is not None and search.dense is None and filters == KeyFilters(q=filters.q):
        ordered = sorted(search.ids, reverse=True)
        named = ordered[offset : offset + limit]
        page = list(_entities(scope).filter(pk__in=named).order_by("-pk"))
        total = len(ordered) - (len(named) - len(page))  # an id of another project: not counted
        return RecordPage(entity_records(page), total, limit, offset)
    entities = entity_queryset(scope, filters, search=search)
    page = list(entities[offset : offset + limit])
    total = offset + len(page) if len(page) < limit and (page or not offset) else entities.count()
    return RecordPage(entity_records(page), total, limit, offset)


def entity_records(entities: Sequence[Entity]) -> list[EntityRecord]:
    """`entities` with their aliases decrypted, in one query whatever their number."""
    ids = [entity.pk for entity in entities]
    if not ids:
        return []
    aliases: dict[int, list[AliasRow]] = defaultdict(list)
    rows = (
        Alias.objects.using(keys_alias())
        .filter(entity_id__in=ids)
        .order_by("language", "parent_id", "pk")
        .only(
            "pk",
            "entity_id",
            "language",
            "script",
            "original_encrypted",
            "replacement",
            "parent_id",
        )  # fmt: skip
    )
    for alias in rows:
        aliases[alias.entity_id].append(
            AliasRow(
                id=alias.pk,
                language=alias.language,
                script=alias.script,
                original=alias.original,
                replacement=alias.replacement,
                token=alias.parent_id is not None,
                parent_id=alias.parent_id,
            )
        )
    return [
        EntityRecord(
            id=entity.pk,
            label=entity.label,
            decision=entity.decision,
            keep_reason=entity.keep_reason,
            version=entity.version,
            created_by_id=entity.created_by_id,
            aliases=sorted(aliases[entity.pk], key=lambda a: (a.language, a.token, a.id)),
            created_at=entity.created_at,
            updated_at=entity.updated_at,
        )
        for entity in entities
    ]


def entity_record(scope: Scope, entity_id: int) -> EntityRecord:
    entity = _entities(scope).filter(pk=entity_id).first()
    if entity is None:
        raise NotFoundError(f"no entity {entity_id} in this project")
    return entity_records([entity])[0]


def entities_by_id(scope: Scope, entity_ids: Iterable[int]) -> list[EntityRecord]:
    """The entities of `entity_ids` the project has, newest first."""
    return entity_records(list(_entities(scope).filter(pk__in=list(entity_ids)).order_by("-pk")))


# --- What the review's scan and a release read ---------------------------------------------


@dataclass(frozen=True)
class NamedAlias:
    """An alias with its original decrypted, for a worker's scan; never for a page."""

    id: int
    entity_id: int
    parent_id: int | None
    language: str
    original: str
    replacement: str
    label: str


def entity_decisions(scope: Scope) -> dict[int, tuple[str, str]]:
    """Every entity of the project: its id → (decision, label)."""
    rows = _entities(scope).values_list("pk", "decision", "label")
    return {pk: (decision, label) for pk, decision, label in rows}


def replaced_groups(scope: Scope, chunk: int) -> Iterator[tuple[int, str, list[NamedAlias]]]:
    """(entity id, language, its aliases with a replacement) for each entity with two such
    aliases or more in one language: decrypts those originals, `chunk` entities at a time."""
    aliases = Alias.objects.using(keys_alias()).filter(project_id=scope.pk)
    replaced = aliases.exclude(replacement_key="")
    groups = list(
        replaced.values_list("entity_id", "language")
        .annotate(n=Count("id"))
        .filter(n__gte=2)
        .order_by("entity_id", "language")
    )
    wanted = {(entity_id, language) for entity_id, language, _ in groups}
    entity_ids = sorted({entity_id for entity_id, _ in wanted})
    for start in range(0, len(entity_ids), chunk):
        by_group: dict[tuple[int, str], list[NamedAlias]] = defaultdict(list)
        rows = replaced.filter(entity_id__in=entity_ids[start : start + chunk])
        for alias in rows.select_related("entity").order_by("pk"):
            if (alias.entity_id, alias.language) in wanted:
                by_group[(alias.entity_id, alias.language)].append(
                    NamedAlias(
                        alias.pk,
                        alias.entity_id,
                        alias.parent_id,
                        alias.language,
                        alias.original,
                        alias.replacement,
                        alias.entity.label,
                    )
                )
        for (entity_id, language), members in by_group.items():
            yield entity_id, language, members


def replacements(scope: Scope, chunk: int) -> Iterator[tuple[int, int, str, str, str]]:
    """(alias id, entity id, language, replacement, label) of every alias with a
    replacement."""
    rows = (
        Alias.objects.using(keys_alias())
        .filter(project_id=scope.pk)
        .exclude(replacement_key="")
        .values_list("pk", "entity_id", "language", "replacement", "entity__label")
    )
    yield from rows.iterator(chunk_size=chunk)


def entity_names(scope: Scope, entity_id: int) -> dict[int, str]:
    """The aliases a person chose of the entity (not the words cut from them), by id, with
    their replacements, in id order."""
    return dict(
        Alias.objects.using(keys_alias())
        .filter(project_id=scope.pk, entity_id=entity_id, parent__isnull=True)
        .order_by("pk")
        .values_list("pk", "replacement")
    )


def alias_of(scope: Scope, surface: str) -> int | None:
    """The id of the alias of `surface`, or None."""
    digest = crypto.surface_digest(scope.secret, surface)
    return (
        Alias.objects.using(keys_alias())
        .filter(project_id=scope.pk, original_digest=digest)
        .values_list("pk", flat=True)
        .first()
    )


def release_aliases(scope: Scope) -> Iterator[tuple[str, str, bool]]:
    """(original, label, kept) of every alias of every entity of the project, token-level
    aliases included. Decrypts the originals: for the release worker only, never for a page
    or a log."""
    rows = (
        Alias.objects.using(keys_alias())
        .filter(project_id=scope.pk)
        .select_related("entity")
        .only("original_encrypted", "entity__label", "entity__decision")
        .order_by("pk")
    )
    for alias in rows.iterator(chunk_size=2000):
        yield alias.original, alias.entity.label, alias.entity.decision == Decision.KEEP.value


def named_apart(scope: Scope, chunk: int) -> Iterator[tuple[int, int, str]]:
    """(entity of the wider name, entity of the name it holds, label) for each name that
    names, through a head word, a title or a proclitic (`pseudonymizer.pseudonyms.heads`),
    what a name of another entity of the label names: "مدينة الإسكندرية" and "الإسكندرية"
    decided apart, before such names joined one entity. Decrypts the originals of the
    labels that take heads, `chunk` at a time, in memory only."""
    aliases = Alias.objects.using(keys_alias()).filter(
        project_id=scope.pk, parent__isnull=True, entity__label__in=HEAD_LABELS
    )
    seen: set[tuple[int, int]] = set()
    rows = aliases.select_related("entity").order_by("pk")
    last = 0
    while True:
        batch = list(rows.filter(pk__gt=last)[:chunk])
        if not batch:
            return
        last = batch[-1].pk
        wanted: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for alias in batch:
            label = alias.entity.label
            for head in cores(alias.original, label):
                digest = crypto.surface_digest(scope.secret, head.core)
                wanted[digest].append((alias.entity_id, label))
        if not wanted:
            continue
        found = aliases.filter(original_digest__in=list(wanted)).values_list(
            "original_digest", "entity_id", "entity__label"
        )
        for digest, entity_id, label in found:
            for wider, wider_label in wanted[digest]:
                pair = (wider, entity_id)
                if wider != entity_id and wider_label == label and pair not in seen:
                    seen.add(pair)
                    yield wider, entity_id, label
