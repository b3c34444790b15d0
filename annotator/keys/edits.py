"""The correspondence table as leads and admins edit it: a replacement or a decision, merge
two entities, split one, link an alias to another entity (a repository: the Domain reaches
it through `annotator.services.table`, which makes the spans follow and audits each edit).

Each edit runs in one transaction on the keys database, holding the entities it changes
locked, and returns what changed (`Edit`): what the audit says of it, and which spans must
follow (`SpansFollow`), which the keys cannot reach. An entity carries `version`: an edit naming
another gets `StaleVersion`. Nothing here logs an original or puts one in what it returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q

from annotator.errors import DomainError, NotFoundError, StaleVersion
from annotator.keys import crypto
from annotator.keys.errors import ReplacementRefused, SurfaceConflict
from annotator.keys.models import Alias, AliasWord, DrawnAhead, Entity, ReviewNote, UndoNote
from annotator.keys.scope import Scope
from annotator.keys.surfaces import (
    DigestSet,
    InCorpus,
    check_replacement,
    choice_of,
    project_aliases,
    replacements_in_use,
    token_aliases_add,
)
from annotator.keys.words import replacement_words_rewrite
from annotator.routers import keys_alias
from pseudonymizer.pseudonyms import invalidate, suggest
from pseudonymizer.vocabulary import (
    REPLACED_DECISIONS,
    Decision,
    DecisionRefused,
    check_decision,
    kept_reason,
)

DRAWS = 5  # pseudonyms drawn at once when an entity becomes pseudonymized


@dataclass(frozen=True)
class SpansFollow:
    """Spans the table's change reaches: those of `entity_ids` (only those whose surface's
    digest is one of `digests`, when given) take `decision` and `keep_reason`, and the
    entity `entity_id` and the `label` when given."""

    entity_ids: tuple[int, ...]
    decision: str
    keep_reason: str
    entity_id: int | None = None
    digests: frozenset[str] | None = None
    label: str | None = None


@dataclass(frozen=True)
class Edit:
    """What an edit changed: the entity (`entity_id`) and what its audit row says
    (`detail`, "spans" left for the Domain to count), the spans that follow, in order, and
    any further entity audited with its own detail (a split's new entity)."""

    entity_id: int
    detail: dict[str, Any] | None  # None: nothing changed, nothing to audit
    follow: tuple[SpansFollow, ...] = ()
    also: tuple[tuple[int, dict[str, Any]], ...] = ()


@dataclass(frozen=True)
class EntityChange:
    """A lead's edit of one entity; None leaves a field as it is."""

    decision: str | None = None
    keep_reason: str | None = None
    replacements: Mapping[int, str] = field(default_factory=dict)  # alias id → pseudonym


def _locked(scope: Scope, entity_ids: Iterable[int]) -> dict[int, Entity]:
    wanted = sorted(set(entity_ids))
    found = {
        entity.pk: entity
        for entity in _entities(scope).select_for_update().filter(pk__in=wanted).order_by("pk")
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


def _entities(scope: Scope) -> Any:
    return Entity.objects.using(keys_alias()).filter(project_id=scope.pk)


def _set_replacement(scope: Scope, alias: Alias, replacement: str, *, typed: bool = False) -> None:
    """`typed`: a person chose `replacement` (a relabel keeps it); else it was drawn."""
    alias.set_replacement(replacement)
    alias.replacement_typed = typed
    alias.save(
        using=keys_alias(), update_fields=["replacement", "replacement_key", "replacement_typed"]
    )
    replacement_words_rewrite(scope.secret, alias)


def _cut_tokens(
    scope: Scope, alias: Alias, original: str, label: str, decision: str, user_id: int | None
) -> None:
    """The token-level aliases of `alias` again, after its pseudonym or decision changed."""
    Alias.objects.using(keys_alias()).filter(parent_id=alias.pk).delete()
    if decision == Decision.PSEUDONYMIZE and alias.replacement:
        token_aliases_add(scope, alias, original, alias.replacement, label, alias.language, user_id)


def _replace(
    scope: Scope,
    entity: Entity,
    alias: Alias,
    replacement: str,
    decision: str,
    user_id: int | None,
    in_corpus: InCorpus,
) -> None:
    """Give `alias` a pseudonym the lead chose (checked), and cut its words again."""
    original = alias.original
    if crypto.normalise_surface(replacement) == alias.replacement_key:
        if replacement != alias.replacement:  # only its capitals change
            _set_replacement(scope, alias, replacement, typed=True)
        return
    check_replacement(scope, original, replacement, in_corpus, alias_id=alias.pk, told=True)
    if alias.parent_id is None:
        Alias.objects.using(keys_alias()).filter(parent_id=alias.pk).delete()
    _set_replacement(scope, alias, replacement, typed=True)
    if alias.parent_id is None:
        _cut_tokens(scope, alias, original, entity.label, decision, user_id)


def _draw_checked(
    scope: Scope, alias: Alias, original: str, label: str, in_corpus: InCorpus
) -> str:
    """A fresh pseudonym for `alias` that passes the lead's checks (the draw already avoids
    the table's originals and pseudonyms; this also avoids the documents' words)."""
    drawn = suggest(
        original,
        label,
        alias.language,
        scope.secret,
        count=DRAWS,
        taken=replacements_in_use(scope),
        forbidden=DigestSet(scope),
    )
    for candidate in drawn:
        try:
            check_replacement(scope, original, candidate, in_corpus, alias_id=alias.pk, told=True)
        except ReplacementRefused:
            continue
        return candidate
    raise DomainError(f"no pseudonym could be drawn for alias {alias.pk}: give it one")


def _settle(
    scope: Scope,
    entity: Entity,
    names: Iterable[tuple[Alias, str]],
    decision: str,
    user_id: int | None,
    in_corpus: InCorpus,
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
            _set_replacement(scope, alias, "")  # frees its pseudonym for the draw
            if decision == Decision.PSEUDONYMIZE:
                drawn = _draw_checked(scope, alias, original, entity.label, in_corpus)
            else:
                drawn = invalidate(original, scope.secret)
                check_replacement(scope, original, drawn, in_corpus, alias_id=alias.pk, told=True)
            _set_replacement(scope, alias, drawn)
            _cut_tokens(scope, alias, original, entity.label, decision, user_id)
        else:
            # Kept or deleted: no pseudonym, the words cut from it keep following it.
            for row in [alias, *children]:
                if row.replacement:
                    _set_replacement(scope, row, "")


def _names(entity_ids: Iterable[int]) -> list[Alias]:
    return list(
        Alias.objects.using(keys_alias())
        .filter(entity_id__in=list(entity_ids), parent__isnull=True)
        .order_by("pk")
    )


def _follow(
    entity_ids: Iterable[int], decision: str, keep_reason: str, *, entity_id: int | None = None
) -> SpansFollow:
    """The spans of `entity_ids` take the entity's decision (and, when given, its id)."""
    return SpansFollow(tuple(entity_ids), decision, kept_reason(decision, keep_reason), entity_id)


def _checked_decision(decision: str, keep_reason: str) -> str:
    """The reason an entity's `decision` carries, by the engine's rule (`check_decision`);
    DomainError when the rule refuses it."""
    try:
        return check_decision(decision, keep_reason, subject="entity")
    except DecisionRefused as error:
        raise DomainError(str(error)) from None


def _bump(entity: Entity, **fields: Any) -> None:
    for name, value in fields.items():
        setattr(entity, name, value)
    entity.version += 1
    entity.save(using=keys_alias(), update_fields=[*fields, "version", "updated_at"])


def entity_update(
    scope: Scope,
    *,
    entity_id: int,
    version: int | None,
    change: EntityChange,
    user_id: int | None,
    in_corpus: InCorpus,
) -> Edit:
    """Apply a lead's `change` to one entity, or raise having changed nothing."""
    with transaction.atomic(using=keys_alias()):
        entity = _locked(scope, [entity_id])[entity_id]
        _check_version(entity, version)
        prior = entity.decision
        decision = change.decision if change.decision is not None else prior
        keep_reason = change.keep_reason if change.keep_reason is not None else entity.keep_reason
        keep_reason = _checked_decision(decision, keep_reason)
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
            _settle(scope, entity, names, decision, user_id, in_corpus)
            detail["decision"] = [prior, decision]
        for alias_id, replacement in sorted(change.replacements.items()):
            alias = Alias.objects.using(keys_alias()).filter(pk=alias_id).first()
            if alias is not None:  # a word cut again above may have gone
                _replace(scope, entity, alias, replacement, decision, user_id, in_corpus)
        if change.replacements:
            detail["replacements"] = sorted(change.replacements)
        if keep_reason != entity.keep_reason:
            detail["keep_reason"] = True
        if len(detail) == 1:
            return Edit(entity.pk, None)
        _bump(entity, decision=decision, keep_reason=keep_reason)
        follow: tuple[SpansFollow, ...] = ()
        if decision != prior or "keep_reason" in detail:
            follow = (_follow([entity.pk], decision, keep_reason),)
    return Edit(entity.pk, detail, follow)


def entity_merge(
    scope: Scope,
    *,
    entity_id: int,
    other_id: int,
    version: int | None,
    other_version: int | None,
    decision: str | None,
    keep_reason: str | None,
    user_id: int | None,
    in_corpus: InCorpus,
) -> Edit:
    """Fold `other_id` into `entity_id`: its aliases move (its spans follow), it goes. Two
    entities decided differently merge only with the `decision` the merged one takes; the
    merged entity keeps `entity_id`'s label."""
    if entity_id == other_id:
        raise DomainError("an entity cannot be merged with itself")
    with transaction.atomic(using=keys_alias()):
        locked = _locked(scope, [entity_id, other_id])
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
        reason = _checked_decision(decision, reason)
        names = [
            (alias, entity.decision if alias.entity_id == entity.pk else other.decision)
            for alias in _names([entity.pk, other.pk])
        ]
        Alias.objects.using(keys_alias()).filter(entity_id=other.pk).update(entity_id=entity.pk)
        _settle(scope, entity, names, decision, user_id, in_corpus)
        follow = _follow([entity.pk, other.pk], decision, reason, entity_id=entity.pk)
        Entity.objects.using(keys_alias()).filter(pk=other.pk).delete()
        _bump(entity, decision=decision, keep_reason=reason)
    detail = {"action": "merge", "merged": other.pk, "decision": decision}
    return Edit(entity.pk, detail, (follow,))


def _move_names(
    scope: Scope,
    source: Entity,
    target: Entity,
    names: Sequence[Alias],
    user_id: int | None,
    in_corpus: InCorpus,
) -> SpansFollow:
    """Move `names` of `source` (with their words) to `target`, which may be new; they take
    its decision. The spans of their surfaces follow."""
    ids = [alias.pk for alias in names]
    moving = Alias.objects.using(keys_alias()).filter(Q(pk__in=ids) | Q(parent_id__in=ids))
    digests = frozenset(moving.values_list("original_digest", flat=True))
    moving.update(entity_id=target.pk)
    settled = [(alias, source.decision) for alias in names]
    _settle(scope, target, settled, target.decision, user_id, in_corpus)
    return SpansFollow((source.pk,), target.decision, target.keep_reason, target.pk, digests)


def entity_split(
    scope: Scope,
    *,
    entity_id: int,
    alias_ids: Sequence[int],
    version: int | None,
    user_id: int | None,
    in_corpus: InCorpus,
) -> Edit:
    """Move the chosen aliases of an entity (each with the words cut from it) to a new entity
    of the same label and decision; the spans of their surfaces follow. The new entity is
    the one `Edit.also` names.

    A word cut from a longer name ("Postlethwaite" of "Ottoline Postlethwaite") may be moved
    on its own: another person who bears that word. It becomes a name of the new entity,
    no longer cut from the other, with a pseudonym of its own (a word of the other's would
    tie the two together in a release); a later cut of the longer name leaves it where it
    is."""
    wanted = set(alias_ids)
    if not wanted:
        raise DomainError("choose the aliases to move to a new entity")
    with transaction.atomic(using=keys_alias()):
        entity = _locked(scope, [entity_id])[entity_id]
        _check_version(entity, version)
        names = _names([entity.pk])
        chosen = [alias for alias in names if alias.pk in wanted]
        moving = {alias.pk for alias in chosen}
        cut = list(
            Alias.objects.using(keys_alias())
            .filter(entity_id=entity.pk, pk__in=wanted, parent__isnull=False)
            .order_by("pk")
        )
        # A word of a name that moves goes with that name.
        words = [word for word in cut if word.parent_id not in moving]
        unknown = wanted - moving - {word.pk for word in cut}
        if unknown:
            raise DomainError(f"alias {min(unknown)} is not a name of entity {entity.pk}")
        if len(chosen) == len(names):
            raise DomainError("leave at least one alias in the entity")
        new = Entity.objects.using(keys_alias()).create(
            project_id=scope.pk,
            label=entity.label,
            decision=entity.decision,
            keep_reason=entity.keep_reason,
            created_by_id=user_id,
        )
        follow = _move_names(scope, entity, new, [*chosen, *words], user_id, in_corpus)
        for word in words:
            _detach(scope, new, word, in_corpus)
        _bump(entity)
    detail = {"action": "split", "aliases": sorted(wanted), "new": new.pk}
    also = ((new.pk, {"action": "split", "from": entity.pk}),)
    return Edit(entity.pk, detail, (follow,), also)


def _detach(scope: Scope, entity: Entity, word: Alias, in_corpus: InCorpus) -> None:
    """A word cut from a longer name becomes a name of `entity` of its own: no parent, and,
    pseudonymized, a pseudonym drawn for it (its piece of the longer name's would say that
    the two are one)."""
    word.refresh_from_db(using=keys_alias())
    word.parent = None
    word.save(using=keys_alias(), update_fields=["parent"])
    if entity.decision == Decision.PSEUDONYMIZE:
        _set_replacement(scope, word, "")
        drawn = _draw_checked(scope, word, word.original, entity.label, in_corpus)
        _set_replacement(scope, word, drawn)


def alias_link(
    scope: Scope,
    *,
    entity_id: int,
    alias_id: int,
    version: int | None,
    user_id: int | None,
    in_corpus: InCorpus,
) -> Edit:
    """Link an alias ("موشيه حايا") to an entity in another language ("Moshe Chaya"): the
    alias and the words cut from it move to `entity_id` and take its decision (the spans of
    those surfaces follow); the entity it leaves goes when no alias is left in it."""
    with transaction.atomic(using=keys_alias()):
        alias = project_aliases(scope).filter(pk=alias_id).first()
        if alias is None:
            raise NotFoundError(f"no alias {alias_id} in this project")
        if alias.parent_id is not None:
            raise DomainError(
                f"alias {alias_id} is a word cut from a longer name: link that name instead"
            )
        if alias.entity_id == entity_id:
            raise DomainError(f"alias {alias_id} is already an alias of entity {entity_id}")
        locked = _locked(scope, [entity_id, alias.entity_id])
        entity, source = locked[entity_id], locked[alias.entity_id]
        _check_version(entity, version)
        follow = [_move_names(scope, source, entity, [alias], user_id, in_corpus)]
        left = Alias.objects.using(keys_alias()).filter(entity_id=source.pk).exists()
        if left:
            _bump(source)
        else:
            # Nothing names the entity any more: whatever still points at it is the alias's.
            follow.append(
                _follow([source.pk], entity.decision, entity.keep_reason, entity_id=entity.pk)
            )
            Entity.objects.using(keys_alias()).filter(pk=source.pk).delete()
        _bump(entity)
    detail = {"action": "link", "alias": alias_id, "from": source.pk, "from_deleted": not left}
    return Edit(entity.pk, detail, tuple(follow))


def _redraw(
    scope: Scope,
    alias: Alias,
    label: str,
    decision: str,
    user_id: int | None,
    in_corpus: InCorpus,
    back: str | None = None,
) -> bool:
    """`alias` (a name, not a word cut from one) under its entity's new `label`: a pseudonym
    the server drew is drawn again for the label, one a person chose stays; its words are
    cut again by the label's rule (only a person's name has words of its own). True when a
    pseudonym was drawn again. An invalidated form, or none, owes nothing to the label.
    `back`: the pseudonym it had under that label (an undone relabel), taken again when the
    rules still allow it, else a fresh draw."""
    if decision != Decision.PSEUDONYMIZE:
        return False
    original = alias.original
    redrawn = not alias.replacement_typed
    if redrawn:
        Alias.objects.using(keys_alias()).filter(parent_id=alias.pk).delete()
        _set_replacement(scope, alias, "")  # frees its pseudonym for the draw
        pseudonym = None
        if back:
            try:
                check_replacement(scope, original, back, in_corpus, alias_id=alias.pk, told=True)
                pseudonym = back
            except ReplacementRefused:
                pseudonym = None
        if pseudonym is None:
            pseudonym = _draw_checked(scope, alias, original, label, in_corpus)
        _set_replacement(scope, alias, pseudonym)
    _cut_tokens(scope, alias, original, label, decision, user_id)
    return redrawn


def _family(alias: Alias) -> frozenset[str]:
    """The digests of `alias`'s surface and of the words cut from it."""
    rows = Alias.objects.using(keys_alias()).filter(Q(pk=alias.pk) | Q(parent_id=alias.pk))
    return frozenset(rows.values_list("original_digest", flat=True))


def surface_relabel(
    scope: Scope,
    *,
    entity_id: int,
    surface: str,
    label: str,
    relied_on: frozenset[str],
    user_id: int | None,
    in_corpus: InCorpus,
    back: str | None = None,
) -> Edit:
    """A person relabelled a decided span of `surface`, a name of `entity_id`, `label`
    (`back`: the pseudonym the surface had under `label`, when an undo relabels it back).
    `relied_on` holds the digests of the surfaces of the other spans a person decided that
    hold the entity (the Domain's to answer: the keys know no span).

    Relied on by none, the entity takes the label, and its names' pseudonyms the server
    drew are drawn again for it (`_redraw`); all of its spans follow. Relied on through
    its other names only (or the surface is a word cut from a longer name), the surface
    leaves: it moves, with the words cut from it, to a new entity of the label, its
    pseudonym drawn again for it (`Edit.also` names the new entity), and the spans of those
    surfaces follow. Another span of the surface itself (or of a word cut from it) decided
    under the entity's label: SurfaceConflict, the choice is the lead's (one surface, one
    choice)."""
    digest = crypto.surface_digest(scope.secret, surface)
    with transaction.atomic(using=keys_alias()):
        entity = _locked(scope, [entity_id])[entity_id]
        alias = project_aliases(scope).filter(entity_id=entity.pk, original_digest=digest).first()
        old = entity.label
        if alias is None or old == label:
            return Edit(entity.pk, None)  # not its name (the span follows the table), or done
        family = _family(alias)
        if relied_on & family:
            raise SurfaceConflict(
                f"this surface is {old} in another span of the project, and one surface has "
                "one choice: flag the span for the lead, who can relabel the entity",
                choice_of(alias),
            )
        if not relied_on and alias.parent_id is None:
            redrawn = [
                name.pk
                for name in _names([entity.pk])
                if _redraw(
                    scope,
                    name,
                    label,
                    entity.decision,
                    user_id,
                    in_corpus,
                    back if name.pk == alias.pk else None,
                )  # fmt: skip
            ]
            _bump(entity, label=label)
            detail: dict[str, Any] = {
                "action": "relabel",
                "label": [old, label],
                "redrawn": redrawn,
            }
            follow = SpansFollow((entity.pk,), entity.decision, entity.keep_reason, label=label)
            return Edit(entity.pk, detail, (follow,))
        new = Entity.objects.using(keys_alias()).create(
            project_id=scope.pk,
            label=label,
            decision=entity.decision,
            keep_reason=entity.keep_reason,
            created_by_id=user_id,
        )
        moving = Alias.objects.using(keys_alias()).filter(Q(pk=alias.pk) | Q(parent_id=alias.pk))
        moving.update(entity_id=new.pk)
        if alias.parent_id is not None:  # a word leaves the name it was cut from
            Alias.objects.using(keys_alias()).filter(pk=alias.pk).update(parent_id=None)
            alias.parent_id = None
        alias.entity_id = new.pk
        redrawn = (
            [alias.pk]
            if _redraw(scope, alias, label, new.decision, user_id, in_corpus, back)
            else []
        )
        _bump(entity)
        # The words cut from it before and after: a span of a word that went follows its name.
        digests = family | _family(alias)
        follow = SpansFollow((entity.pk,), new.decision, new.keep_reason, new.pk, digests, label)
    detail = {
        "action": "relabel",
        "label": [old, label],
        "alias": alias.pk,
        "new": new.pk,
        "redrawn": redrawn,
    }
    also = ((new.pk, {"action": "relabel", "label": [old, label], "from": entity.pk}),)
    return Edit(entity.pk, detail, (follow,), also)


def entity_relabel(scope: Scope, entity_id: int, label: str, *, in_corpus: InCorpus) -> None:
    """Give the entity `label` (a lead's resolution), when it has another: the pseudonyms
    the server drew for its names are drawn again for the label (`_redraw`)."""
    with transaction.atomic(using=keys_alias()):
        entity = _entities(scope).select_for_update().filter(pk=entity_id).first()
        if entity is None or entity.label == label:
            return
        for name in _names([entity.pk]):
            _redraw(scope, name, label, entity.decision, None, in_corpus)
        _bump(entity, label=label)


def project_keys_delete(project_id: int) -> None:
    """Everything the keys hold of a project: the word index, the aliases (words cut from
    longer names first), the entities, the review notes, the undo steps' notes, the
    pseudonyms drawn ahead."""
    keys = keys_alias()
    with transaction.atomic(using=keys):
        AliasWord.objects.using(keys).filter(project_id=project_id).delete()
        aliases = Alias.objects.using(keys).filter(project_id=project_id)
        aliases.filter(parent__isnull=False).delete()
        aliases.delete()
        Entity.objects.using(keys).filter(project_id=project_id).delete()
        ReviewNote.objects.using(keys).filter(project_id=project_id).delete()
        UndoNote.objects.using(keys).filter(project_id=project_id).delete()
        DrawnAhead.objects.using(keys).filter(project_id=project_id).delete()
