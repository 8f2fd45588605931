"""The documented build by hand (``cd dbt_project; PDBENCH_RUN_DIR=<run> dbt build --select
tag:<game>``) and ``pdbench aggregate`` write the same marts, empty ones included, on the PD
demo, a round robin, the arena demo and an imported study of each game; and on a run with
planted bad data, the data tests that fail are the same whether dbt's runner or pdbench's
execution of the compiled project runs them."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from pdbench.aggregate import aggregate_run
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.errors import AggregationError
from pdbench.pd.records import PDFiles

from tests.conftest import CONFIGS
from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir

PDBENCH = str(Path(sys.executable).with_name("pdbench"))
DBT = str(Path(sys.executable).with_name("dbt"))


def _played(config: str, where: Path, *extra: str) -> Path:
    return _pdbench("run", str(CONFIGS / config), *extra, output_dir=where)


def _imported(*arguments: str, where: Path) -> Path:
    return _pdbench("import", *arguments, output_dir=where)


def _pdbench(*arguments: str, output_dir: Path) -> Path:
    done = subprocess.run(
        [PDBENCH, *arguments, "--no-aggregate", "--output-dir", str(output_dir)],
        cwd=CONFIGS.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return output_dir


def _by_hand(run_dir: Path, select: str, target: Path) -> subprocess.CompletedProcess[str]:
    """The build by hand docs/metrics.md shows, unit tests aside (they check the SQL, not the
    run), with dbt's artifacts written to ``target``."""
    return subprocess.run(
        [DBT, "build", "--select", select, "--exclude-resource-type", "unit_test",
         "--target-path", str(target), "--log-path", str(target / "logs"), "--quiet"],
        cwd=DBT_PROJECT_DIR,
        env=os.environ | {"PDBENCH_RUN_DIR": str(run_dir)},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip


def _both_ways(played: Path, game: str, tmp: Path) -> tuple[Path, Path]:
    aggregated, by_hand = tmp / "aggregated", tmp / "by_hand"
    shutil.copytree(played, aggregated)
    shutil.copytree(played, by_hand)
    aggregate_run(aggregated)
    done = _by_hand(by_hand, f"tag:{game}", tmp / "target")
    assert done.returncode == 0, done.stdout + done.stderr
    return aggregated, by_hand


@pytest.fixture(scope="session")
def pd_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("pd_demo")
    return _both_ways(_played("experiment.yaml", tmp / "played"), "pd", tmp)


@pytest.fixture(scope="session")
def arena_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("arena_demo")
    return _both_ways(_played("arena.yaml", tmp / "played"), "arena", tmp)


@pytest.fixture(scope="session")
def round_robin(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("round_robin")
    played = _played("round_robin.yaml", tmp / "played", "--replicates", "2")
    return _both_ways(played, "pd", tmp)


@pytest.fixture(scope="session")
def akata_import(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("akata_import")
    imported = _imported(
        "csv", "tests/data/import/akata_pd_excerpt.csv", "--mapping",
        "configs/import/akata_pd.yaml", where=tmp / "imported",
    )  # fmt: skip
    return _both_ways(imported, "pd", tmp)


@pytest.fixture(scope="session")
def council_import(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("council_import")
    imported = _imported("lm-council", "tests/data/lm_council/lmc_ei.jsonl", where=tmp / "imported")
    return _both_ways(imported, "arena", tmp)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _mart(path: Path) -> tuple[list[str], list[str], list[tuple[Any, ...]]]:
    with duckdb.connect() as con:
        cursor = con.execute("select * from read_parquet(?)", [str(path)])
        names = [column[0] for column in cursor.description]
        types = [str(column[1]) for column in cursor.description]
        return names, types, cursor.fetchall()


def _assert_same_marts(aggregated: Path, by_hand: Path) -> None:
    names = sorted(path.name for path in aggregated.glob("*.parquet"))
    assert names == sorted(path.name for path in by_hand.glob("*.parquet"))
    for name in names:
        ours, theirs = _mart(aggregated / name), _mart(by_hand / name)
        assert ours[:2] == theirs[:2], name  # the same columns, of the same types
        assert len(ours[2]) == len(theirs[2]), name
        for row, (mine, dbts) in enumerate(zip(ours[2], theirs[2], strict=True)):
            assert _same(mine, dbts), f"{name} row {row}: {mine} != {dbts}"


def test_the_pd_demo_built_by_hand_is_what_aggregate_writes(pd_demo: tuple[Path, Path]) -> None:
    aggregated, by_hand = pd_demo
    _assert_same_marts(aggregated, by_hand)
    # the demo plays no round robin: its evolutionary marts are empty, without a row of NULLs
    assert _mart(by_hand / "tournament_fixation.parquet")[2] == []


def test_the_arena_demo_built_by_hand_is_what_aggregate_writes(
    arena_demo: tuple[Path, Path],
) -> None:
    _assert_same_marts(*arena_demo)


def test_a_round_robin_built_by_hand_is_what_aggregate_writes(
    round_robin: tuple[Path, Path],
) -> None:
    aggregated, by_hand = round_robin
    _assert_same_marts(aggregated, by_hand)
    assert _mart(by_hand / "tournament_standings.parquet")[2]  # its tournament marts have rows


def test_an_imported_pd_study_built_by_hand_is_what_aggregate_writes(
    akata_import: tuple[Path, Path],
) -> None:
    _assert_same_marts(*akata_import)


def test_an_imported_arena_built_by_hand_is_what_aggregate_writes(
    council_import: tuple[Path, Path],
) -> None:
    aggregated, by_hand = council_import
    _assert_same_marts(aggregated, by_hand)
    assert _mart(by_hand / "bradley_terry.parquet")[2]  # the verdicts are fitted


def _failing_by_dbt(run_dir: Path, target: Path) -> set[str]:
    done = _by_hand(run_dir, "tag:pd", target)
    assert done.returncode != 0
    results = json.loads((target / "run_results.json").read_text(encoding="utf-8"))["results"]
    # test.<project>.<name>, and .<digest> after a generic test's name
    return {
        entry["unique_id"].split(".")[2]
        for entry in results
        if entry["status"] in ("fail", "error") and entry["unique_id"].startswith("test.")
    }


def test_aggregate_and_dbt_fail_the_same_data_tests_on_planted_bad_data(tmp_path: Path) -> None:
    run_dir = write_run_dir(
        tmp_path / "run", [PlannedMatch("c", 0, "CC", "CD"), PlannedMatch("c", 1, "CD", "DD")]
    )
    matches = run_dir / PDFiles.MATCHES
    first = matches.read_text(encoding="utf-8").splitlines()[0]
    with matches.open("a", encoding="utf-8") as handle:  # a match written twice
        handle.write(first + "\n")
    rounds = run_dir / PDFiles.ROUNDS
    lines = rounds.read_text(encoding="utf-8").splitlines()
    ghost = [{**json.loads(line), "match_id": "ghost/0", "condition": "ghost"} for line in lines]
    with rounds.open("a", encoding="utf-8") as handle:  # rounds of a match that is not there
        handle.writelines(json.dumps(line) + "\n" for line in ghost)
    by_hand = tmp_path / "by_hand"
    shutil.copytree(run_dir, by_hand)

    with pytest.raises(AggregationError) as caught:
        aggregate_run(run_dir)
    failing = _failing_by_dbt(by_hand, tmp_path / "target")

    assert failing  # the duplicate match at least (what reads it is skipped)
    message = str(caught.value)
    named = {
        part.split(":", 1)[0].removeprefix("test ").split(" (", 1)[0]
        for part in message.split(" (tag:pd): ", 1)[1].split("; ")
        if part.startswith("test ")
    }
    assert named == failing
