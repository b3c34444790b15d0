"""A learned model is never on disk in clear: its vocabulary holds the originals it learned
from, so its one file is sealed with the keys' secret, and a run opens it in memory."""

from __future__ import annotations

import importlib
import stat
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps
from django.db import connection

from annotator.keys.sealed import read_sealed
from annotator.models import JobStatus, LearnedModel, Span
from annotator.services import learning, runs
from pseudonymizer.learning import Example, LearningError, train
from pseudonymizer.spans import Span as EngineSpan
from pseudonymizer.vocabulary import Source
from tests.annotator.services.test_learning import NAMES, corpus, trained
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

migration = importlib.import_module("annotator.migrations.0012_seal_learned_models")
# Every original the models learn from, whole and word by word.
ORIGINALS = sorted({part for name in NAMES for part in (name, *name.split())})


@pytest.fixture(autouse=True)
def _learning_settings(settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}
    settings.CLOAK_LEARN_MIN_SPANS = 3
    settings.CLOAK_LEARN_ITERATIONS = 8
    settings.CLOAK_LEARN_EVERY = 200


@pytest.fixture(autouse=True)
def _nothing_loaded() -> Any:
    """Each test opens its models itself: the process keeps the ones it loaded."""
    learning._LOADED.clear()
    yield
    learning._LOADED.clear()


def files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def originals_in(root: Path) -> list[str]:
    """The originals found in the bytes of any file under `root` (UTF-8, as spaCy writes its
    strings, and UTF-16 for good measure)."""
    found = set()
    for path in files_under(root):
        data = path.read_bytes()
        for original in ORIGINALS:
            if original.encode("utf-8") in data or original.encode("utf-16-le") in data:
                found.add(original)
    return sorted(found)


def test_no_original_is_in_any_file_of_a_trained_model(
    team: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    corpus(team.project, 30)

    model = trained(team.project, django_capture_on_commit_callbacks)

    assert model.status == JobStatus.DONE, model.error
    root = Path(settings.MEDIA_ROOT) / learning.MODELS_DIR
    (sealed,) = files_under(root)
    assert sealed == Path(settings.MEDIA_ROOT) / model.path
    assert originals_in(root) == []
    assert stat.S_IMODE(sealed.stat().st_mode) == 0o600  # its owner's only
    # The grep would see them: opened, the model's bytes hold the words it learned.
    opened = read_sealed(
        sealed, purpose=learning.SEALED_PURPOSE, context=learning.sealed_context(model.pk)
    )
    assert any(original.encode("utf-8") in opened for original in ORIGINALS)


def test_a_run_opens_the_sealed_model_and_proposes_its_spans(
    team: Any, django_capture_on_commit_callbacks: Any
) -> None:
    project = team.project
    corpus(project, 30)
    model = trained(project, django_capture_on_commit_callbacks)
    fresh = DocumentFactory(project=project, text="I agree with Clara Osei about the meeting.")

    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_create(project=project, actor=team.admin, language="en", profile="precise")

    run.refresh_from_db()
    assert run.models_used.get("learned:en") == f"v{model.version}"
    learned = Span.objects.filter(document=fresh, source=Source.LEARNED)
    assert [(s.start, s.end, s.label) for s in learned] == [(13, 23, "PER")]


def test_a_model_file_opens_only_for_its_model_and_under_its_secret(
    team: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    corpus(team.project, 30)
    model = trained(team.project, django_capture_on_commit_callbacks)
    assert learning.learned_recognizer(model)("I agree with Clara Osei.")
    learning._LOADED.clear()

    # Copied over another model's place, it does not open.
    other = LearnedModel.objects.create(
        project=team.project, language="en", version=2, trigger="admin",
        status=JobStatus.DONE, path=model.path,
    )  # fmt: skip
    with pytest.raises(LearningError, match="does not open"):
        learning.learned_recognizer(other)
    # Under another keys secret, neither.
    settings.CLOAK_KEYS_SECRET = "another-keys-secret"
    with pytest.raises(LearningError, match="does not open"):
        learning.learned_recognizer(model)


def test_deleting_a_models_files_removes_its_sealed_file(
    team: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    corpus(team.project, 30)
    model = trained(team.project, django_capture_on_commit_callbacks)

    learning.learned_model_delete_files(model)

    assert not (Path(settings.MEDIA_ROOT) / model.path).exists()


def test_the_migration_seals_a_model_written_in_clear(team: Any, settings: Any) -> None:
    project = team.project
    texts = [f"I agree with {name} about the meeting." for name in NAMES] * 4
    examples = [
        Example(text=text, spans=[EngineSpan(13, 13 + len(name), "PER")])
        for text, name in zip(texts, NAMES * 4, strict=True)
    ]
    relative = f"learned/{project.slug}/en/1"
    folder = Path(settings.MEDIA_ROOT) / relative
    train(examples, "en", folder, iterations=8)
    assert originals_in(folder) != []  # what an older Cloak left in clear
    model = LearnedModel.objects.create(
        project=project, language="en", version=1, trigger="admin",
        status=JobStatus.DONE, path=relative,
    )  # fmt: skip

    migration.seal_folders(apps, SimpleNamespace(connection=connection))
    migration.seal_folders(apps, SimpleNamespace(connection=connection))  # done: no change

    model.refresh_from_db()
    assert model.path == f"{relative}.sealed"
    assert not folder.exists()
    root = Path(settings.MEDIA_ROOT) / learning.MODELS_DIR
    assert files_under(root) == [Path(settings.MEDIA_ROOT) / model.path]
    assert originals_in(root) == []
    found = learning.learned_recognizer(model)("I agree with Clara Osei about the meeting.")
    assert [(span.start, span.end, span.label) for span in found] == [(13, 23, "PER")]
