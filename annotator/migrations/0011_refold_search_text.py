"""Fold every document's search text again: the matching form now also folds ta marbuta,
zero-width and format characters, digits of every script and compatibility forms
(`pseudonymizer.folding`), and propagation narrows documents on this column."""

from typing import Any

from django.db import migrations

BATCH = 500


def refold(apps: Any, schema_editor: Any) -> None:
    from pseudonymizer.folding import fold

    database = schema_editor.connection.alias
    Document = apps.get_model("annotator", "Document")
    documents = Document.objects.using(database).order_by("pk").only("pk", "text", "search_text")
    last = 0
    while True:
        # By id, a batch at a time: no cursor held open and at most one batch in memory.
        batch = list(documents.filter(pk__gt=last)[:BATCH])
        if not batch:
            return
        last = batch[-1].pk
        changed = []
        for document in batch:
            folded = fold(document.text)
            if folded != document.search_text:
                document.search_text = folded
                changed.append(document)
        Document.objects.using(database).bulk_update(changed, ["search_text"])


class Migration(migrations.Migration):
    dependencies = [("annotator", "0010_release_detection_check")]

    operations = [migrations.RunPython(refold, migrations.RunPython.noop, elidable=True)]
