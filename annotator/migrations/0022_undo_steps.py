"""Undo steps leave the session (issue 32): the page's undo stack kept each span's pseudonym
in `django_session`, which the web role reads, beside offsets that the document's text turns
into originals. Steps now live in `UndoStep` (ids, offsets, versions) with their pseudonyms
in the keys (`keys.UndoNote`); the stacks already in sessions are dropped from them (an undo
that was possible before the upgrade is not after it)."""

from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

UNDO_KEY = "cloak_undo"  # where the session kept the stacks


def drop_session_stacks(apps: Any, schema_editor: Any) -> None:
    from django.contrib.sessions.backends.db import SessionStore

    Session = apps.get_model("sessions", "Session")
    store = SessionStore()
    database = schema_editor.connection.alias
    for session in Session.objects.using(database).iterator():
        data = store.decode(session.session_data)
        if UNDO_KEY in data:
            del data[UNDO_KEY]
            session.session_data = store.encode(data)
            session.save(using=database, update_fields=["session_data"])


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0021_review_kind_named_apart"),
        ("sessions", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="UndoStep",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("action", models.CharField(max_length=32)),
                ("spans", models.JSONField(default=list)),
                ("comment_id", models.BigIntegerField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotator.document",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["user", "document", "-id"], name="undostep_stack_idx")
                ],
            },
        ),
        migrations.RunPython(drop_session_stacks, migrations.RunPython.noop, elidable=True),
    ]
