"""A small tournament through ``pdbench run`` with the dbt build, once per module, whose mock
players carry the planted traits of the deeper scoring: a player whose replies are mostly
invalid (the answers of the one reliable player are judged only by them, so its score rests
on too few valid judgements to be ranked)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import CONFIGS, write_arena

MIN_JUDGMENTS = 5


def _player(name: str, **mock: object) -> dict:
    return {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": mock}}


PLAYERS = [
    _player("solid", answer_skill=0.8),
    # nine replies in ten unusable and no re-ask: they write no questions and their
    # judgements are mostly invalid; solid's 10 answers get about 2 valid judgements, theirs
    # about 11 each (all of solid's, a tenth of the other's)
    _player("flaky_a", answer_skill=0.5, invalid_rate=0.9),
    _player("flaky_b", answer_skill=0.5, invalid_rate=0.9),
]


@dataclass(frozen=True)
class Run:
    run_dir: Path
    stdout: str
    manifest: dict


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    folder = tmp_path_factory.mktemp("arena_deeper")
    shutil.copytree(CONFIGS, folder / "configs")
    path = write_arena(
        folder / "configs",
        players=PLAYERS,
        questions_per_player=10,
        max_retries=0,
        min_judgments=MIN_JUDGMENTS,
        bootstrap={"n": 50},
        anomaly={"permutations": 20},
    )
    run_dir = folder / "run"
    result = CliRunner().invoke(cli.app, ["run", str(path), "--output-dir", str(run_dir)])
    assert result.exit_code == 0, result.stderr
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
    return Run(run_dir=run_dir, stdout=result.stdout, manifest=manifest)


def _rows(run: Run, sql: str) -> list[tuple]:
    return duckdb.sql(sql.format(run=run.run_dir)).fetchall()


def test_min_judgments_is_recorded_in_the_manifest(run: Run):
    assert run.manifest["scoring"]["min_judgments"] == MIN_JUDGMENTS


def test_the_mostly_invalid_player_has_insufficient_data_and_no_rank(run: Run):
    rows = _rows(
        run,
        "select player, status, has_enough_data, rank, ci_low, ci_high, rank_ci_low, "
        "n_judgments, min_judgments from '{run}/leaderboard.parquet' "
        "where player is not null order by player",
    )
    by_player = {row[0]: row[1:] for row in rows}
    status, enough, rank, low, high, rank_low, n_judgments, minimum = by_player["solid"]
    assert (status, enough, rank, low, high, rank_low) == (
        "insufficient data", False, None, None, None, None
    )  # fmt: skip
    assert isinstance(n_judgments, int) and n_judgments < MIN_JUDGMENTS
    assert minimum == MIN_JUDGMENTS
    # the others rest on enough judgements and take ranks 1 and 2 between them
    others = [by_player["flaky_a"], by_player["flaky_b"]]
    assert [row[:2] for row in others] == [("ranked", True)] * 2
    assert sorted(row[2] for row in others) in ([1, 2], [1, 1])
    assert all(row[6] >= MIN_JUDGMENTS and row[3] is not None for row in others)


def test_aggregate_prints_insufficient_data_instead_of_an_interval(run: Run):
    (n_judgments,) = _rows(
        run, "select n_judgments from '{run}/leaderboard.parquet' where player = 'solid'"
    )[0]
    line = next(line for line in run.stdout.splitlines() if " solid " in f" {line} ")
    assert line.split()[0] == "-"
    assert f"insufficient data ({n_judgments} of {MIN_JUDGMENTS} judgements)" in line
