"""The table's identity becomes the matcher's folding: every derived key is computed again.

Until now two surfaces were one alias when they agreed after NFC, case folding and spaces
(`original_digest`, `replacement_key`), while the known-entity matcher and the leak check
folded much more (accents, Arabic letter variants...). Now all of them use
`pseudonymizer.folding`, so this migration recomputes, for every alias, the keyed digest of its
original, the key of its replacement and its rows in the blind word index (`AliasWord`).

Two aliases of a project may now be one surface ("Moshé Chaya" and "Moshe Chaya" were
recorded apart). The older alias keeps the surface; for each later one:

- same entity: the later alias goes (the words cut from it that are not surfaces of their own
  follow the older alias); its spans already belong to the entity, and the surface now takes
  the older alias's pseudonym everywhere;
- another entity with the same label and decision: the two entities are one referent by the
  table's own rule (one surface, one entity), so the later entity is merged into the older
  one as `entity_merge` would (its aliases and spans move), then the later alias goes;
- another entity with another label or decision: nothing a person decided is chosen for
  them. The later alias goes (the surface can have one alias only) and the words cut from it
  stay with its entity as names of their own; the spans of that surface move to the older
  entity keeping their own decisions, and a "one surface, two decisions" review item asks the
  lead to decide, which then applies to all of them.

Two replacements of a project may now be one pseudonym ("Raj Avróm" and "Raj Avrom"): the
older alias keeps the key; the later one keeps its pseudonym (releases are not changed behind
the lead's back) under a key no surface folds to, so that the pseudonym is still taken for
every new choice, and a review item asks the lead to give it another.

Every change is written to the audit log as a key edit without an actor, and no original is
written anywhere. Writes to the default database (spans, review items, audit) are made last,
in one transaction: a failure leaves both databases as they were, but for the rare failure of
the keys database's own commit after that.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import migrations, transaction
from django.db.models import F
from django.db.models.functions import Substr

BATCH = 2000
DETAIL_IDS = 20
# A replacement key that no `fold_key` output has (it folds white space to single spaces).
_KEY_MARK = "\t#"


@dataclass
class _Alias:
    pk: int
    entity_id: int
    parent_id: int | None
    language: str
    original: str
    replacement: str
    replacement_key: str
    old_digest: str
    digest: str = ""

    def __post_init__(self) -> None:
        self.old_parent_id, self.old_entity_id = self.parent_id, self.entity_id


@dataclass
class _Plan:
    """What one project's aliases need: computed in memory, then written."""

    removed: set[int] = field(default_factory=set)
    merged_entities: dict[int, int] = field(default_factory=dict)  # later → older
    surface_conflicts: list[dict[str, Any]] = field(default_factory=list)
    shared_pseudonyms: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


def refold(apps: Any, schema_editor: Any) -> None:
    from annotator.keys import crypto

    database = schema_editor.connection.alias
    Alias = apps.get_model("keys", "Alias")
    Project = apps.get_model("annotator", "Project")
    project_ids = set(Alias.objects.using(database).values_list("project_id", flat=True).distinct())
    if not project_ids:
        return
    # Projects live in the default database, which may not be this one.
    secrets = dict(
        Project.objects.using("default").filter(pk__in=project_ids).values_list("pk", "secret")
    )
    plans: dict[int, _Plan] = {}
    for project_id in sorted(project_ids):
        secret = secrets.get(project_id)
        if secret is None:
            continue  # a project deleted without its keys: nothing can look them up
        plans[project_id] = _refold_project(apps, database, project_id, secret, crypto)
    _write_default(apps, database, plans, secrets, crypto)


def _load(Alias: Any, database: str, project_id: int, crypto: Any) -> list[_Alias]:
    fields = ("pk", "entity_id", "parent_id", "language", "original_encrypted", "replacement")
    rows = Alias.objects.using(database).filter(project_id=project_id).order_by("pk")
    return [
        _Alias(
            pk=row.pk,
            entity_id=row.entity_id,
            parent_id=row.parent_id,
            language=row.language,
            original=crypto.decrypt(row.original_encrypted),
            replacement=row.replacement,
            replacement_key=row.replacement_key,
            old_digest=row.original_digest,
        )
        for row in rows.only(*fields, "replacement_key", "original_digest").iterator(
            chunk_size=BATCH
        )
    ]


def _refold_project(apps: Any, database: str, project_id: int, secret: str, crypto: Any) -> _Plan:
    Alias = apps.get_model("keys", "Alias")
    Entity = apps.get_model("keys", "Entity")
    aliases = {alias.pk: alias for alias in _load(Alias, database, project_id, crypto)}
    entities = {
        pk: (label, decision)
        for pk, label, decision in Entity.objects.using(database)
        .filter(project_id=project_id)
        .values_list("pk", "label", "decision")
    }
    plan = _Plan()
    groups: dict[str, list[int]] = defaultdict(list)
    for alias in aliases.values():
        alias.digest = crypto.surface_digest(secret, alias.original)
        groups[alias.digest].append(alias.pk)
    for digest, members in sorted(groups.items(), key=lambda item: min(item[1])):
        older = aliases[members[0]]
        for pk in members[1:]:
            _settle_duplicate(aliases, entities, plan, older, aliases[pk], digest)
    _write_aliases(apps, database, project_id, aliases, plan, secret, crypto)
    return plan


def _children(aliases: dict[int, _Alias], pk: int, plan: _Plan) -> list[_Alias]:
    return [a for a in aliases.values() if a.parent_id == pk and a.pk not in plan.removed]


def _settle_duplicate(
    aliases: dict[int, _Alias],
    entities: dict[int, tuple[str, str]],
    plan: _Plan,
    older: _Alias,
    later: _Alias,
    digest: str,
) -> None:
    # The name the words of `later` are cut from from now on: the older alias's full name.
    parent = aliases[older.parent_id] if older.parent_id is not None else older
    if older.entity_id != later.entity_id:
        mine, theirs = entities[older.entity_id], entities[later.entity_id]
        if mine == theirs:
            gone = later.entity_id
            for alias in aliases.values():
                if alias.entity_id == gone:
                    alias.entity_id = older.entity_id
            plan.merged_entities[gone] = older.entity_id
            entities.pop(gone)
            plan.events.append(
                (older.entity_id, {"action": "merge", "merged": gone, "refold": True})
            )
        else:
            for child in _children(aliases, later.pk, plan):
                child.parent_id = None  # a name of its own, still of its entity
            plan.removed.add(later.pk)
            plan.surface_conflicts.append(
                {
                    "entity_id": older.entity_id,
                    "other_entity_id": later.entity_id,
                    "label": mine[0],
                    "labels": sorted({mine[0], theirs[0]}),
                    "decisions": sorted({mine[1], theirs[1]}),
                    "recorded": mine[1],
                    "language": later.language,
                    "languages": sorted({older.language, later.language}),
                    "digest": digest,
                    "aliases": [older.pk, later.pk],
                }
            )
            plan.events.append(
                (later.entity_id, {"action": "refold", "alias_removed": later.pk,
                                   "surface_of": older.entity_id, "review": True})
            )  # fmt: skip
            return
    for child in _children(aliases, later.pk, plan):
        child.parent_id = parent.pk
        child.entity_id = parent.entity_id
    plan.removed.add(later.pk)
    plan.events.append(
        (older.entity_id, {"action": "refold", "alias_removed": later.pk, "kept": older.pk})
    )


def _write_aliases(
    apps: Any,
    database: str,
    project_id: int,
    aliases: dict[int, _Alias],
    plan: _Plan,
    secret: str,
    crypto: Any,
) -> None:
    from annotator.keys.words import alias_digests

    Alias = apps.get_model("keys", "Alias")
    AliasWord = apps.get_model("keys", "AliasWord")
    Entity = apps.get_model("keys", "Entity")
    rows = Alias.objects.using(database)
    kept = [alias for pk, alias in aliases.items() if pk not in plan.removed]
    # Children first moved away from the aliases that go, then those go (no cascade takes a
    # word that stays), then the entities merged away.
    moved = [
        Alias(pk=a.pk, parent_id=a.parent_id, entity_id=a.entity_id)
        for a in kept
        if (a.parent_id, a.entity_id) != (a.old_parent_id, a.old_entity_id)
    ]
    rows.bulk_update(moved, ["parent_id", "entity_id"], batch_size=500)
    rows.filter(pk__in=plan.removed).delete()
    merged = Entity.objects.using(database).filter(pk__in=list(plan.merged_entities))
    merged.delete()
    Entity.objects.using(database).filter(
        pk__in={_final(plan, pk) for pk in plan.merged_entities.values()}
    ).update(version=F("version") + 1)
    # No two kept aliases share a new digest, and a new digest equal to another alias's old
    # one would mean the two fold alike (one of them is gone): no step breaks the constraint.
    changed = [Alias(pk=a.pk, original_digest=a.digest) for a in kept if a.digest != a.old_digest]
    rows.bulk_update(changed, ["original_digest"], batch_size=500)
    _rekey_replacements(rows, kept, plan, crypto)
    AliasWord.objects.using(database).filter(project_id=project_id).delete()
    words = [
        AliasWord(alias_id=alias.pk, project_id=project_id, digest=digest)
        for alias in kept
        for digest in sorted(
            alias_digests(
                secret, alias.original, alias.replacement, token=alias.parent_id is not None
            )
        )
    ]
    AliasWord.objects.using(database).bulk_create(words, batch_size=BATCH, ignore_conflicts=True)


def _rekey_replacements(rows: Any, kept: list[_Alias], plan: _Plan, crypto: Any) -> None:
    by_key: dict[str, list[_Alias]] = defaultdict(list)
    for alias in kept:
        if alias.replacement_key:
            by_key[crypto.normalise_surface(alias.replacement)].append(alias)
    updates: list[tuple[_Alias, str]] = []
    marked: list[tuple[_Alias, str]] = []
    for key, members in by_key.items():
        older, *later = members
        updates.append((older, key))
        for alias in later:
            marked.append((alias, f"{key[:480]}{_KEY_MARK}{alias.pk}"))
            plan.shared_pseudonyms.append(
                {"entity_id": alias.entity_id, "alias_id": alias.pk, "shared_with": older.pk,
                 "language": alias.language}
            )  # fmt: skip
            plan.events.append(
                (alias.entity_id, {"action": "refold", "pseudonym_shared": alias.pk,
                                   "with": older.pk, "review": True})
            )  # fmt: skip
    # The later ones first: an older alias's new key may be a later one's old key.
    for alias, key in [*marked, *updates]:
        if key != alias.replacement_key:
            rows.filter(pk=alias.pk).update(replacement_key=key)


def _final(plan: _Plan, entity_id: int) -> int:
    """The entity `entity_id` ended up in, after the merges of the plan."""
    while entity_id in plan.merged_entities:
        entity_id = plan.merged_entities[entity_id]
    return entity_id


def _fingerprint(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


def _write_default(
    apps: Any, database: str, plans: dict[int, _Plan], secrets: dict[int, str], crypto: Any
) -> None:
    Span = apps.get_model("annotator", "Span")
    ReviewItem = apps.get_model("annotator", "ReviewItem")
    AuditEvent = apps.get_model("annotator", "AuditEvent")
    Entity = apps.get_model("keys", "Entity")
    labels = dict(Entity.objects.using(database).values_list("pk", "label"))
    with transaction.atomic(using="default"):
        spans = Span.objects.using("default")
        for project_id, plan in plans.items():
            for gone, kept in plan.merged_entities.items():
                spans.filter(entity_id=gone).update(entity_id=kept, version=F("version") + 1)
            for item in plan.surface_conflicts:
                item["entity_id"] = _final(plan, item["entity_id"])
                item["other_entity_id"] = _final(plan, item["other_entity_id"])
                _surface_conflict(spans, ReviewItem, project_id, secrets[project_id], item, crypto)
            for item in plan.shared_pseudonyms:
                _shared_pseudonym(ReviewItem, project_id, labels, item)
            AuditEvent.objects.using("default").bulk_create(
                AuditEvent(
                    project_id=project_id,
                    action="key_edit",
                    target=f"entity:{entity_id}",
                    detail=detail,
                )
                for entity_id, detail in plan.events
            )


def _surface_conflict(
    spans: Any, ReviewItem: Any, project_id: int, secret: str, item: dict[str, Any], crypto: Any
) -> None:
    """Move the spans of the surface to the entity that now holds it (their decisions stay
    theirs) and open a "one surface, two decisions" item on one of them."""
    rows = (
        spans.filter(entity_id=item["other_entity_id"])
        .annotate(surface=Substr("document__text", F("start") + 1, F("end") - F("start")))
        .values_list("pk", "document_id", "surface")
        .order_by("pk")
    )
    moving = [
        (pk, document_id)
        for pk, document_id, surface in rows
        if crypto.surface_digest(secret, surface) == item["digest"]
    ]
    spans.filter(pk__in=[pk for pk, _ in moving]).update(
        entity_id=item["entity_id"], version=F("version") + 1
    )
    fingerprint = _fingerprint("refold", "surface", project_id, *item["aliases"])
    detail = {key: value for key, value in item.items() if key not in ("digest", "aliases")}
    detail["spans"] = [pk for pk, _ in moving][:DETAIL_IDS]
    detail["why"] = (
        "Two entities held this surface written two ways; Cloak now reads them as one "
        "surface. Decide it once for both."
    )
    ReviewItem.objects.using("default").get_or_create(
        project_id=project_id,
        fingerprint=fingerprint,
        status="open",
        defaults={
            "kind": "surface_conflict",
            "entity_id": item["entity_id"],
            "span_id": moving[0][0] if moving else None,
            "document_id": moving[0][1] if moving else None,
            "detail": detail,
        },
    )


def _shared_pseudonym(
    ReviewItem: Any, project_id: int, labels: dict[int, str], item: dict[str, Any]
) -> None:
    """An "entity" item naming the alias whose pseudonym the lead should change."""
    ReviewItem.objects.using("default").get_or_create(
        project_id=project_id,
        fingerprint=_fingerprint("refold", "pseudonym", project_id, item["alias_id"]),
        status="open",
        defaults={
            "kind": "entity_conflict",
            "entity_id": item["entity_id"],
            "detail": {
                "entity_id": item["entity_id"],
                "label": labels.get(item["entity_id"], ""),
                "language": item["language"],
                "alias_id": item["alias_id"],
                "alias_ids": sorted([item["alias_id"], item["shared_with"]]),
                "why": (
                    "This pseudonym and another entity's are now one pseudonym (they differ "
                    "only in case, accents or the like): give this alias another."
                ),
            },
        },
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0007_replicas_review_proposals"),
        ("keys", "0005_review_notes"),
    ]

    operations = [migrations.RunPython(refold, migrations.RunPython.noop)]
