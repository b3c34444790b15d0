"""Deleting a project leaves nothing of it: no key table rows, no release files, no uploads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from annotator.errors import ConflictError
from annotator.keys.models import Alias, AliasWord, Entity
from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    ImportJob,
    JobStatus,
    Project,
    Release,
    Span,
)
from annotator.routers import keys_alias
from annotator.services.projects import project_delete
from annotator.services.releases.build import release_build
from annotator.services.releases.create import release_create
from annotator.services.releases.files import release_data_path
from tests.annotator.services.test_releases import SECOND, document_with
from tests.factories import ProjectFactory


def _keys_rows(project_id: int) -> int:
    keys = keys_alias()
    return sum(
        model.objects.using(keys).filter(project_id=project_id).count()
        for model in (Entity, Alias, AliasWord)
    )


@pytest.mark.django_db(transaction=True)
def test_nothing_of_a_deleted_project_remains(make_user: Any) -> None:
    project = ProjectFactory(slug="doomed", languages=["en"])
    other = ProjectFactory(slug="kept", languages=["en"])
    for target in (project, other):
        names = [("Moshe Chaya", "PER", "pseudonymize"), ("Sarah Levi", "PER", "pseudonymize")]
        document_with(target, SECOND, names)
        document_with(target, "Sarah Levi, again.", names[1:])
    releases = [
        release_build(
            release_create(project=project, strategy=s, format="jsonl", dispatch=False).pk
        )
        for s in ("S1", "realistic")
    ]
    assert [release.status for release in releases] == [JobStatus.DONE] * 2
    files = [release_data_path(release) for release in releases]
    upload = Path(settings.MEDIA_ROOT) / "imports" / "abc" / "corpus.jsonl"
    upload.parent.mkdir(parents=True)
    upload.write_text('{"text": "Moshe Chaya"}\n', encoding="utf-8")
    ImportJob.objects.create(project=project, filename="corpus.jsonl", stored_path=str(upload),
                             format="jsonl", status="done")  # fmt: skip
    project_id = project.pk
    assert _keys_rows(project_id) > 0 and all(path.is_file() for path in files)
    kept_before = _keys_rows(other.pk)

    admin = make_user()
    project_delete(project=project, actor=admin, ip_address="::1")

    assert not Project.objects.filter(pk=project_id).exists()
    assert _keys_rows(project_id) == 0
    assert not Release.objects.filter(project_id=project_id).exists()
    assert not Document.objects.filter(project_id=project_id).exists()
    assert not Span.objects.filter(document__project_id=project_id).exists()
    assert not ImportJob.objects.filter(project_id=project_id).exists()
    assert not any(path.exists() for path in files)
    assert not (Path(settings.MEDIA_ROOT) / "releases" / "doomed").exists()
    assert not upload.exists()
    # The other project is untouched.
    assert _keys_rows(other.pk) == kept_before and other.documents.count() == 2
    event = AuditEvent.objects.get(action=AuditAction.PROJECT_CHANGE, detail__event="deleted")
    assert event.actor == admin and event.target == f"project:{project_id}"
    assert event.detail == {"event": "deleted", "slug": "doomed", "documents": 2, "releases": 2}


@pytest.mark.django_db
def test_a_project_with_a_release_running_is_not_deleted() -> None:
    project = ProjectFactory(slug="busy", languages=["en"])
    release = release_create(project=project, strategy="S1", format="csv", dispatch=False)
    Release.objects.filter(pk=release.pk).update(status=JobStatus.RUNNING)
    with pytest.raises(ConflictError, match="running"):
        project_delete(project=project, actor=None)
    assert Project.objects.filter(pk=project.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_the_command_deletes_a_project_only_when_told_yes() -> None:
    from django.core.management import CommandError, call_command

    project = ProjectFactory(slug="old", languages=["en"])
    document_with(project, SECOND, [("Moshe Chaya", "PER", "pseudonymize")])
    with pytest.raises(CommandError, match="--yes"):
        call_command("delete_project", "old")
    assert Project.objects.filter(pk=project.pk).exists()

    call_command("delete_project", "old", "--yes")

    assert not Project.objects.filter(pk=project.pk).exists()
    assert _keys_rows(project.pk) == 0
    with pytest.raises(CommandError, match="no project"):
        call_command("delete_project", "old", "--yes")
