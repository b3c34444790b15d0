"""Review items' pseudonyms move to the keys (`ReviewNote`), out of the web role's reach.

Items raised before kept them in `annotator_reviewitem.detail` and `.resolution` ("replacements"
of an entity conflict, the "replacement" found as an original, the "wanted" and "recorded"
pseudonyms of a refused choice, the one a resolution applied), and their fingerprints hashed
pseudonyms without a key. Each such item gets a note with its pseudonyms, then loses them,
and its fingerprint is made again from keyed digests as `annotator.services.review` now makes
it, so that a scan still knows the conflicts it raised. A note is written before its item is
stripped, and each step commits on its own: an interrupted run loses nothing and a second run
finishes it. Review items live in the default database, which may not be this one.
"""

from __future__ import annotations

import hashlib
from typing import Any

import django.db.models.deletion
from django.db import connections, migrations, models

DEFAULT = "default"
BATCH = 500


def _fingerprint(kind: str, *parts: object) -> str:
    # As annotator.services.review._fingerprint.
    return hashlib.sha256("\x1f".join([kind, *map(str, parts)]).encode()).hexdigest()


def _split(stored: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(what stays in the item, what goes to the note): every pseudonym the item held."""
    kept = dict(stored)
    note: dict[str, Any] = {}
    for key in ("replacement", "replacements"):
        if key in kept:
            note[key] = kept.pop(key)
    for key in ("wanted", "recorded"):
        inner = kept.get(key)
        if isinstance(inner, dict) and "replacement" in inner:
            inner = dict(inner)
            note[key] = {"replacement": inner.pop("replacement")}
            kept[key] = inner
    return kept, note


def _refingerprint(item: Any, pairs: dict[str, Any], digest: Any, replacements: Any) -> str:
    """The item's fingerprint with its pseudonyms keyed, or a keyed digest of the old one
    when what it was made of is gone (it then matches nothing a scan finds: at worst a
    conflict is raised once more)."""
    detail = item.detail if isinstance(item.detail, dict) else {}
    if item.kind == "original_replacement" and "replacement" in pairs and detail.get("alias_id"):
        return _fingerprint(item.kind, detail["alias_id"], digest(pairs["replacement"]))
    if item.kind == "entity_conflict" and detail.get("alias_ids"):
        current = replacements(detail["alias_ids"])
        if len(current) == len(detail["alias_ids"]):
            return _fingerprint(
                item.kind,
                item.entity_id,
                detail.get("language", ""),
                sorted((pk, digest(replacement)) for pk, replacement in current.items()),
            )
    wanted = detail.get("wanted")
    if item.kind == "surface_conflict" and isinstance(wanted, dict) and item.document_id:
        where = (
            item.span_id
            if item.span_id is not None
            else f"{detail.get('start')}:{detail.get('end')}"
        )
        typed = (pairs.get("wanted") or {}).get("replacement") or ""
        return _fingerprint(
            "attempt", item.document_id, where, wanted.get("decision"),
            digest(typed) if typed else "", detail.get("entity_id", item.entity_id),
        )  # fmt: skip
    return digest(item.fingerprint)


def forwards(apps: Any, schema_editor: Any) -> None:
    from annotator.keys import crypto

    database = schema_editor.connection.alias
    if "annotator_reviewitem" not in connections[DEFAULT].introspection.table_names():
        return  # a new install: nothing raised yet
    ReviewItem = apps.get_model("annotator", "ReviewItem")
    Project = apps.get_model("annotator", "Project")
    ReviewNote = apps.get_model("keys", "ReviewNote")
    Alias = apps.get_model("keys", "Alias")
    secrets = dict(Project.objects.using(DEFAULT).values_list("pk", "secret"))
    items = ReviewItem.objects.using(DEFAULT).order_by("pk")
    last = 0
    while True:
        batch = list(items.filter(pk__gt=last)[:BATCH])
        if not batch:
            return
        last = batch[-1].pk
        for item in batch:
            detail, from_detail = _split(item.detail if isinstance(item.detail, dict) else {})
            resolution, from_resolution = _split(
                item.resolution if isinstance(item.resolution, dict) else {}
            )
            if not from_detail and not from_resolution:
                continue
            secret = secrets.get(item.project_id, "")

            def digest(pseudonym: str, secret: str = secret) -> str:
                return crypto.surface_digest(secret, pseudonym)

            def replacements(alias_ids: list[int]) -> dict[int, str]:
                rows = Alias.objects.using(database).filter(pk__in=alias_ids)
                return dict(rows.values_list("pk", "replacement"))

            note, _ = ReviewNote.objects.using(database).get_or_create(
                item_id=item.pk, defaults={"project_id": item.project_id}
            )
            note.detail = {**(note.detail or {}), **from_detail}
            note.resolution = {**(note.resolution or {}), **from_resolution}
            note.save(using=database, update_fields=["detail", "resolution"])
            fingerprint = item.fingerprint
            if fingerprint:
                fingerprint = _refingerprint(item, from_detail, digest, replacements)
            ReviewItem.objects.using(DEFAULT).filter(pk=item.pk).update(
                detail=detail, resolution=resolution, fingerprint=fingerprint
            )


class Migration(migrations.Migration):
    # Each note commits before its item is stripped (see the module's docstring).
    atomic = False

    dependencies = [
        ("annotator", "0009_learned_models"),
        ("keys", "0004_backfill_alias_words"),
    ]

    operations = [
        migrations.CreateModel(
            name="ReviewNote",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "item_id",
                    models.BigIntegerField(help_text="The annotator.ReviewItem's id", unique=True),
                ),
                ("detail", models.JSONField(blank=True, default=dict)),
                ("resolution", models.JSONField(blank=True, default=dict)),
                (
                    "project",
                    models.ForeignKey(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="annotator.project",
                    ),
                ),
            ],
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop, elidable=True),
    ]
