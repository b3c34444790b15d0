"""Learned models written in clear by an older Cloak are sealed with the keys' secret.

A model used to be a folder under MEDIA_ROOT/learned/ (spaCy's files and its description),
whose vocabulary and string store hold the words it learned from, originals among them. Each
such folder is loaded, written as one sealed file beside it (`annotator.keys.sealed`, bound to
the model's id, as `annotator.services.learning` writes them now), the model's row pointed at
the file, and the folder removed. A folder that is gone or not a model is left as it is and
its row untouched (a run then says the model cannot be loaded). Safe to run again: a row that
points at a sealed file is done.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import migrations

from annotator.keys.sealed import write_sealed
from pseudonymizer.learning import LearningError, load

PURPOSE = "learned-model"  # as annotator.services.learning.SEALED_PURPOSE
SUFFIX = ".sealed"


def seal_folders(apps: Any, schema_editor: Any) -> None:
    LearnedModel = apps.get_model("annotator", "LearnedModel")
    database = schema_editor.connection.alias
    media = Path(settings.MEDIA_ROOT)
    for model in LearnedModel.objects.using(database).exclude(path="").order_by("pk"):
        folder = media / model.path
        if not folder.is_dir():
            continue
        try:
            data = load(folder).to_bytes()
        except LearningError:
            continue
        relative = f"{model.path.rstrip('/')}{SUFFIX}"
        write_sealed(media / relative, data, purpose=PURPOSE, context=f"learned:{model.pk}")
        LearnedModel.objects.using(database).filter(pk=model.pk).update(path=relative)
        shutil.rmtree(folder)


class Migration(migrations.Migration):
    # Each model is sealed, its row pointed at the file and its folder removed in turn.
    atomic = False

    dependencies = [("annotator", "0011_refold_search_text")]

    operations = [migrations.RunPython(seal_folders, migrations.RunPython.noop, elidable=True)]
