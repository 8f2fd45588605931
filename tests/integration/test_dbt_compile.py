"""The dbt project compiled by dbt itself (pdbench.dbt_build.compilation): a project dbt cannot
compile fails in one readable line and keeps nothing in the cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pdbench.dbt_build import compilation as dbt_compile
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.errors import AggregationError


def test_a_project_dbt_cannot_compile_fails_in_one_line_and_keeps_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = tmp_path / "dbt_project"
    shutil.copytree(
        DBT_PROJECT_DIR, project, symlinks=True, ignore=shutil.ignore_patterns("target", "logs")
    )
    (project / "profiles.yml").unlink()
    shutil.copyfile(DBT_PROJECT_DIR / "profiles.yml", project / "profiles.yml")
    (project / "models" / "staging" / "stg_broken.sql").write_text(
        "select {{ this_macro_does_not_exist() }}\n", encoding="utf-8"
    )

    with pytest.raises(AggregationError) as caught:
        dbt_compile.compiled_project(project, None)

    message = str(caught.value)
    assert message.startswith(f"dbt compile failed on {project}: ")
    assert "this_macro_does_not_exist" in message and "stg_broken" in message
    assert "\n" not in message
    folder = dbt_compile.compiled_dir(project, None).parent
    assert list(folder.iterdir()) == []  # no compilation kept, nothing half-written left


def test_a_damaged_compilation_is_compiled_again_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    where = dbt_compile.compiled_dir(DBT_PROJECT_DIR, None)
    where.mkdir(parents=True)
    (where / dbt_compile.PROJECT_FILE).write_text('{"nodes": [', encoding="utf-8")

    project = dbt_compile.compiled_project(DBT_PROJECT_DIR, None)

    assert any(node.name == "pd_aggregates" for node in project.nodes)
    kept = dbt_compile._read(where / dbt_compile.PROJECT_FILE)
    assert kept is not None and kept.nodes == project.nodes


def test_no_statement_of_the_project_compiles_past_10_kb() -> None:
    """Each statement is SQL a reader can follow: no loop unrolls steps or metrics into it."""
    project = dbt_compile.compiled_project(DBT_PROJECT_DIR, None)
    sizes = sorted(
        ((len(node.compiled_code.encode()), node.unique_id) for node in project.nodes),
        reverse=True,
    )
    assert sizes[0][0] <= 10 * 1024, sizes[:3]
    assert any(node.name == "int_arena_bradley_terry_fits" for node in project.nodes)
