"""The dbt project compiled by dbt itself (pdbench.dbt_build.compilation): a project dbt cannot
compile fails in one readable line and keeps nothing in the cache; no statement it compiles,
a unit test's included, is past 10 KB."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from pdbench.arena.marts import ArenaMart
from pdbench.dbt_build import compilation as dbt_compile
from pdbench.dbt_build.cli import dbt_arguments, one_line, run_dbt_cli
from pdbench.dbt_build.request import GAME_MODELS_ENV
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.errors import AggregationError
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.storage.schema import RunFiles

from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir
from tests.integration.test_dbt_arena import tiny_run  # noqa: F401 (a fixture)

STATEMENT_LIMIT = 10 * 1024
"""The largest statement dbt may compile, in bytes: SQL a reader can follow."""


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
    assert sizes[0][0] <= STATEMENT_LIMIT, sizes[:3]
    assert any(node.name == "int_arena_bradley_terry_fits" for node in project.nodes)


def _unit_test_statements(run_dir: Path, game: str, target: Path) -> dict[str, str]:
    """Each unit test of ``game``'s models, by id -> the statement dbt compiled for it, from a
    build of the game's models on ``run_dir`` by dbt itself (as ``pdbench aggregate
    --unit-tests`` builds, the data tests left out). dbt compiles a unit test only to run it,
    once the inputs it mocks are built (their columns and types are the fixtures'): ``dbt
    compile`` leaves unit tests out. A unit test that fails fails here too."""
    target.mkdir(parents=True)
    parse = dbt_compile.saved_parse(DBT_PROJECT_DIR, None)
    if parse is not None:  # dbt starts from the parse kept with the compiled project
        shutil.copyfile(parse, target / parse.name)
    arguments = [
        *dbt_arguments("build", DBT_PROJECT_DIR, target),
        *("--select", f"tag:{game}", "--exclude-resource-type", "test"),
    ]
    env = {
        "PDBENCH_RUN_DIR": duckdb_path(run_dir),
        "PDBENCH_DUCKDB_TEMP_DIR": str(target / "duckdb"),
        "PDBENCH_DUCKDB_THREADS": "1",  # a tiny run, beside two other builds
        GAME_MODELS_ENV: None,
    }
    code, output = run_dbt_cli(arguments, env)
    assert code == 0, one_line(output)[:4000]
    results = json.loads((target / "run_results.json").read_text(encoding="utf-8"))["results"]
    return {
        result["unique_id"]: result["compiled_code"]
        for result in results
        if result["unique_id"].startswith("unit_test.")
    }


def _series_of(arena_run: Path, folder: Path) -> Path:
    """A series folder as ``pdbench leaderboard`` writes it for dbt (one folder per tournament,
    ``tournaments/<k>-<run_id>/``, with its manifest and leaderboard): two tournaments, each
    ``arena_run`` under a run id of its own."""
    for index in (1, 2):
        tournament = folder / "tournaments" / f"{index}-season-{index}"
        tournament.mkdir(parents=True)
        manifest = json.loads((arena_run / RunFiles.MANIFEST).read_text(encoding="utf-8"))
        manifest["run_id"] = f"season-{index}"
        (tournament / RunFiles.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        shutil.copyfile(arena_run / ArenaMart.LEADERBOARD, tournament / ArenaMart.LEADERBOARD)
    return folder


def _declared_unit_tests() -> set[str]:
    """The unit tests written in the models' YAML, as ``<model>.<name>``."""
    declared: set[str] = set()
    for path in (DBT_PROJECT_DIR / "models").rglob("*.yml"):
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        declared |= {f"{test['model']}.{test['name']}" for test in document.get("unit_tests", [])}
    return declared


def test_no_unit_test_compiles_past_10_kb(tiny_run: Path, tmp_path: Path) -> None:  # noqa: F811
    """A unit test's statement is its model's with the rows it gives as inputs: held to the
    same 10 KB, every unit test of every game, each game built on the cheapest run of its own
    (a hand-written PD run, the tiny arena run, a series of two copies of it), side by side."""
    dbt_compile.compiled_project(DBT_PROJECT_DIR, None)  # its parse starts each build
    arena_run = shutil.copytree(tiny_run, tmp_path / "arena")
    runs = {
        "pd": write_run_dir(tmp_path / "pd", [PlannedMatch("c", 0, "CDC", "DCC")]),
        "arena": arena_run,
        "series": _series_of(arena_run, tmp_path / "series"),
    }
    with ThreadPoolExecutor(len(runs)) as pool:
        builds = [
            pool.submit(_unit_test_statements, run_dir, game, tmp_path / f"target-{game}")
            for game, run_dir in runs.items()
        ]
        statements = {key: code for build in builds for key, code in build.result().items()}

    assert {unique_id.split(".", 2)[2] for unique_id in statements} == _declared_unit_tests()
    sizes = sorted(
        ((len(code.encode()), unique_id) for unique_id, code in statements.items()), reverse=True
    )
    too_large = [f"{unique_id} {size} bytes" for size, unique_id in sizes if size > STATEMENT_LIMIT]
    assert not too_large, f"{len(too_large)} unit tests compile past 10 KB, the largest: " + (
        "; ".join(too_large[:5])
    )
