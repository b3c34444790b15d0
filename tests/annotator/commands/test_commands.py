from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotator.models import AuditEvent, Document, Membership, Project, Role

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_create_project_with_a_preset_schema() -> None:
    output = run("create_project", "radical", "--languages", "en,fr,ar", "--schema", "cloaked")
    project = Project.objects.get(slug="radical")
    assert project.languages == ["en", "fr", "ar"]
    assert "PER" in project.labels and "OTH:CONSPI" in project.labels
    assert len(project.secret) >= 32
    assert "Created project radical" in output


def test_create_project_with_a_schema_file(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"name": "mine", "labels": [{"name": "NAME"}, {"name": "CITY"}]}))
    run("create_project", "clinic", "--languages", "de", "--schema", str(schema))
    assert Project.objects.get(slug="clinic").labels == ["NAME", "CITY"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bad slug!", "--languages", "en"], "not a valid slug"),
        (["ok", "--languages", "english"], "not a language code"),
        (["ok", "--languages", "en", "--schema", "nope"], "neither a preset"),
    ],
)
def test_create_project_refuses_bad_input(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run("create_project", *args)
    assert not Project.objects.exists()


def test_add_member_creates_the_user_and_the_membership() -> None:
    run("create_project", "radical", "--languages", "en,fr,ar")
    run("add_member", "radical", "amina", "--role", "annotator", "--languages", "ar",
        "--password", "a-long-password")  # fmt: skip
    membership = Membership.objects.get(user__username="amina")
    assert membership.role == Role.ANNOTATOR
    assert membership.languages == ["ar"]
    assert get_user_model().objects.get(username="amina").check_password("a-long-password")
    assert AuditEvent.objects.filter(action="member_change").exists()


def test_add_member_refuses_a_language_outside_the_project() -> None:
    run("create_project", "radical", "--languages", "en")
    with pytest.raises(CommandError, match="not in project radical"):
        run("add_member", "radical", "x", "--role", "annotator", "--languages", "de",
            "--password", "pw-pw-pw-pw")  # fmt: skip
    assert not Membership.objects.exists()


def test_add_member_refuses_an_annotator_without_languages() -> None:
    run("create_project", "radical", "--languages", "en")
    with pytest.raises(CommandError, match="needs at least one language"):
        run("add_member", "radical", "x", "--role", "annotator", "--password", "pw-pw-pw-pw")


def test_import_documents_reports_and_writes(tmp_path: Path) -> None:
    run("create_project", "radical", "--languages", "en,fr")
    path = tmp_path / "docs.jsonl"
    path.write_text(
        json.dumps({"id": "1", "lang": "en", "text": "Hi Moshe",
                    "spans": [{"start": 3, "end": 8, "label": "PER"}]}) + "\n"
        + json.dumps({"id": "2", "lang": "fr", "text": "Salut"}) + "\n"
    )  # fmt: skip
    output = run("import_documents", "radical", str(path), "--no-progress")
    assert "Imported 2 documents and 1 spans" in output
    assert Document.objects.count() == 2


def test_import_documents_exits_non_zero_and_writes_nothing_on_a_bad_file(tmp_path: Path) -> None:
    run("create_project", "radical", "--languages", "en")
    path = tmp_path / "docs.jsonl"
    path.write_text('{"id": "1", "text": "fine"}\n{"id": "2", "text": ""}\n')
    with pytest.raises(CommandError, match=r"nothing was written: docs.jsonl:2: empty document"):
        run("import_documents", "radical", str(path), "--no-progress")
    assert Document.objects.count() == 0


def test_load_demo_creates_every_role_and_is_idempotent(settings: Any, tmp_path: Path) -> None:
    settings.VAR_DIR = tmp_path
    first = run("load_demo")
    second = run("load_demo")
    project = Project.objects.get(slug="demo")
    assert set(project.languages) == {"en", "fr", "ar"}
    roles = set(Membership.objects.filter(project=project).values_list("role", flat=True))
    assert roles == {"admin", "lead", "annotator"}
    assert project.documents.count() >= 30
    # The passwords printed the first time still work the second time.
    credentials = json.loads((tmp_path / "demo-credentials.json").read_text())
    user = get_user_model().objects.get(username="demo-annotator-fr")
    assert user.check_password(credentials["demo-annotator-fr"])
    assert credentials["demo-annotator-fr"] in first and credentials["demo-annotator-fr"] in second
