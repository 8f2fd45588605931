"""An imported run gets the same metrics as a played one: a hand-made round table imported
with ``pdbench import csv`` and aggregated, checked against metrics computed by hand."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.pd.marts import PDMart
from typer.testing import CliRunner

# Two matches of m (an LLM) against s (a fixed strategy), 3/0/5/1 computed from the table:
#   game 1: m C C D C, s C C C D -> m's payoffs 3 3 5 0, s's 3 3 0 5
#   game 2: m D D C C, s C D D C -> m's payoffs 5 1 0 3, s's 0 1 5 3
ROUNDS = """\
game,t,who,against,mine,theirs
1,1,m,s,up,up
1,2,m,s,up,up
2,1,m,s,down,up
1,3,m,s,down,up
2,2,m,s,down,down
1,4,m,s,up,down
2,3,m,s,up,down
2,4,m,s,up,up
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("imported")
    source = folder / "rounds.csv"
    source.write_text(ROUNDS)
    out = folder / "run"
    result = CliRunner().invoke(
        cli.app,
        [
            "import", "csv", str(source), "--output-dir", str(out),
            "--set", "match=game", "--set", "round=t", "--set", "agent_a=who",
            "--set", "agent_b=against", "--set", "action_a=mine", "--set", "action_b=theirs",
            "--set", "actions=up:C,down:D", "--set", "policies=s",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "not recorded" in result.stdout
    return out


def _condition_row(run_dir: Path) -> dict:
    relation = duckdb.sql(
        f"select * from '{run_dir / PDMart.AGGREGATES}' where level = 'condition'"
    )
    (row,) = relation.fetchall()
    return dict(zip(relation.columns, row, strict=True))


def test_the_imported_condition_has_the_metrics_computed_by_hand(run_dir: Path):
    row = _condition_row(run_dir)
    assert row["condition"] == "m_vs_s"
    assert row["n_replicates"] == 2
    # cooperation of m: 3/4 and 2/4 -> 0.625; of s the same; both together 0.625
    assert row["cooperation_rate_a"] == pytest.approx(0.625)
    assert row["cooperation_rate_b"] == pytest.approx(0.625)
    assert row["cooperation_rate"] == pytest.approx(0.625)
    # game 1: s never defects before the last round -> not defined; game 2: s defected in
    # rounds 2 and 3, m cooperated in rounds 3 and 4 -> retaliation 0, forgiveness 1
    assert row["retaliation_rate_a"] == pytest.approx(0.0)
    assert row["forgiveness_rate_a"] == pytest.approx(1.0)
    # m: 11/4 and 9/4 per round -> 2.5; s: 11/4 and 9/4 -> 2.5
    assert row["payoff_per_round_a"] == pytest.approx(2.5)
    assert row["payoff_per_round_b"] == pytest.approx(2.5)
    # m's replies were never recorded as valid or not: not recorded, not 0; s is a policy
    assert row["fallback_move_share_a"] is None
    assert row["fallback_move_share_b"] is None


def test_the_imported_llm_is_fitted_like_a_played_one(run_dir: Path):
    ((n_rounds,),) = duckdb.sql(
        f"select distinct n_rounds from '{run_dir / PDMart.STRATEGY_FIT}' "
        "where level = 'agent' and agent_name = 'm'"
    ).fetchall()
    # every one of m's 8 rounds counts: validity not recorded is not invalid
    assert n_rounds == 8
