"""A run folder's name is data: it never runs as SQL and is never read as a file pattern, in
dbt's build and in pdbench's own reads of the marts and records (pdbench.storage.duckdb_paths);
nor does the spill folder of a build by hand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pdbench.aggregate import aggregate_run
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.pd.records import PDFiles
from pdbench.storage.duckdb_paths import duckdb_path, sql_string
from pdbench.tables import count_mart_rows, mart_columns, mart_rows

from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir

INJECTION = "x') ; copy (select 42 as pwned) to 'PWNED.csv' ; select ('"

HOSTILE_NAMES = [
    INJECTION,
    "exp[1]",
    "x*y",
    "x?y",
    "a\\*b",
    "q'uote",
    "[",
    "back\\slash",
    "with space",
    'dou"ble',
]
"""Folder names, each with a plain-named neighbour it would match as a pattern (``exp1``)."""


def _decoy(name: str) -> str:
    """A plain name the hostile ``name`` matches when read as a glob pattern."""
    return "".join("1" if c in "*?[]\\'\" ;()" else c for c in name) or "decoy"


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_mart_is_read_from_the_folder_named_whatever_its_name(tmp_path: Path, name: str):
    import duckdb

    for folder, value in ((name, 7), (_decoy(name), 1)):
        (tmp_path / folder).mkdir(exist_ok=True)
        with duckdb.connect() as con:
            target = sql_string(duckdb_path(tmp_path / folder / "m.parquet"))
            con.execute(f"copy (select {value} as v) to {target} (format parquet)")
    path = tmp_path / name / "m.parquet"
    assert pq.read_table(path).column("v").to_pylist() == [7]
    assert mart_rows(path, columns=("v",), where="true", order_by="v") == [(7,)]
    assert count_mart_rows(path) == 1
    assert mart_columns(path) == ["v"]


def test_a_plain_path_is_given_to_duckdb_as_it_is(tmp_path: Path):
    assert duckdb_path(tmp_path / "run" / "rounds.jsonl") == str(tmp_path / "run" / "rounds.jsonl")
    assert duckdb_path(tmp_path / "exp[1]" / "rounds.jsonl") != str(
        tmp_path / "exp[1]" / "rounds.jsonl"
    )


def _marts(run_dir: Path) -> dict[str, list[dict[str, object]]]:
    return {
        path.name: pq.read_table(path).to_pylist()
        for path in sorted(run_dir.glob("*.parquet"))
        if path.name != "rounds.parquet"
    }


def test_a_run_folder_named_as_sql_builds_and_runs_none_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    matches = [PlannedMatch("c", 0, "CCD", "CDD"), PlannedMatch("c", 1, "CCC", "CCD")]
    hostile = write_run_dir(tmp_path / INJECTION, matches)
    plain = write_run_dir(tmp_path / "plain", matches)
    aggregate_run(hostile)
    aggregate_run(plain)
    built = _marts(hostile)
    assert built == _marts(plain)
    aggregate_run(hostile)  # a second build of the same compiled project
    assert _marts(hostile) == built
    assert not list(tmp_path.rglob("PWNED*"))
    assert not list(DBT_PROJECT_DIR.rglob("PWNED*"))


def test_a_run_folder_named_as_a_pattern_builds_its_own_records(tmp_path: Path):
    write_run_dir(tmp_path / "exp1", [PlannedMatch("c", 0, "DDDD", "DDDD")])
    bracketed = write_run_dir(tmp_path / "exp[1]", [PlannedMatch("c", 0, "CCCC", "CCCC")])
    aggregate_run(bracketed)
    rows = pq.read_table(bracketed / "aggregates.parquet").to_pylist()
    # four rounds of mutual cooperation at 3 points (exp1's four of mutual defection: 4)
    assert [row["total_payoff_a"] for row in rows] == [12.0, 12.0]
    assert not (tmp_path / "exp1" / "aggregates.parquet").exists()


def _build_by_hand(run_dir: Path, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``dbt build`` of the run's rounds by hand, from the dbt project's folder."""
    environment = {**os.environ, "PDBENCH_RUN_DIR": str(run_dir), **env,
                   "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}  # fmt: skip
    dbt = Path(sys.executable).parent / "dbt"
    return subprocess.run(
        [str(dbt), "build", "--select", "stg_pd_rounds", "--no-version-check",
         "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")],
        cwd=DBT_PROJECT_DIR, env=environment, capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(("name", "character"), [("exp[1]", "["), (INJECTION, "'")])
def test_a_by_hand_build_refuses_a_run_folder_duckdb_would_misread(
    tmp_path: Path, name: str, character: str
):
    run_dir = write_run_dir(tmp_path / name, [PlannedMatch("c", 0, "CC", "CC")])
    done = _build_by_hand(run_dir, tmp_path)
    assert done.returncode != 0
    assert f"holds {character}, which DuckDB would read as SQL or as a file pattern" in done.stdout
    assert not (run_dir / PDFiles.ROUNDS).with_suffix(".parquet").exists()
    assert not list(tmp_path.rglob("PWNED*"))
    assert not list(DBT_PROJECT_DIR.rglob("PWNED*"))


def test_a_by_hand_builds_spill_folder_named_as_sql_runs_none_of_it(tmp_path: Path):
    run_dir = write_run_dir(tmp_path / "run", [PlannedMatch("c", 0, "CC", "CC")])
    spill = f"{tmp_path}/spill'; copy (select 42 as pwned) to '{tmp_path}/PWNED.csv'; select '"
    done = _build_by_hand(run_dir, tmp_path, PDBENCH_DUCKDB_TEMP_DIR=spill)
    assert done.returncode == 0, done.stdout
    assert not list(tmp_path.rglob("PWNED*"))
    assert not list(DBT_PROJECT_DIR.rglob("PWNED*"))
