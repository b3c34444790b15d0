"""Index the words of the aliases recorded before the blind word index existed."""

from typing import Any

from django.db import migrations

BATCH = 2000


def backfill(apps: Any, schema_editor: Any) -> None:
    from annotator.keys import crypto
    from annotator.keys.words import alias_digests

    database = schema_editor.connection.alias
    Alias = apps.get_model("keys", "Alias")
    AliasWord = apps.get_model("keys", "AliasWord")
    Project = apps.get_model("annotator", "Project")
    aliases = Alias.objects.using(database)
    project_ids = set(aliases.values_list("project_id", flat=True).distinct())
    if not project_ids:
        return
    # Projects live in the default database, which may not be this one.
    secrets = dict(
        Project.objects.using("default").filter(pk__in=project_ids).values_list("pk", "secret")
    )
    rows: list[Any] = []
    fields = ("pk", "project_id", "original_encrypted", "replacement", "parent_id")
    for alias in aliases.only(*fields).iterator(chunk_size=BATCH):
        secret = secrets.get(alias.project_id)
        if secret is None:
            continue
        original = crypto.decrypt(alias.original_encrypted)
        token = alias.parent_id is not None
        for digest in alias_digests(secret, original, alias.replacement, token=token):
            rows.append(AliasWord(alias_id=alias.pk, project_id=alias.project_id, digest=digest))
        if len(rows) >= BATCH:
            AliasWord.objects.using(database).bulk_create(rows, ignore_conflicts=True)
            rows = []
    AliasWord.objects.using(database).bulk_create(rows, ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [("keys", "0003_alias_words")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True)]
