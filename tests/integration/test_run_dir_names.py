"""A run folder's name is data: it never runs as SQL and is never read as a file pattern, in
dbt's build and in pdbench's own reads of the marts and records (pdbench.storage.duckdb_paths);
nor does the spill folder of a build by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pdbench.aggregate import aggregate_run
from pdbench.cli import app
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.pd.marts import PDMart
from pdbench.pd.records import PDFiles
from pdbench.storage.duckdb_paths import duckdb_path, sql_string
from pdbench.tables import count_mart_rows, mart_columns, mart_rows
from pdbench.ui import run_reader
from pdbench.ui.pd.reader import match_rounds
from typer.testing import CliRunner

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


@pytest.fixture(scope="module")
def decoy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A built run ``exp1``: every pattern below matches its folder. A and B always defect."""
    run_dir = tmp_path_factory.mktemp("patterns") / "exp1"
    write_run_dir(run_dir, [PlannedMatch(c, r, "DDDD", "DDDD") for c in "cd" for r in (0, 1)])
    aggregate_run(run_dir)
    return run_dir


@pytest.mark.parametrize("name", ["exp[1]", "exp?", "exp*"])
def test_a_run_folder_named_as_a_pattern_builds_and_shows_its_own_records(decoy: Path, name: str):
    # beside the decoy exp1, which each name matches as a glob pattern; in condition c both
    # cooperate, in d both defect, two replicates each
    run_dir = write_run_dir(
        decoy.parent / name,
        [PlannedMatch("c", r, "CCCC", "CCCC") for r in (0, 1)]
        + [PlannedMatch("d", r, "DDDD", "DDDD") for r in (0, 1)],
    )
    try:
        aggregate_run(run_dir)
        rows = pq.read_table(run_dir / "aggregates.parquet").to_pylist()
        # four rounds of mutual cooperation at 3 points (the decoy's mutual defection: 4)
        totals = {(r["level"], r["condition"], r["replicate"]): r["total_payoff_a"] for r in rows}
        assert totals[("condition", "c", None)] == 12.0
        assert totals[("condition", "d", None)] == 4.0
        assert len(rows) == 6  # 2 conditions x (2 replicates + the condition's row)

        # the viewer's reads: a mart, the rounds' mart and the raw rounds
        shown = run_reader.mart(run_dir, PDMart.AGGREGATES, "condition = ?", "c")
        assert shown["total_payoff_a"].tolist() == [12.0, 12.0, 12.0]
        assert match_rounds(run_dir, "c/0")["action"].tolist() == ["C"] * 8
        raw = run_reader.raw_source(
            run_reader.raw_files(run_dir, PDFiles.ROUNDS),
            ["agent_a_action"],
            {"agent_a_action": "VARCHAR"},
        )
        actions = run_reader.read(
            f"select agent_a_action, count(*) from {raw} group by all order by all",
            [run_dir / PDFiles.ROUNDS],
        )
        assert actions.values.tolist() == [["C", 8], ["D", 8]]

        # the commands that print a run's numbers
        compared = CliRunner().invoke(app, ["compare", str(run_dir), "c", "d"])
        assert compared.exit_code == 0, compared.output
        assert "A's cooperation" in compared.stdout
        cooperation = next(
            line for line in compared.stdout.splitlines() if line.startswith("A's cooperation")
        )
        assert "100.0%" in cooperation and "+100.0 pp" in cooperation
        side_by_side = CliRunner().invoke(app, ["compare-runs", str(run_dir)])
        assert side_by_side.exit_code == 0, side_by_side.output
        table = [line.split() for line in side_by_side.stdout.splitlines()[2:]]
        conditions = [cells for cells in table if cells and cells[0] in ("c", "d")]
        assert [cells[0] for cells in conditions] == ["c", "d"]
        assert "100.0%" in conditions[0] and "0.0%" in conditions[1]
    finally:
        shutil.rmtree(run_dir)  # the next name's pattern would match this folder too
    assert sorted(p.name for p in decoy.parent.iterdir()) == ["exp1"]


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
