"""The arena's Bradley-Terry models on pairwise verdicts: the SQL equals an independent fit,
and a planted skill order comes back with intervals that cover the planted strengths."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pytest
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt

from tests.integration.pairwise_runs import (
    STYLE_TEST_PARENTS,
    newton_fit,
    planted_verdicts,
    scoring,
    write_pairwise_run,
)

PLANTED = {"ada": 1.2, "bob": 0.6, "cyd": 0.0, "dee": -0.5, "eve": -1.3}
ELO_PER_LN = 400 / math.log(10)
SELECT = "+arena_bradley_terry" + STYLE_TEST_PARENTS


def build(run_dir: Path) -> list[dict]:
    invoke_dbt(DbtRequest("build", run_dir=run_dir, select=SELECT, unit_tests=True))
    table = duckdb.sql(f"select * from '{run_dir / 'bradley_terry.parquet'}'")
    return [dict(zip(table.columns, row, strict=True)) for row in table.fetchall()]


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, list[dict]]:
    verdicts = planted_verdicts(PLANTED, n_questions=40, seed=3)
    run_dir = write_pairwise_run(
        tmp_path_factory.mktemp("bt") / "run", verdicts, scoring(bootstrap_n=200)
    )
    return verdicts, build(run_dir)


def test_the_sql_fit_equals_a_newton_fit_of_the_same_verdicts(planted_run):
    verdicts, rows = planted_run
    expected = newton_fit((v.first_player, v.second_player, v.verdict) for v in verdicts)
    assert {row["player"] for row in rows} == set(expected)
    for row in rows:
        assert math.log(row["strength"]) == pytest.approx(expected[row["player"]], abs=1e-6)
        assert row["elo"] == pytest.approx(1000 + ELO_PER_LN * expected[row["player"]], abs=1e-4)
        assert row["bt_last_change"] < 1e-9
        assert (row["is_converged"], row["is_separated"], row["elo_note"]) == (True, False, None)


def test_the_planted_order_comes_back_with_intervals_around_the_planted_strengths(planted_run):
    _, rows = planted_run
    assert [row["player"] for row in rows] == sorted(PLANTED, key=PLANTED.get, reverse=True)
    assert [row["rank"] for row in rows] == [1, 2, 3, 4, 5]
    for row in rows:
        planted_elo = 1000 + ELO_PER_LN * PLANTED[row["player"]]
        assert row["elo_ci_low"] <= row["elo"] <= row["elo_ci_high"]
        assert row["elo_ci_low"] <= planted_elo <= row["elo_ci_high"], row
        assert row["rank_ci_low"] <= row["rank"] <= row["rank_ci_high"]
        assert row["n_replicates"] == 200


def test_the_elo_interval_is_stretched_for_the_40_questions(planted_run):
    _, rows = planted_run
    # sqrt(40 / 39) * t(0.975, 39) / 1.959964 = 1.012739 * 2.022691 / 1.959964 = 1.045151
    for row in rows:
        assert row["n_questions"] == 40
        assert row["interval_expansion"] == pytest.approx(1.045151, abs=1e-6)
        # the win-rate interval is the Elo interval's image (no baseline: 1000 is the mean)
        for end in ("low", "high"):
            elo_end = row[f"elo_ci_{end}"]
            win_end = 1 / (1 + 10 ** ((1000 - elo_end) / 400))
            assert row[f"win_rate_ci_{end}"] == pytest.approx(win_end, abs=1e-12)
