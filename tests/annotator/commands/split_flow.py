"""The whole human loop with the keys in their own schema and role, as a deployment runs it:
run as a script by `test_provision_keys_db.py` after provisioning, with DATABASE_URL naming
the web role and KEYS_DATABASE_URL the keys role. Prints one line per step; exits non-zero
(an assertion) when a step does not do what it should."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.db.utils import ProgrammingError  # noqa: E402

from annotator.celery import app as celery_app  # noqa: E402
from annotator.keys.transfer import export_table  # noqa: E402
from annotator.models import Document, DocumentStatus, Span, SpanStatus  # noqa: E402
from annotator.services.projects import membership_set, project_create  # noqa: E402
from annotator.services.quality import project_quality  # noqa: E402
from annotator.services.releases.build import release_build  # noqa: E402
from annotator.services.releases.create import release_create  # noqa: E402
from annotator.services.releases.files import release_data_path  # noqa: E402
from annotator.services.review.scan import review_scan  # noqa: E402
from annotator.services.runs import run_create, run_execute  # noqa: E402
from annotator.services.spans import (  # noqa: E402
    SpanChange,
    document_status_set,
    span_create,
    span_update,
)
from annotator.services.table import KeyFilters, entity_page  # noqa: E402

celery_app.conf.task_always_eager = True
celery_app.conf.task_eager_propagates = True
NAMES = [("Moshe Chaya", "PER"), ("Sarah Levi", "PER"), ("Lyon", "LOC")]
TEXTS = ["Moshe Chaya met Sarah Levi in Lyon.", "Later, Moshe Chaya called +33 6 12 34 56 78."]


def main() -> None:
    assert connections["default"].settings_dict["USER"] != connections["keys"].settings_dict["USER"]
    admin = get_user_model().objects.create_superuser("flow-admin", password="x" * 16)
    project = project_create(slug="flow", languages=["en"], created_by=admin)
    membership_set(project=project, username="flow-annotator", role="annotator",
                   languages=["en"], password="yellow-kite-44-river", actor=admin)  # fmt: skip
    annotator = get_user_model().objects.get(username="flow-annotator")
    documents = [
        Document.objects.create(
            project=project, language="en", external_id=f"d{i}", text=text, assignee=annotator
        )  # fmt: skip
        for i, text in enumerate(TEXTS)
    ]
    run = run_create(project=project, actor=admin, language="en", use_ner=False, dispatch=False)
    run_execute(run=run)
    print("run", run.status)

    for document in documents:
        for surface, label in NAMES:
            start = document.text.find(surface)
            taken = Span.objects.filter(document=document, start=start).exists()
            if start >= 0 and not taken:
                span_create(document=document, actor=annotator, start=start,
                            end=start + len(surface), label=label)  # fmt: skip
        for span in Span.objects.filter(document=document, status=SpanStatus.PROPOSED):
            span_update(document=document, span_id=span.pk, actor=annotator,
                        version=span.version, change=SpanChange(status="accepted"))  # fmt: skip
        # As a page or the API calls it: in autocommit, with no transaction around it.
        document_status_set(document=document, actor=annotator, status=DocumentStatus.DONE)
    decided = Span.objects.filter(document__project=project, status=SpanStatus.ACCEPTED)
    assert decided.count() == 5 and not decided.filter(entity_id__isnull=True).exists()
    print("decided", decided.count())

    page = entity_page(project, KeyFilters(q="chaya"), actor=admin)
    assert [[name.original for name in row.names] for row in page.rows] == [["Moshe Chaya"]]
    print("searched", page.rows[0].id)
    print("scanned", review_scan(project=project).raised)
    assert project_quality(project).preannotation.documents == 2
    # As the run: no NER model, so that the release's own detection runs the CPU detectors.
    settings.CLOAK_NER_MODELS = {**settings.CLOAK_NER_MODELS, "en": ""}
    for strategy in ("realistic", "S3"):
        release = release_create(project=project, strategy=strategy, format="jsonl",
                                 actor=admin, dispatch=False)  # fmt: skip
        release = release_build(release.pk)
        assert release.status == "done", (release.status, release.error)
        assert release.manifest["counts"]["documents_released"] == 2, release.manifest
        data = release_data_path(release).read_text(encoding="utf-8")
        assert "Moshe" not in data and "Lyon" not in data and "12 34 56" not in data
        print("released", strategy)
    assert len(export_table(project).to_dict()) > 0
    with connection.cursor() as cursor:
        try:
            cursor.execute("SELECT count(*) FROM cloak_keys.keys_alias")
        except ProgrammingError as error:
            assert "permission denied" in str(error), error
            print("web role denied the keys")
        else:
            raise AssertionError("the web role read the key table")


if __name__ == "__main__":
    main()
