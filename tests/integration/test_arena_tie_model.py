"""The tie model of the Bradley-Terry ranking: with ``pairwise.tie_model: davidson`` the SQL
fit equals an independent fit of Davidson's model (strengths and tie parameter), and the
default, ties as half wins, is what it was."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt

from tests.integration.pairwise_runs import (
    FIRST_SCORE,
    STYLE_TEST_PARENTS,
    newton_fit,
    planted_verdicts,
    scoring,
    write_pairwise_run,
)

PLANTED = {"ada": 0.9, "bob": 0.3, "cyd": 0.0, "dee": -0.8}
ELO_PER_LN = 400 / math.log(10)


def _davidson(verdicts: list) -> tuple[dict[str, float], float]:
    """Davidson's model fitted by its likelihood equations, iterated until still: ln
    strengths (mean 0) and the tie parameter nu. Strong verdicts count 3 wins."""
    games: dict[tuple[str, str], float] = defaultdict(float)
    wins: dict[str, float] = defaultdict(float)
    n_ties = 0
    for v in verdicts:
        weight = 3 if v.verdict in ("A>>B", "B>>A") else 1
        score = FIRST_SCORE[v.verdict]
        games[v.first_player, v.second_player] += weight
        games[v.second_player, v.first_player] += weight
        wins[v.first_player] += weight * score
        wins[v.second_player] += weight * (1 - score)
        n_ties += v.verdict == "A=B"
    players = sorted(wins)
    strength, nu = dict.fromkeys(players, 1.0), 1.0
    for _ in range(3000):
        root = {pair: math.sqrt(strength[pair[0]] * strength[pair[1]]) for pair in games}
        denominator = {(i, j): strength[i] + strength[j] + nu * root[i, j] for (i, j) in games}
        new = {
            i: wins[i]
            * strength[i]
            / sum(
                n * (strength[i] + nu / 2 * root[a, j]) / denominator[a, j]
                for (a, j), n in games.items()
                if a == i
            )
            for i in players
        }
        nu = n_ties / (sum(n * root[p] / denominator[p] for p, n in games.items()) / 2)
        centre = sum(math.log(value) for value in new.values()) / len(new)
        strength = {i: math.exp(math.log(value) - centre) for i, value in new.items()}
    return {i: math.log(value) for i, value in strength.items()}, nu


def _build(run_dir: Path) -> dict[str, dict]:
    invoke_dbt(
        DbtRequest("build", run_dir=run_dir, select="+arena_bradley_terry" + STYLE_TEST_PARENTS)
    )
    table = duckdb.sql(f"select * from '{run_dir / 'bradley_terry.parquet'}'")
    return {row[0]: dict(zip(table.columns, row, strict=True)) for row in table.fetchall()}


@pytest.fixture(scope="module")
def verdicts() -> list:
    return planted_verdicts(PLANTED, n_questions=20, seed=5, tie_rate=0.25)


def test_the_davidson_fit_equals_an_independent_fit(verdicts: list, tmp_path: Path):
    settings = scoring(bootstrap_n=50)
    settings["pairwise"]["tie_model"] = "davidson"
    rows = _build(write_pairwise_run(tmp_path / "run", verdicts, settings))
    expected, nu = _davidson(verdicts)
    assert 0 < nu < 2  # a quarter of the verdicts are ties
    for player, row in rows.items():
        assert math.log(row["strength"]) == pytest.approx(expected[player], abs=1e-6)
        assert row["elo"] == pytest.approx(1000 + ELO_PER_LN * expected[player], abs=1e-3)
        assert (row["tie_model"], row["is_converged"]) == ("davidson", True)
        assert row["tie_parameter"] == pytest.approx(nu, abs=1e-6)
        assert row["tie_parameter_ci_low"] <= row["tie_parameter"] <= row["tie_parameter_ci_high"]
    # ties no longer pull the field together: the spread is wider than with half wins
    half = newton_fit((v.first_player, v.second_player, v.verdict) for v in verdicts)
    assert max(expected.values()) - min(expected.values()) > max(half.values()) - min(half.values())


def test_ties_count_as_half_wins_by_default(verdicts: list, tmp_path: Path):
    rows = _build(write_pairwise_run(tmp_path / "run", verdicts, scoring(bootstrap_n=50)))
    expected = newton_fit((v.first_player, v.second_player, v.verdict) for v in verdicts)
    for player, row in rows.items():
        assert math.log(row["strength"]) == pytest.approx(expected[player], abs=1e-6)
        assert (row["tie_model"], row["tie_parameter"]) == ("half", None)
