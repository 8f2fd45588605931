"""What ``engine/`` imports is what ``pyproject.toml`` declares, and nothing declared is idle."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOADED_BY_NAME = {
    "dbt-core": "pdbench runs dbt's command line (dbt compile, dbt build) in a process",
    "dbt-duckdb": "dbt loads its adapter by the profile's type",
    "pyarrow": "the viewer's tables reach the browser as Arrow (st.dataframe); a floor on it",
}
"""Declared distributions the engine never imports by name, and why they are needed."""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    return _norm(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0])


def _imported_modules() -> set[str]:
    """Top-level names of every module imported anywhere in engine/, lazy imports too."""
    names = set()
    for path in (REPO / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "pdbench"}


def _declared() -> tuple[set[str], set[str]]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = {_requirement_name(r) for r in project["dependencies"]}
    extras = {
        _requirement_name(r) for group in project["optional-dependencies"].values() for r in group
    }
    return required, extras


def test_every_import_of_the_engine_is_declared_and_every_dependency_is_used() -> None:
    required, extras = _declared()
    distributions = packages_distributions()
    imported_from: dict[str, set[str]] = {}
    for module in sorted(_imported_modules()):
        providers = {_norm(d) for d in distributions.get(module, ())}
        assert providers, f"{module} is imported by engine/ but not installed"
        declared = providers & (required | extras)
        assert declared, f"{module} (from {sorted(providers)}) is imported but not declared"
        imported_from[module] = declared
    used = set().union(*imported_from.values())
    idle = required - used - set(LOADED_BY_NAME)
    assert idle == set(), f"declared but never imported by engine/: {sorted(idle)}"
