"""A player who won every verdict has no finite Bradley-Terry strength: on the Language Model
Council's verdicts with one model made to win all of its own, ``bradley_terry.parquet`` flags
it, gives it no Elo and no two-sided interval but a one-sided bound ("Elo above X"), says the
fit did not converge, and the printed table and overview say "won every verdict: strength has
no finite estimate" and the bound instead of a number."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.arena.marts import ArenaMart
from pdbench.arena.overview import arena_findings
from pdbench.arena.summary import leaderboard_table
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from typer.testing import CliRunner

from tests.integration.pairwise_runs import STYLE_TEST_PARENTS

REPO = Path(__file__).resolve().parents[2]
COUNCIL = REPO / "tests" / "data" / "lm_council" / "lmc_ei.jsonl"
WINNER = "qwen1.5-72B-Chat"  # 63 scored verdicts in the file
NOTE = "won every verdict: strength has no finite estimate"


def _made_to_win(line: dict) -> dict:
    """``line`` with WINNER preferred when its answer is in the pair (strong verdicts stay
    strong)."""
    strong = line["pairwise_choice"] in ("A>>B", "B>>A")
    if line["first_completion_by"] == WINNER:
        return line | {"pairwise_choice": "A>>B" if strong else "A>B"}
    if line["second_completion_by"] == WINNER:
        return line | {"pairwise_choice": "B>>A" if strong else "B>A"}
    return line


@pytest.fixture(scope="module")
def winner_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("separated")
    source = root / "lmc_ei.jsonl"
    lines = [_made_to_win(json.loads(line)) for line in COUNCIL.read_text().splitlines()]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    run_dir = root / "council"
    result = CliRunner().invoke(
        cli.app,
        ["import", "lm-council", str(source), "--output-dir", str(run_dir), "--no-aggregate"],
    )
    assert result.exit_code == 0, result.output
    invoke_dbt(
        DbtRequest("build", run_dir=run_dir, select="+arena_bradley_terry" + STYLE_TEST_PARENTS)
    )
    return run_dir


def _rows(run_dir: Path) -> dict[str, dict]:
    table = duckdb.sql(f"select * from '{run_dir / ArenaMart.BRADLEY_TERRY}'")
    return {row[0]: dict(zip(table.columns, row, strict=True)) for row in table.fetchall()}


def _mean_opponent_elo(run_dir: Path) -> float:
    """The mean Elo of WINNER's opponents over its scored verdicts (blind, not its own)."""
    elo = {player: row["elo"] for player, row in _rows(run_dir).items()}
    opponents = [
        line["second_player"] if line["first_player"] == WINNER else line["first_player"]
        for line in map(json.loads, (run_dir / "pairwise_judgments.jsonl").read_text().splitlines())
        if line["is_valid"]
        and not line["is_named"]
        and WINNER in (line["first_player"], line["second_player"])
        and line["judge"] not in (line["first_player"], line["second_player"])
    ]
    assert len(opponents) == 63
    return sum(elo[opponent] for opponent in opponents) / len(opponents)


def test_the_player_who_won_every_verdict_is_flagged_with_a_one_sided_bound_only(
    winner_run: Path,
):
    winner = _rows(winner_run)[WINNER]
    assert (winner["n_verdicts"], winner["win_rate"]) == (63, 1.0)
    assert winner["is_separated"] is True
    assert winner["elo_note"] == NOTE
    # no Elo and no two-sided interval: a one-sided 97.5% bound from its 63 verdicts, all won
    # against players with an Elo, b = 0.025^(1/63) = 0.943128, 400 log10(b / (1 - b)) =
    # 487.868 Elo points above the mean Elo of the opponents of those verdicts
    assert winner["elo"] is None and winner["elo_ci_high"] is None
    others = [row for player, row in _rows(winner_run).items() if player != WINNER]
    assert winner["elo_ci_low"] == pytest.approx(_mean_opponent_elo(winner_run) + 487.86771)
    assert winner["elo_ci_low"] > max(row["elo"] for row in others)
    assert winner["win_rate_vs_baseline"] is None
    assert winner["win_rate_ci_high"] is None
    assert winner["win_rate_ci_low"] == pytest.approx(
        1 / (1 + 10 ** ((1000 - winner["elo_ci_low"]) / 400))
    )
    assert winner["rank"] == 1  # above every player: it was never beaten
    assert winner["is_converged"] is False


def test_the_other_players_keep_an_elo_and_say_the_fit_was_still_moving(winner_run: Path):
    others = [row for player, row in _rows(winner_run).items() if player != WINNER]
    assert len(others) == 19
    for row in others:
        assert row["is_separated"] is False
        assert row["elo"] is not None
        assert row["is_converged"] is False
        assert row["elo_note"].startswith("the fit was still moving at its last step")


def test_the_printed_table_and_overview_say_no_finite_estimate(winner_run: Path):
    lines = leaderboard_table(winner_run, {ArenaMart.BRADLEY_TERRY: 20})
    winner_line = next(line for line in lines if line.split()[1:2] == [WINNER])
    low = _rows(winner_run)[WINNER]["elo_ci_low"]
    assert winner_line.split()[:6] == ["1", WINNER, "-", ">", f"{low:.0f}", "1-1"]
    assert f"{WINNER} {NOTE} (no Elo; Elo above {low:.0f}, a one-sided 97.5% bound)." in lines
    assert any(line.startswith("The fit was still moving at its last step") for line in lines)
    (finding,) = [f for f in arena_findings(winner_run, {}) if f.topic == "agreement"]
    assert finding.text.startswith(
        f"Pairwise verdicts (Bradley-Terry): {WINNER} {NOTE} (no Elo; Elo above {low:.0f}, a "
        "one-sided 97.5% bound). Of the others, "
        "qwen1.5-110B-Chat has the highest strength, "
    )
    assert "first place is not settled" in finding.text
