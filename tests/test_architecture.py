"""The lines of the design, held by the import graph.

`DESIGN.md` draws Cloak as Web → Domain → Engine and Keys. The contracts in `pyproject.toml`
(`[tool.importlinter]`, checked here with import-linter) say which layer may not import which;
the one rule a contract cannot say in a line is the keys' single door: of the whole app, only
the Domain's table service (`annotator.services.table`) reaches `annotator.keys`. Every import
counts, those inside functions and under `TYPE_CHECKING` included. Migrations are history:
each runs with the code it was written against, so they are outside the lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]

KEYS = "annotator.keys"
DOOR = "annotator.services.table"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("annotator", "pseudonymizer")


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_contracts_of_the_layers_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert code == 0, report


def test_only_the_table_service_reaches_the_keys(graph: grimp.ImportGraph) -> None:
    assert DOOR in graph.modules, f"{DOOR} is missing"
    importers: set[str] = set()
    for module in graph.find_descendants(KEYS) | {KEYS}:
        importers |= graph.find_modules_that_directly_import(module)
    outside = sorted(
        module
        for module in importers
        if not (_under(module, KEYS) or _under(module, DOOR) or ".migrations." in module)
    )
    assert outside == [], f"reach the keys through {DOOR}, not directly: {outside}"


# Django's API on a model class, private by name only.
DJANGO_MODEL_API = frozenset({"_meta", "_default_manager", "_base_manager"})


def _private_reaches(path: Path) -> list[str]:
    """Where module `path` reaches a private name (`_name`) of another of Cloak's modules:
    `from annotator.x import _name`, or `x._name` on a module it imported."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ours = ("annotator", "pseudonymizer")
    modules: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(ours):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{path}:{node.lineno} imports {node.module}.{alias.name}")
                else:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if alias.name.startswith(ours)
            )
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in DJANGO_MODEL_API
        ):
            found.append(f"{path}:{node.lineno} reaches {node.value.id}.{node.attr}")
    return found


def test_no_module_reaches_into_another_for_a_private_name() -> None:
    """Issue 32: 21 private names were imported across modules (a release's build took 8 of
    its neighbours'). A name two modules share is public; one only a module uses stays
    private to it. Migrations are history and keep their own copies."""
    found = [
        reach
        for package in ("annotator", "pseudonymizer")
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        for reach in _private_reaches(path.relative_to(ROOT))
    ]
    assert found == []


# What the door to the keys may import of the app besides itself: the keys, the models, and
# the modules below every layer (the errors, the audit log's writer, the rules of who may,
# the router of the keys' database). The engine, `pseudonymizer`, too.
DOOR_MAY_IMPORT = (
    KEYS,
    DOOR,
    "annotator.models",
    "annotator.errors",
    "annotator.audit",
    "annotator.permissions",
    "annotator.routers",
    "pseudonymizer",
)


def test_the_door_imports_only_the_keys_the_models_and_the_engine(
    graph: grimp.ImportGraph,
) -> None:
    """Issue 32: the door imported a selector and a service (the corpus, the audit). What it
    needs of the corpus is handed over as the app starts (`corpus_check_set`)."""
    door = [module for module in graph.modules if _under(module, DOOR)]
    reached = {
        (module, imported)
        for module in door
        for imported in graph.find_modules_directly_imported_by(module)
        if not any(_under(imported, allowed) for allowed in DOOR_MAY_IMPORT)
    }
    assert sorted(reached) == []
