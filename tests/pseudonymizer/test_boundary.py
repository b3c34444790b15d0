"""The engine stands alone: importing any of it loads neither Django nor the heavy libraries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import importlib, pkgutil, sys
import pseudonymizer
names = [m.name for m in pkgutil.walk_packages(pseudonymizer.__path__, "pseudonymizer.")
         if not m.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
roots = {m.split(".")[0] for m in sys.modules}
print(len(names))
print(" ".join(sorted(roots & {"django", "annotator", "rest_framework", "celery"})))
print(" ".join(sorted(roots & {"torch", "transformers", "spacy"})))
print("pseudonymizer.detection" in names)
"""


def run_import_check() -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split("\n")


def test_no_engine_module_imports_django_or_annotator() -> None:
    count, web, _ = run_import_check()[:3]
    assert int(count) > 10
    assert web == "", f"the engine imported {web}"


def test_heavy_libraries_load_only_when_a_model_is_used() -> None:
    heavy = run_import_check()[2]
    assert heavy == "", f"importing the engine loaded {heavy}"


def test_the_detection_api_is_among_the_engine_modules_checked() -> None:
    assert run_import_check()[3] == "True"


SPACY_RUN = """
import sys
from pseudonymizer.detection import Detector
found = Detector().detect(["Yesterday John Smith flew from London to Paris."], "en")
assert not found.errors, found.errors
assert any(span.source == "ner" for span in found.spans[0])
print(" ".join(sorted({m.split(".")[0] for m in sys.modules} & {"torch", "transformers"})))
"""


def test_a_spacy_model_runs_without_torch_or_transformers() -> None:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CLOAK_")}
    result = subprocess.run(
        [sys.executable, "-c", SPACY_RUN],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environment,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"a spaCy NER run imported {result.stdout.strip()}"
