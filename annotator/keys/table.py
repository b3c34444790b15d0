"""The correspondence table as leads and admins work in it: browse and search it, edit a
replacement or a decision, merge two entities, split one, link an alias to another entity.

Reads: `entity_page` filters and searches without decrypting anything (a search looks words up
in the blind index, `annotator.keys.words`), then decrypts the originals of the one page it
returns. This module is for people holding `Can.READ_KEYS`; the pages and the API that call it
check that, and audit every read. Nothing here logs an original or puts one in an audit event.

Writes: each in one transaction on the keys database (and one on the default database for
the spans and the audit event), each audited as `key_edit` with the entity as target. An
entity carries `version`: a write naming another gets `StaleVersion` (409). Spans render
their pseudonym from the table, so a new replacement reaches every document by itself; the
spans' own `decision` and `keep_reason` are updated here when the entity's change.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet
from django.db.models.functions import Substr
from django.utils import timezone

from annotator.keys import crypto
from annotator.keys.models import Alias, AliasWord, Entity
from annotator.keys.services import (
    ReplacementRefused,
    _add_token_aliases,
    _aliases,
    _DigestSet,
    _replacements_in_use,
)
from annotator.keys.words import query_digests, replacement_digests, replacement_words_rewrite
from annotator.models import AuditAction, Document, Project, Span
from annotator.routers import keys_alias
from annotator.services.audit import audit_record
from annotator.services.decisions import check_decision
from annotator.services.errors import DomainError, NotFoundError, StaleVersion
from pseudonymizer.folding import fold_key
from pseudonymizer.pseudonyms import invalidate, suggest
from pseudonymizer.recognizers.known import KnownEntityRecognizer
from pseudonymizer.vocabulary import REPLACED_DECISIONS, Decision

DEFAULT_LIMIT = 25
MAX_LIMIT = 1000  # the API's bound on `limit`
MAX_QUERY_WORDS = 12
DENSE = 5000
DRAWS = 5  # pseudonyms drawn at once when an entity becomes pseudonymized
_ENTITY_ID = re.compile(r"#\s*([0-9]{1,18})")


# --- Reads ----------------------------------------------------------------------------------


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

    def audit_detail(self) -> dict[str, Any]:
        """The filters for the audit log: the query only as "given" and its word count."""
        words = len(self.q.split())
        return {
            "label": self.label,
            "decision": self.decision,
            "language": self.language,
            "query": bool(words),
            "query_words": words,
        }


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
class EntityRow:
    id: int
    label: str
    decision: str
    keep_reason: str
    version: int
    created_by: str
    span_count: int
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
class EntityPage:
    rows: list[EntityRow]
    total: int
    limit: int
    offset: int

    @property
    def has_next(self) -> bool:
        return self.offset + len(self.rows) < self.total

    @property
    def has_previous(self) -> bool:
        return self.offset > 0

    @property
    def number(self) -> int:
        return self.offset // self.limit + 1

    @property
    def num_pages(self) -> int:
        return max(1, -(-self.total // self.limit))

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1


def _entities(project: Project) -> QuerySet[Entity]:
    return Entity.objects.using(keys_alias()).filter(project_id=project.pk)


def _matching_aliases(project: Project, digests: Sequence[str]) -> QuerySet[Any, Any]:
    """The aliases whose index holds every one of `digests`: one indexed lookup per digest
    (grouped by alias when there are several)."""
    wanted = sorted(set(digests))
    rows = AliasWord.objects.using(keys_alias()).filter(project_id=project.pk)
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


def _search(project: Project, q: str) -> _Search:
    """Entities with an alias holding every word of `q` in its original or in its
    replacement, or the entity `#N`."""
    number = _ENTITY_ID.fullmatch(q.strip())
    if number:
        return _Search(frozenset({int(number.group(1))}))
    secret = project.secret
    words = query_digests(secret, q)[:MAX_QUERY_WORDS]
    if not words:
        return _Search(frozenset())
    aliases = Alias.objects.using(keys_alias())
    dense: Q | None = None
    found: set[int] = set()
    for digests in (words, replacement_digests(secret, q)[:MAX_QUERY_WORDS]):
        matching = aliases.filter(pk__in=_matching_aliases(project, digests)).values("entity_id")
        ids = list(matching.values_list("entity_id", flat=True)[: DENSE + 1])
        if len(ids) > DENSE:
            dense = Q(pk__in=matching) if dense is None else dense | Q(pk__in=matching)
        else:
            found.update(ids)
    return _Search(frozenset(found), dense)


def entity_queryset(
    project: Project, filters: KeyFilters, *, search: _Search | None = None
) -> QuerySet[Entity]:
    """The project's entities that `filters` select, newest first; nothing decrypted."""
    entities = _entities(project)
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
        search = search or _search(project, filters.q)
        entities = entities.filter(search.condition())
    return entities.order_by("-pk")


def entity_page(
    project: Project, filters: KeyFilters, *, limit: int = DEFAULT_LIMIT, offset: int = 0
) -> EntityPage:
    """One page of the table: the entities `filters` select, their aliases decrypted.

    A search alone, answered by id from the word index, is paged and counted from those ids:
    the database then reads only the page's entities."""
    limit = max(1, min(limit, MAX_LIMIT))
    offset = max(0, offset)
    search = _search(project, filters.q) if filters.q.strip() else None
    if search is not None and search.dense is None and filters == KeyFilters(q=filters.q):
        ordered = sorted(search.ids, reverse=True)
        named = ordered[offset : offset + limit]
        page = list(_entities(project).filter(pk__in=named).order_by("-pk"))
        total = len(ordered) - (len(named) - len(page))  # an id of another project: not counted
        return EntityPage(entity_rows(page), total, limit, offset)
    entities = entity_queryset(project, filters, search=search)
    page = list(entities[offset : offset + limit])
    total = offset + len(page) if len(page) < limit and (page or not offset) else entities.count()
    return EntityPage(entity_rows(page), total, limit, offset)


def entity_rows(entities: Sequence[Entity]) -> list[EntityRow]:
    """`entities` as a page shows them: a few queries whatever their number (the aliases,
    the span counts grouped, the people who decided)."""
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
    spans = dict(
        Span.objects.filter(entity_id__in=ids)
        .values("entity_id")
        .annotate(count=Count("pk"))
        .values_list("entity_id", "count")
    )
    people = dict(
        get_user_model()
        .objects.filter(pk__in={e.created_by_id for e in entities if e.created_by_id})
        .values_list("pk", "username")
    )
    return [
        EntityRow(
            id=entity.pk,
            label=entity.label,
            decision=entity.decision,
            keep_reason=entity.keep_reason,
            version=entity.version,
            created_by=people.get(entity.created_by_id, "") if entity.created_by_id else "",
            span_count=spans.get(entity.pk, 0),
            aliases=sorted(aliases[entity.pk], key=lambda a: (a.language, a.token, a.id)),
            created_at=entity.created_at,
            updated_at=entity.updated_at,
        )
        for entity in entities
    ]


def entity_get(project: Project, entity_id: int) -> EntityRow:
    entity = _entities(project).filter(pk=entity_id).first()
    if entity is None:
        raise NotFoundError(f"no entity {entity_id} in this project")
    return entity_rows([entity])[0]


def table_read_record(
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
        detail.update(filters.audit_detail())
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


# --- Writes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntityChange:
    """A lead's edit of one entity; None leaves a field as it is."""

    decision: str | None = None
    keep_reason: str | None = None
    replacements: Mapping[int, str] = field(default_factory=dict)  # alias id → pseudonym


def _user(actor: Any) -> Any:
    return actor if actor is not None and getattr(actor, "is_authenticated", False) else None


def _locked(project: Project, entity_ids: Iterable[int]) -> dict[int, Entity]:
    wanted = sorted(set(entity_ids))
    found = {
        entity.pk: entity
        for entity in _entities(project).select_for_update().filter(pk__in=wanted).order_by("pk")
    }
    for entity_id in wanted:
        if entity_id not in found:
            raise NotFoundError(f"no entity {entity_id} in this project")
    return found


def _check_version(entity: Entity, version: int | None) -> None:
    if version is not None and version != entity.version:
        raise StaleVersion(
            f"entity {entity.pk} changed since you read it (version {version}, "
            f"now {entity.version}): reload it",
            entity.pk,
        )


def in_corpus(project: Project, replacement: str) -> bool:
    """Whether `replacement` occurs in a document of the project where the known-entity
    recognizer would find it (case, accents, Arabic variants and proclitics as it reads
    them): the database narrows the documents by a substring of their folded text."""
    key = fold_key(replacement)
    if len(key) < 2:
        return False
    if key.startswith("\u0627\u0644") and len(key) > 3:
        key = key[1:]  # found with its article's alef elided too
    matcher = KnownEntityRecognizer([(replacement, "X")])
    candidates = (
        Document.objects.filter(project=project, search_text__contains=key)
        .values_list("text", flat=True)
        .order_by()
    )
    return any(matcher.recognize_one(text) for text in candidates.iterator(chunk_size=100))


def check_replacement(project: Project, alias: Alias, original: str, replacement: str) -> None:
    """The rules for a pseudonym a lead gives `alias` (whose own pseudonym and token-level
    aliases are about to go): not empty, not the original, no other surface's pseudonym, no
    original of the table, found in no document of the project. A lead may see every
    original, so the reasons are told apart."""
    key = crypto.normalise_surface(replacement)
    if not key:
        raise ReplacementRefused("a pseudonym cannot be empty")
    if len(replacement) > Alias._meta.get_field("replacement").max_length:  # type: ignore[operator]
        raise ReplacementRefused("this pseudonym is too long")
    if key == crypto.normalise_surface(original):
        raise ReplacementRefused("a pseudonym cannot be the original itself")
    digest = crypto.surface_digest(project.secret, replacement)
    if _aliases(project).filter(original_digest=digest).exists():
        raise ReplacementRefused("this pseudonym is an original in the project's table")
    others = _aliases(project).filter(replacement_key=key).exclude(pk=alias.pk)
    if others.exclude(parent_id=alias.pk).exists():
        raise ReplacementRefused("another surface already has this pseudonym")
    if in_corpus(project, replacement):
        raise ReplacementRefused("this pseudonym occurs in a document of the project")


def _set_replacement(project: Project, alias: Alias, replacement: str) -> None:
    alias.set_replacement(replacement)
    alias.save(using=keys_alias(), update_fields=["replacement", "replacement_key"])
    replacement_words_rewrite(project.secret, alias)


def _cut_tokens(
    project: Project, alias: Alias, original: str, label: str, decision: str, user: Any
) -> None:
    """The token-level aliases of `alias` again, after its pseudonym or decision changed."""
    Alias.objects.using(keys_alias()).filter(parent_id=alias.pk).delete()
    if decision == Decision.PSEUDONYMIZE and alias.replacement:
        _add_token_aliases(project, alias, original, alias.replacement, label, alias.language, user)


def _replace(
    project: Project, entity: Entity, alias: Alias, replacement: str, decision: str, user: Any
) -> None:
    """Give `alias` a pseudonym the lead chose (checked), and cut its words again."""
    original = alias.original
    if crypto.normalise_surface(replacement) == alias.replacement_key:
        if replacement != alias.replacement:  # only its capitals change
            _set_replacement(project, alias, replacement)
        return
    check_replacement(project, alias, original, replacement)
    if alias.parent_id is None:
        Alias.objects.using(keys_alias()).filter(parent_id=alias.pk).delete()
    _set_replacement(project, alias, replacement)
    if alias.parent_id is None:
        _cut_tokens(project, alias, original, entity.label, decision, user)


def _draw_checked(project: Project, alias: Alias, original: str, label: str) -> str:
    """A fresh pseudonym for `alias` that passes the lead's checks (the draw already avoids
    the table's originals and pseudonyms; this also avoids the documents' words)."""
    drawn = suggest(
        original,
        label,
        alias.language,
        project.secret,
        count=DRAWS,
        taken=_replacements_in_use(project),
        forbidden=_DigestSet(project),
    )
    for candidate in drawn:
        try:
            check_replacement(project, alias, original, candidate)
        except ReplacementRefused:
            continue
        return candidate
    raise DomainError(f"no pseudonym could be drawn for alias {alias.pk}: give it one")


def _settle(
    project: Project,
    entity: Entity,
    names: Iterable[tuple[Alias, str]],
    decision: str,
    user: Any,
) -> None:
    """Make each of `names` (an alias a person chose, with the decision it was made under)
    hold what `decision` asks of it: a pseudonym drawn, an invalidated form, or none."""
    for alias, prior in names:
        if prior == decision:
            continue
        original = alias.original
        children = Alias.objects.using(keys_alias()).filter(parent_id=alias.pk)
        if decision in REPLACED_DECISIONS:
            children.delete()
            _set_replacement(project, alias, "")  # frees its pseudonym for the draw
            if decision == Decision.PSEUDONYMIZE:
                drawn = _draw_checked(project, alias, original, entity.label)
            else:
                drawn = invalidate(original, project.secret)
                check_replacement(project, alias, original, drawn)
            _set_replacement(project, alias, drawn)
            _cut_tokens(project, alias, original, entity.label, decision, user)
        else:
            # Kept or deleted: no pseudonym, the words cut from it keep following it.
            for row in [alias, *children]:
                if row.replacement:
                    _set_replacement(project, row, "")


def _names(entity_ids: Iterable[int]) -> list[Alias]:
    return list(
        Alias.objects.using(keys_alias())
        .filter(entity_id__in=list(entity_ids), parent__isnull=True)
        .order_by("pk")
    )


def _spans_follow(
    entity_ids: Iterable[int], decision: str, keep_reason: str, *, entity_id: int | None = None
) -> int:
    """The spans of `entity_ids` take the entity's decision (and, when given, its id)."""
    change: dict[str, Any] = {
        "decision": decision,
        "keep_reason": keep_reason if decision == Decision.KEEP else "",
        "version": F("version") + 1,
        "updated_at": timezone.now(),
    }
    if entity_id is not None:
        change["entity_id"] = entity_id
    return int(Span.objects.filter(entity_id__in=list(entity_ids)).update(**change))


def _bump(entity: Entity, **fields: Any) -> None:
    for name, value in fields.items():
        setattr(entity, name, value)
    entity.version += 1
    entity.save(using=keys_alias(), update_fields=[*fields, "version", "updated_at"])


def _audit(
    project: Project, actor: Any, entity_id: int, detail: dict[str, Any], ip: str | None
) -> None:
    audit_record(
        action=AuditAction.KEY_EDIT,
        actor=actor,
        project=project,
        target=f"entity:{entity_id}",
        detail=detail,
        ip_address=ip,
    )


class _Atomic:
    """One transaction on the keys database and one on the default database (the same one
    when the keys live beside the rest)."""

    def __enter__(self) -> None:
        self._keys = transaction.atomic(using=keys_alias())
        self._default = transaction.atomic(using="default")
        self._keys.__enter__()
        self._default.__enter__()

    def __exit__(self, *exc: Any) -> None:
        try:
            self._default.__exit__(*exc)
        finally:
            self._keys.__exit__(*exc)


def entity_update(
    *,
    project: Project,
    entity_id: int,
    actor: Any,
    version: int | None,
    change: EntityChange,
    ip_address: str | None = None,
) -> EntityRow:
    """Apply a lead's `change` to one entity, or raise having changed nothing."""
    user = _user(actor)
    with _Atomic():
        entity = _locked(project, [entity_id])[entity_id]
        _check_version(entity, version)
        prior = entity.decision
        decision = change.decision if change.decision is not None else prior
        keep_reason = change.keep_reason if change.keep_reason is not None else entity.keep_reason
        keep_reason = keep_reason.strip() if decision == Decision.KEEP else ""
        check_decision(decision, keep_reason, subject="entity")
        aliases = {
            alias.pk: alias
            for alias in Alias.objects.using(keys_alias()).filter(entity_id=entity.pk)
        }
        for alias_id in change.replacements:
            if alias_id not in aliases:
                raise DomainError(f"alias {alias_id} is not an alias of entity {entity.pk}")
        if change.replacements and decision not in REPLACED_DECISIONS:
            raise DomainError(f"a {decision} entity has no pseudonym to change")
        detail: dict[str, Any] = {"action": "edit"}
        if decision != prior:
            names = [(alias, prior) for alias in aliases.values() if alias.parent_id is None]
            _settle(project, entity, names, decision, user)
            detail["decision"] = [prior, decision]
        for alias_id, replacement in sorted(change.replacements.items()):
            alias = Alias.objects.using(keys_alias()).filter(pk=alias_id).first()
            if alias is not None:  # a word cut again above may have gone
                _replace(project, entity, alias, replacement, decision, user)
        if change.replacements:
            detail["replacements"] = sorted(change.replacements)
        if keep_reason != entity.keep_reason:
            detail["keep_reason"] = True
        if len(detail) == 1:
            return entity_rows([entity])[0]
        _bump(entity, decision=decision, keep_reason=keep_reason)
        if decision != prior or "keep_reason" in detail:
            detail["spans"] = _spans_follow([entity.pk], decision, keep_reason)
        _audit(project, actor, entity.pk, detail, ip_address)
    return entity_get(project, entity.pk)


def entity_merge(
    *,
    project: Project,
    entity_id: int,
    other_id: int,
    actor: Any,
    version: int | None,
    other_version: int | None,
    decision: str | None = None,
    keep_reason: str | None = None,
    ip_address: str | None = None,
) -> EntityRow:
    """Fold `other_id` into `entity_id`: its aliases and spans move, it goes. Two entities
    decided differently merge only with the `decision` the merged one takes; the merged
    entity keeps `entity_id`'s label."""
    if entity_id == other_id:
        raise DomainError("an entity cannot be merged with itself")
    user = _user(actor)
    with _Atomic():
        locked = _locked(project, [entity_id, other_id])
        entity, other = locked[entity_id], locked[other_id]
        _check_version(entity, version)
        _check_version(other, other_version)
        if decision is None:
            if entity.decision != other.decision:
                raise DomainError(
                    f"entity {entity.pk} is {entity.decision} and entity {other.pk} is "
                    f"{other.decision}: say which decision the merged entity takes"
                )
            decision = entity.decision
        reason = keep_reason if keep_reason is not None else entity.keep_reason or other.keep_reason
        reason = reason.strip() if decision == Decision.KEEP else ""
        check_decision(decision, reason, subject="entity")
        names = [
            (alias, entity.decision if alias.entity_id == entity.pk else other.decision)
            for alias in _names([entity.pk, other.pk])
        ]
        Alias.objects.using(keys_alias()).filter(entity_id=other.pk).update(entity_id=entity.pk)
        _settle(project, entity, names, decision, user)
        spans = _spans_follow([entity.pk, other.pk], decision, reason, entity_id=entity.pk)
        Entity.objects.using(keys_alias()).filter(pk=other.pk).delete()
        _bump(entity, decision=decision, keep_reason=reason)
        detail = {"action": "merge", "merged": other.pk, "decision": decision, "spans": spans}
        _audit(project, actor, entity.pk, detail, ip_address)
    return entity_get(project, entity.pk)


def _moving_spans(project: Project, entity_id: int, digests: set[str]) -> list[int]:
    """The spans of `entity_id` whose surface is one of `digests` (a span holds its entity
    by id only: its surface is its document's text at its offsets, read in the database)."""
    rows = (
        Span.objects.filter(entity_id=entity_id)
        .annotate(surface=Substr("document__text", F("start") + 1, F("end") - F("start")))
        .values_list("pk", "surface")
    )
    secret = project.secret
    return [pk for pk, surface in rows if crypto.surface_digest(secret, surface) in digests]


def _move_names(
    project: Project, source: Entity, target: Entity, names: Sequence[Alias], user: Any
) -> int:
    """Move `names` of `source` (with their words) and their spans to `target`, which may be
    new; they take its decision. The number of spans moved."""
    ids = [alias.pk for alias in names]
    moving = Alias.objects.using(keys_alias()).filter(Q(pk__in=ids) | Q(parent_id__in=ids))
    digests = set(moving.values_list("original_digest", flat=True))
    moving.update(entity_id=target.pk)
    _settle(project, target, [(alias, source.decision) for alias in names], target.decision, user)
    spans = _moving_spans(project, source.pk, digests)
    return int(
        Span.objects.filter(pk__in=spans).update(
            entity_id=target.pk,
            decision=target.decision,
            keep_reason=target.keep_reason,
            version=F("version") + 1,
            updated_at=timezone.now(),
        )
    )


def entity_split(
    *,
    project: Project,
    entity_id: int,
    alias_ids: Sequence[int],
    actor: Any,
    version: int | None,
    ip_address: str | None = None,
) -> tuple[EntityRow, EntityRow]:
    """Move the chosen aliases of an entity (each with the words cut from it) to a new entity
    of the same label and decision; the spans of their surfaces follow. (entity, new one)."""
    wanted = set(alias_ids)
    if not wanted:
        raise DomainError("choose the aliases to move to a new entity")
    user = _user(actor)
    with _Atomic():
        entity = _locked(project, [entity_id])[entity_id]
        _check_version(entity, version)
        names = _names([entity.pk])
        chosen = [alias for alias in names if alias.pk in wanted]
        unknown = wanted - {alias.pk for alias in chosen}
        if unknown:
            raise DomainError(
                f"alias {min(unknown)} is not a name of entity {entity.pk} (a word cut from "
                "a longer name follows that name)"
            )
        if len(chosen) == len(names):
            raise DomainError("leave at least one alias in the entity")
        new = Entity.objects.using(keys_alias()).create(
            project_id=project.pk,
            label=entity.label,
            decision=entity.decision,
            keep_reason=entity.keep_reason,
            created_by=user,
        )
        spans = _move_names(project, entity, new, chosen, user)
        _bump(entity)
        detail = {"action": "split", "aliases": sorted(wanted), "new": new.pk, "spans": spans}
        _audit(project, actor, entity.pk, detail, ip_address)
        _audit(project, actor, new.pk, {"action": "split", "from": entity.pk}, ip_address)
    return entity_get(project, entity.pk), entity_get(project, new.pk)


def alias_link(
    *,
    project: Project,
    entity_id: int,
    alias_id: int,
    actor: Any,
    version: int | None,
    ip_address: str | None = None,
) -> EntityRow:
    """Link an alias ("موشيه حايا") to an entity in another language ("Moshe Chaya"): the
    alias, the words cut from it and the spans of those surfaces move to `entity_id` and take
    its decision; the entity it leaves goes when no alias is left in it."""
    user = _user(actor)
    with _Atomic():
        alias = _aliases(project).filter(pk=alias_id).first()
        if alias is None:
            raise NotFoundError(f"no alias {alias_id} in this project")
        if alias.parent_id is not None:
            raise DomainError(
                f"alias {alias_id} is a word cut from a longer name: link that name instead"
            )
        if alias.entity_id == entity_id:
            raise DomainError(f"alias {alias_id} is already an alias of entity {entity_id}")
        locked = _locked(project, [entity_id, alias.entity_id])
        entity, source = locked[entity_id], locked[alias.entity_id]
        _check_version(entity, version)
        spans = _move_names(project, source, entity, [alias], user)
        left = Alias.objects.using(keys_alias()).filter(entity_id=source.pk).exists()
        if left:
            _bump(source)
        else:
            # Nothing names the entity any more: whatever still points at it is the alias's.
            spans += _spans_follow(
                [source.pk], entity.decision, entity.keep_reason, entity_id=entity.pk
            )
            Entity.objects.using(keys_alias()).filter(pk=source.pk).delete()
        _bump(entity)
        detail = {
            "action": "link",
            "alias": alias_id,
            "from": source.pk,
            "from_deleted": not left,
            "spans": spans,
        }
        _audit(project, actor, entity.pk, detail, ip_address)
    return entity_get(project, entity.pk)
