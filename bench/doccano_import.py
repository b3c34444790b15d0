"""doccano 1.8.4's import of a JSONL file with span labels, timed: run by import_bench.py.

Runs under doccano's own interpreter (`import_bench.py --doccano-python PATH`), never under
Cloak's, and imports nothing of Cloak but import_bench's measure (standard library only).
Two steps, each in a fresh process so that the second one's peak memory is the import's and
not the migrations':

    python bench/doccano_import.py migrate FOLDER
    python bench/doccano_import.py import FOLDER FILE.jsonl

`FOLDER` holds doccano's SQLite database and media folder. `import` creates a user and a
sequence-labelling project, stores the file as an upload the way doccano's upload view does
(django-drf-filepond's TemporaryUpload), and calls doccano's own import task,
`data_import.celery_tasks.import_dataset`, in this process (a Celery task called directly
runs its body here, as an eager worker would). It prints one line of JSON: seconds, CPU
seconds, peak RSS of the process, and what doccano stored.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# Measured as Cloak's import is; that module imports nothing but the standard library.
from bench.import_bench import peak_rss_mb  # noqa: E402


def setup(folder: Path) -> None:
    import backend

    # doccano's apps import each other as top-level packages (`projects`, `examples`, …).
    sys.path.insert(0, os.path.dirname(backend.__file__))
    # doccano's production settings, with its upload folder in FOLDER too (by default it
    # is inside the installed package).
    (folder / "bench_doccano_settings.py").write_text(
        "from config.settings.production import *  # noqa: F403\n"
        f"DJANGO_DRF_FILEPOND_UPLOAD_TMP = {str(folder / 'uploads')!r}\n"
    )
    sys.path.insert(0, str(folder))
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench_doccano_settings"
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'db.sqlite3'}"
    os.environ["MEDIA_ROOT"] = str(folder / "media")
    os.environ.setdefault("SECRET_KEY", "bench-secret-key")
    import django

    django.setup()


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def run_import(path: Path) -> dict[str, object]:
    from data_import.celery_tasks import import_dataset
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.files import File
    from django_drf_filepond.models import TemporaryUpload
    from django_drf_filepond.utils import _get_file_id
    from examples.models import Example
    from labels.models import Span
    from projects.models import Member, ProjectType, SequenceLabelingProject
    from roles.models import Role

    user = get_user_model().objects.create_superuser("bench", "bench@example.org", "bench")
    project = SequenceLabelingProject.objects.create(
        name="bench", project_type=ProjectType.SEQUENCE_LABELING, created_by=user
    )
    role, _ = Role.objects.get_or_create(name=settings.ROLE_PROJECT_ADMIN)  # type: ignore[misc]
    Member.objects.create(project=project, user=user, role=role)
    upload_id = _get_file_id()
    with path.open("rb") as stream:
        TemporaryUpload.objects.create(
            upload_id=upload_id,
            file_id=_get_file_id(),
            file=File(stream, path.name),
            upload_name=path.name,
            upload_type="F",
        )
    started = time.perf_counter()
    cpu = time.process_time()
    result = import_dataset(
        user.id, project.id, "JSONL", [upload_id], ProjectType.SEQUENCE_LABELING,
        column_data="text", column_label="label",
    )  # fmt: skip
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu
    return {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "peak_rss_mb": peak_rss_mb(),
        "documents": Example.objects.filter(project=project).count(),
        "spans": Span.objects.filter(example__project=project).count(),
        "errors": len(result["error"]),
    }


def main() -> None:
    step, folder = sys.argv[1], Path(sys.argv[2])
    setup(folder)
    if step == "migrate":
        migrate()
    else:
        print(json.dumps(run_import(Path(sys.argv[3]))))


if __name__ == "__main__":
    main()
