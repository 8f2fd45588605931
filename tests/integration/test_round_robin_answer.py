"""A built round robin answers first: its summary opens on the winner, whose lead holds in the
paired comparisons of players, and ``pdbench compare`` pairs any two of its conditions from
the marts, without playing the run again.

ALLC, ALLD, TFT and GRIM (self-play on), two replicates of 12 rounds, no noise. Without
self-play: ALLD scores 16/12 against TFT and GRIM (one 5, eleven 1s) and 5 against ALLC:
(16/12 + 16/12 + 60/12) / 3 = 92/36 = 2.556 points/round; TFT and GRIM score 11/12 against
ALLD, 3 against each other and against ALLC: 83/36 = 2.306, tied; ALLC 2.0. Every replicate
plays the same, so ALLD's lead of 9/36 = 0.250 over GRIM and TFT is the same in both, and so
is TFT's of 83/36 - 2 = 0.306 over ALLC."""

from __future__ import annotations

import shutil

import duckdb
import pytest
from pdbench import cli
from pdbench.aggregate import AggregateSummary, aggregate_run
from pdbench.games import load_config
from pdbench.pd.compare import _mart_columns
from pdbench.pd.experiment import run_experiment
from pdbench.pd.paired_query import paired_differences
from typer.testing import CliRunner

from tests.conftest import CONFIGS, write_experiment


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> AggregateSummary:
    folder = tmp_path_factory.mktemp("round_robin_answer")
    shutil.copytree(CONFIGS, folder, dirs_exist_ok=True)
    config = write_experiment(
        folder,
        name="rr.yaml",
        run_id="rr",
        replicates=2,
        conditions=[],
        round_robin={"agents": ["ALLC", "ALLD", "TFT", "GRIM"], "self_play": True},
    )
    result = run_experiment(load_config(config), output_dir=folder / "rr")
    return aggregate_run(result.run_dir)


def test_the_first_summary_sentence_names_the_winner(built: AggregateSummary) -> None:
    lines = built.text.splitlines()
    assert lines[1] == (
        "ALLD wins with 2.556 points/round (no interval: every replicate gave the same value) "
        "over 6 matches in 2 replicates (round robin of 4 agents), ahead of every other agent "
        "in paired comparisons over replicates; ahead of #2 GRIM by +0.250 points/round (no "
        "interval: every replicate gave the same difference; 2 replicates). Next: #2 GRIM and "
        "#2 TFT tie (+0.000 points/round (no interval: every replicate gave the same "
        "difference; 2 replicates)); #2 TFT beats #4 ALLC by +0.306 points/round (no "
        "interval: every replicate gave the same difference; 2 replicates)."
    )


def test_the_summary_tables_the_standings_with_each_gap_to_the_next_place(
    built: AggregateSummary,
) -> None:
    lines = built.text.splitlines()
    start = lines.index(
        "standings (mean points per round over each agent's matches, self-play left out; "
        "intervals: Student's t over replicates):"
    )
    rows = [[cell for cell in line.split("  ") if cell.strip()] for line in lines[start + 2 :]]
    assert [[cell.strip() for cell in row] for row in rows[:4]] == [
        ["1", "ALLD", "2.556", "2", "+0.250 [—] (GRIM)", "first ahead"],
        ["2", "GRIM", "2.306", "2", "+0.000 [—] (TFT)", "tied"],
        ["2", "TFT", "2.306", "2", "+0.306 [—] (ALLC)", "first ahead"],
        ["4", "ALLC", "2.000", "2", "-", "-"],
    ]


def test_compare_pairs_two_conditions_the_run_did_not_compare(built: AggregateSummary) -> None:
    result = CliRunner().invoke(
        cli.app, ["compare", str(built.run_dir), "TFT_vs_TFT", "GRIM_vs_GRIM"]
    )
    assert result.exit_code == 0, result.output
    assert "play the run again" not in result.output
    assert "not among the run's comparisons" in result.output
    # both play C throughout: no difference, and nothing to test
    cooperation = next(
        line for line in result.output.splitlines() if line.startswith("cooperation, both")
    )
    assert "+0.0 pp [—]" in cooperation
    # ALLC_vs_ALLD cooperates 50%, TFT_vs_GRIM 100%: -50 pp in both replicates; the 4 exact
    # sign flips give subset means -0.5 (3 flips) and none (1): p = 2 x min(1 + 3, 1 + 0) / 4
    result = CliRunner().invoke(
        cli.app, ["compare", str(built.run_dir), "ALLC_vs_ALLD", "TFT_vs_GRIM"]
    )
    assert result.exit_code == 0, result.output
    cooperation = next(
        line for line in result.output.splitlines() if line.startswith("cooperation, both")
    ).split()
    assert "-50.0" in cooperation
    assert "0.500" in cooperation


@pytest.fixture(scope="module")
def noisy(tmp_path_factory: pytest.TempPathFactory) -> AggregateSummary:
    """TFT, GRIM and WSLS with execution noise, 7 replicates (128 sign flips, enough for an
    interval): differences that vary."""
    folder = tmp_path_factory.mktemp("round_robin_noisy")
    shutil.copytree(CONFIGS, folder, dirs_exist_ok=True)
    config = write_experiment(
        folder,
        name="noisy.yaml",
        run_id="noisy",
        replicates=7,
        noise=0.1,
        conditions=[],
        round_robin={"agents": ["TFT", "GRIM", "WSLS"], "self_play": True},
    )
    result = run_experiment(load_config(config), output_dir=folder / "noisy")
    return aggregate_run(result.run_dir)


def test_an_uncompared_pair_gets_the_very_test_of_the_comparisons_mart(
    noisy: AggregateSummary,
) -> None:
    """The query compare runs for a pair outside the run's comparisons gives, for a pair
    inside them, every value the mart holds: the same sign-flip test."""
    run_dir = noisy.run_dir
    aggregates = run_dir / "aggregates.parquet"
    compared = duckdb.sql(
        f"select distinct condition_1, condition_2 from '{run_dir}/comparisons.parquet' "
        "order by all limit 3"
    ).fetchall()
    assert compared
    checked = 0
    for first, second in compared:
        mine = {
            row["metric"]: row
            for row in paired_differences(aggregates, first, second, _mart_columns(aggregates))
        }
        mart = duckdb.sql(
            "select metric, n_pairs, mean_difference, ci_low, ci_high, p_value, ci_note "
            f"from '{run_dir}/comparisons.parquet' "
            f"where condition_1 = '{first}' and condition_2 = '{second}'"
        ).fetchall()
        assert set(mine) == {row[0] for row in mart}
        for metric, n, mean, low, high, p, note in mart:
            row = mine[metric]
            assert row["n_pairs"] == n, metric
            assert row["mean_difference"] == pytest.approx(mean, abs=1e-9), metric
            assert (row["ci_low"], row["ci_high"], row["ci_note"]) == (low, high, note), metric
            assert row["p_value"] == pytest.approx(p, abs=1e-12), metric
            checked += 1
    # some intervals exist: the check is not only of NULLs
    assert checked > 20
    assert any(
        row[0] is not None
        for row in duckdb.sql(f"select ci_low from '{run_dir}/comparisons.parquet'").fetchall()
    )
