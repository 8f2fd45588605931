"""``pdbench import peerrank`` with its aggregation: the planted fixture's plain scores rank
the three models, and the name and position arms come back with their planted sizes in
``score_arms.parquet``."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "data" / "peerrank"
runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("peerrank") / "demo"
    result = runner.invoke(cli.app, ["import", "peerrank", str(FIXTURE), "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_the_leaderboard_ranks_the_plain_scores(run_dir: Path):
    rows = duckdb.sql(
        f"select player, rank from '{run_dir / 'leaderboard.parquet'}' order by rank"
    ).fetchall()
    assert rows == [("alpha-7b", 1), ("beta-13b", 2), ("gamma-70b", 3)]
    judges = duckdb.sql(f"select judge from '{run_dir / 'judge_stats.parquet'}'").fetchall()
    assert sorted(judge for (judge,) in judges) == ["alpha-7b", "beta-13b", "gamma-70b"]


def test_the_planted_name_and_position_biases_come_back(run_dir: Path):
    rows = {
        (judge, arm): rest
        for judge, arm, *rest in duckdb.sql(
            "select judge, arm, n_scored_pairs, arm_score_difference, arm_score_difference_ci_low, "
            f"arm_score_difference_ci_high from '{run_dir / 'score_arms.parquet'}'"
        ).fetchall()
    }
    assert len(rows) == 6
    # beta-13b gave alpha-7b's 3 answers 2 more when named, gamma-70b's 3 the same:
    # differences 2, 2, 2, 0, 0, 0: mean 1, sd sqrt(6/5), standard error sqrt(1/5),
    # t(0.975, 5) = 2.571
    half = 2.571 * math.sqrt(1 / 5)
    assert rows["beta-13b", "named"] == pytest.approx([6, 1, 1 - half, 1 + half])
    # gamma-70b gave every answer 1 less in the fixed order: sd 0
    assert rows["gamma-70b", "fixed_order"] == pytest.approx([6, -1, -1, -1])
    assert rows["alpha-7b", "named"] == pytest.approx([6, 0, 0, 0])
    assert rows["beta-13b", "fixed_order"] == pytest.approx([6, 0, 0, 0])


def test_the_arms_mart_passes_its_unit_test_and_data_tests(run_dir: Path):
    invoke_dbt(
        DbtRequest(
            "build",
            run_dir=run_dir,
            select="stg_arena_judgment_arms arena_score_arms",
            unit_tests=True,
        )
    )


def test_the_joint_model_gives_each_judge_its_planted_arm_effects(run_dir: Path):
    """Every answer is judged in all three arms, so a judge's arm effect in the joint model is
    its mean arm-minus-plain difference: beta-13b gives alpha-7b's answer 2 more with names
    shown and gamma-70b's 0 (mean +1); gamma-70b gives both others' answers 1 less in a fixed
    order (-1); every other arm effect is 0. The fixture plants no leniency and no noise."""
    rows = duckdb.sql(
        "select effect_kind, effect_name, joint_effect, joint_effect_ci_low, joint_effect_ci_high "
        f"from '{run_dir / 'joint_model.parquet'}' where effect_kind in ('named', 'fixed_order')"
    ).fetchall()
    planted = {("named", "beta-13b"): 1.0, ("fixed_order", "gamma-70b"): -1.0}
    assert len(rows) == 6
    for kind, judge, effect, low, high in rows:
        assert effect == pytest.approx(planted.get((kind, judge), 0.0), abs=1e-9), (kind, judge)
        assert low <= effect <= high


def test_the_report_gives_the_joint_models_effects_with_their_intervals(
    run_dir: Path, tmp_path: Path
):
    output = tmp_path / "report.html"
    result = runner.invoke(cli.app, ["report", str(run_dir), "--output", str(output)])
    assert result.exit_code == 0, result.output
    page = output.read_text(encoding="utf-8")
    section = page[page.index("One model for the biases") :]
    assert "name bias of beta-13b, 1.000 points [1.000, 1.000]" in section
    assert "position bias of gamma-70b, -1.000 points [-1.000, -1.000]" in section
    assert "name bias of alpha-7b, 0.000 points [0.000, 0.000]" in section  # never -0.000
    assert "No style effect" in section


def test_the_summary_names_the_joint_models_clear_biases(tmp_path: Path):
    """The two planted arm effects, and no other (every other arm effect is 0)."""
    out = tmp_path / "demo"
    result = runner.invoke(cli.app, ["import", "peerrank", str(FIXTURE), "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("joint model"))
    assert lines[start + 1].startswith("  leniency: leniency of ")  # lowest to highest
    assert lines[start + 2] == (
        "  name and position biases clear of 0: position bias of gamma-70b -1.000 points "
        "(95% interval -1.000 to -1.000); name bias of beta-13b 1.000 points (95% interval "
        "1.000 to 1.000)"
    )
