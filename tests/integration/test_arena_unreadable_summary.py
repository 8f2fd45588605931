"""An arena whose judges often reply unreadably: ``pdbench run`` says the unreadable share of
the judgements first, with the numbers of ``judge_stats.parquet``, before any rank."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from typer.testing import CliRunner

from tests.conftest import CONFIGS, write_arena


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("unreadable") / "configs"
    shutil.copytree(CONFIGS, folder)
    config = write_arena(
        folder,
        "unreadable.yaml",
        players=[
            {
                "ref": "agents/arena_player.yaml",
                "overrides": {
                    "name": f"p{i}",
                    "mock": {"answer_skill": 0.9 - 0.2 * i, "invalid_rate": 0.5},
                },
            }
            for i in range(3)
        ],
        run_id="unreadable",
        bootstrap={"n": 30},
        anomaly={"permutations": 30},
    )
    run_dir = folder.parent / "run"
    result = CliRunner().invoke(cli.app, ["run", str(config), "--output-dir", str(run_dir)])
    assert result.exit_code == 0, result.output
    return run_dir, result.stdout


def test_the_unreadable_judgements_come_before_the_ranks(played: tuple[Path, str]) -> None:
    run_dir, stdout = played
    ((n_judgments, n_invalid),) = duckdb.sql(
        f"select sum(n_judgments)::bigint, sum(n_invalid)::bigint "
        f"from '{run_dir}/judge_stats.parquet'"
    ).fetchall()
    # half the replies invalid, with retries: over a tenth of the judgements stay so
    assert n_invalid > n_judgments / 10
    lines = stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("aggregated ")) + 1
    assert lines[first].startswith(
        f"Unreadable replies: {n_invalid} of {n_judgments} judgements "
        f"({n_invalid / n_judgments:.1%}) could not be read, so the scores rest on the other "
        f"{n_judgments - n_invalid} (by judge, most first: "
    )
    assert "invalid attempts by phase: generate " in lines[first]
    assert not any("rank" in line for line in lines[:first])
