"""SFEM strategy shares (strategy_shares.parquet) recover a planted population: one agent
name, ``mix``, standing for TFT in two conditions and GRIM in a third, 20 replicates each of
20 fixed rounds against a random opponent (URND, cooperating with probability 0.5)."""

from __future__ import annotations

import shutil

import duckdb
import pytest
from pdbench.aggregate import aggregate_run
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart

from tests.conftest import CONFIGS, write_experiment

REPLICATES = 20
PLANTED = {"TFT": 2 / 3, "GRIM": 1 / 3}
STRATEGIES = {"ALLC", "ALLD", "TFT", "STFT", "GRIM", "WSLS", "GTFT", "TF2T", "ALT"}


def _condition(name: str, policy: str) -> dict[str, object]:
    return {
        "name": name,
        "agent_a": {"type": "policy", "policy": policy, "name": "mix"},
        "agent_b": {"type": "policy", "policy": "URND", "coop_prob": 0.5},
    }


@pytest.fixture(scope="module")
def shares(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The mart's rows of ``mix``, by strategy."""
    folder = tmp_path_factory.mktemp("shares")
    shutil.copytree(CONFIGS, folder / "configs")
    path = write_experiment(
        folder / "configs",
        run_id="shares",
        replicates=REPLICATES,
        store_prompts=False,
        horizon={"type": "fixed", "n": 20},
        conditions=[
            _condition("tft_one", "TFT"),
            _condition("tft_two", "TFT"),
            _condition("grim", "GRIM"),
        ],
    )
    result = run_experiment(load_config(path), output_dir=folder / "run")
    aggregate_run(result.run_dir)
    with duckdb.connect() as con:
        cursor = con.execute(
            "select * from read_parquet(?) where agent_name = 'mix'",
            [str(result.run_dir / PDMart.STRATEGY_SHARES)],
        )
        names = [column[0] for column in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    return {row["strategy"]: row for row in rows}


def test_the_shares_recover_the_planted_population(shares: dict[str, dict]) -> None:
    assert set(shares) == STRATEGIES
    assert sum(row["share"] for row in shares.values()) == pytest.approx(1.0, abs=1e-9)
    for strategy in STRATEGIES:
        truth = PLANTED.get(strategy, 0.0)
        row = shares[strategy]
        assert abs(row["share"] - truth) <= 0.1, (strategy, row["share"])
        assert row["share_ci_low"] <= truth <= row["share_ci_high"], (strategy, row)


def test_the_fit_reports_its_matches_and_tremble(shares: dict[str, dict]) -> None:
    """60 matches of 20 choices; policies never tremble, so the tremble sits at its floor."""
    row = shares["TFT"]
    assert row["n_matches"] == 3 * REPLICATES
    assert row["n_choices"] == 3 * REPLICATES * 20
    assert row["tremble"] == pytest.approx(0.001)
    # no deviation in 1,200 choices: from 0 (the floor may be no tremble at all) to the upper
    # end of Wilson's interval of 0.001 in 1,200 choices, 0.00498
    assert row["tremble_ci_low"] == 0
    assert row["tremble_ci_high"] == pytest.approx(0.004985, abs=1e-6)
    assert 1 <= row["n_em_steps"] <= 400
    assert row["log_likelihood"] < 0
