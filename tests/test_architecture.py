"""The lines of the design, held by the import graph.

`DESIGN.md` draws Cloak as Web → Domain → Engine and Keys. The contracts in `pyproject.toml`
(`[tool.importlinter]`, checked here with import-linter) say which layer may not import which;
the one rule a contract cannot say in a line is the keys' single door: of the whole app, only
the Domain's table service (`annotator.services.table`) reaches `annotator.keys`. Every import
counts, those inside functions and under `TYPE_CHECKING` included. Migrations are history:
each runs with the code it was written against, so they are outside the lines.
"""

from __future__ import annotations

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
