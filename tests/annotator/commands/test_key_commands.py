"""`export_keys` and `import_keys`, and the command line reusing an exported table."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from annotator.keys.models import Alias
from annotator.models import AuditAction, AuditEvent, Project
from annotator.routers import keys_alias
from annotator.services.table import surface_choice, surface_decide
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
PASSPHRASE = "correct horse battery staple"


@pytest.fixture
def passphrase_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("CLOAK_TEST_PASSPHRASE", PASSPHRASE)
    return "CLOAK_TEST_PASSPHRASE"


def decided(slug: str = "source") -> Project:
    project = ProjectFactory(slug=slug)
    surface_decide(
        project=project,
        surface="Moshe Chaya",
        language="en",
        label="PER",
        decision="pseudonymize",
        replacement="Raj Avrom",
    )
    surface_decide(project=project, surface="Le Monde", language="en", label="ORG", decision="keep")
    return project


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_export_then_import_gives_another_project_the_same_choices(
    tmp_path: Path, passphrase_env: str
) -> None:
    decided()
    target = ProjectFactory(slug="target")
    keys = tmp_path / "keys.json.enc"
    out, _ = run("export_keys", "source", "--out", str(keys), "--passphrase-env", passphrase_env)
    assert "Exported 4 aliases of source" in out
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert b"Moshe" not in keys.read_bytes()

    out, _ = run("import_keys", "target", str(keys), "--passphrase-env", passphrase_env)
    assert "4 aliases added, 0 already there, 2 new entities" in out
    choice = surface_choice(target, "moshe chaya")
    assert choice is not None and choice.replacement == "Raj Avrom"
    kept = surface_choice(target, "Le Monde")
    assert kept is not None and kept.decision == "keep"
    actions = AuditEvent.objects.values_list("action", "project__slug").order_by("pk")
    assert list(actions) == [(AuditAction.KEY_EXPORT, "source"), (AuditAction.KEY_IMPORT, "target")]


def test_export_asks_for_the_passphrase_twice_without_echo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decided()
    typed = iter([PASSPHRASE, "something else entirely"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(typed))
    with pytest.raises(CommandError, match="the two passphrases differ"):
        run("export_keys", "source", "--out", str(tmp_path / "k.enc"))
    assert not (tmp_path / "k.enc").exists()
    typed = iter([PASSPHRASE, PASSPHRASE])
    run("export_keys", "source", "--out", str(tmp_path / "k.enc"))
    assert (tmp_path / "k.enc").exists()


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["nowhere", "--out", "{keys}"], PASSPHRASE, "no project 'nowhere'"),
        (["source", "--out", "{keys}"], "", "CLOAK_TEST_PASSPHRASE is empty or unset"),
        (["source", "--out", "{keys}"], "too short", "at least 12 characters"),
        (["source", "--out", "{existing}"], PASSPHRASE, "exists: give --force"),
    ],
)
def test_export_refuses_clearly(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: str,
    message: str,
) -> None:
    decided()
    monkeypatch.setenv("CLOAK_TEST_PASSPHRASE", env)
    existing = tmp_path / "existing.enc"
    existing.write_text("keep me")
    paths = {"keys": str(tmp_path / "keys.enc"), "existing": str(existing)}
    argv = [arg.format(**paths) for arg in args]
    with pytest.raises(CommandError, match=message):
        run("export_keys", *argv, "--passphrase-env", "CLOAK_TEST_PASSPHRASE")
    assert not (tmp_path / "keys.enc").exists()
    assert existing.read_text() == "keep me"


def test_import_with_a_wrong_passphrase_or_conflicts_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, passphrase_env: str
) -> None:
    decided()
    keys = tmp_path / "keys.json.enc"
    run("export_keys", "source", "--out", str(keys), "--passphrase-env", passphrase_env)
    target = ProjectFactory(slug="target")
    surface_decide(
        project=target,
        surface="Moshe Chaya",
        language="en",
        label="PER",
        decision="pseudonymize",
        replacement="Tom Other",
    )
    rows = Alias.objects.using(keys_alias()).filter(project_id=target.pk)
    before = sorted(rows.values_list("pk", "replacement"))

    monkeypatch.setenv("WRONG", "not the passphrase at all")
    with pytest.raises(CommandError, match="wrong passphrase or damaged key file"):
        run("import_keys", "target", str(keys), "--passphrase-env", "WRONG")
    err = StringIO()
    # The name, and the two words cut from it, each with another pseudonym in the target.
    with pytest.raises(CommandError, match="3 aliases of the file conflict"):
        call_command(
            "import_keys",
            "target",
            str(keys),
            "--passphrase-env",
            passphrase_env,
            stdout=StringIO(),
            stderr=err,
        )
    assert "alias 1 (entity 1, en, PER): the project gives this surface another" in err.getvalue()
    assert "Moshe" not in err.getvalue()
    assert sorted(rows.values_list("pk", "replacement")) == before
    with pytest.raises(CommandError, match="cannot read"):
        run("import_keys", "target", str(tmp_path / "missing"), "--passphrase-env", passphrase_env)


def test_the_command_line_reuses_an_exported_table(tmp_path: Path, passphrase_env: str) -> None:
    """A surface decided in the project gets the project's replacement from
    `python -m pseudonymizer pseudonymize --keys FILE`."""
    decided()
    keys = tmp_path / "keys.json.enc"
    run("export_keys", "source", "--out", str(keys), "--passphrase-env", passphrase_env)
    text = "MOSHE CHAYA wrote to Le Monde, and Moshe called."
    document = {
        "id": "d1",
        "lang": "en",
        "text": text,
        "spans": [
            {"start": 0, "end": 11, "label": "PER"},
            {"start": 21, "end": 29, "label": "ORG"},
            {"start": 35, "end": 40, "label": "PER"},
        ],
    }
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(document) + "\n", encoding="utf-8")
    environment: dict[str, Any] = {
        key: value for key, value in os.environ.items() if not key.startswith("CLOAK_")
    }
    environment.update(PYTHONPATH=str(ROOT), CLOAK_KEYS_PASSPHRASE=PASSPHRASE)
    done = subprocess.run(
        [sys.executable, "-m", "pseudonymizer", "pseudonymize", str(source), "--keys", str(keys)]
        + ["--no-ner", "--spans", "input", "--leak-check", "off"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environment,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (output,) = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    # The project's pseudonym, in the surface's case; the kept name kept; the word cut from
    # the name (a token-level alias of the project) gets the project's word too.
    assert output["text"] == "RAJ AVROM wrote to Le Monde, and Raj called."
