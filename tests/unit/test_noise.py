"""Execution noise: the flip function, and what a noisy run records and shows the agents."""

from collections import defaultdict
from itertools import pairwise
from pathlib import Path

import pytest
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.noise import noise_seed, noisy
from pdbench.pd.plan import plan_matches
from pdbench.pd.records import PDFiles, RoundRecord
from pdbench.storage.jsonl import read_jsonl

from tests.conftest import write_experiment


def test_noise_zero_is_the_identity_and_noise_one_always_flips():
    same, flip = noisy(noise=0.0, seed=1), noisy(noise=1.0, seed=1)
    assert [same(a) for a in "CDCD"] == list("CDCD")
    assert [flip(a) for a in "CDCD"] == list("DCDC")


def test_the_flip_rate_is_the_noise():
    execute = noisy(noise=0.05, seed=11)
    flips = sum(execute("C") == "D" for _ in range(40_000))
    # binomial(40000, 0.05): sd = sqrt(40000 * 0.05 * 0.95) = 43.6; 5 sd = 218 around 2000
    assert abs(flips - 2000) < 218


def test_noise_is_seeded_per_stream():
    draws = [noisy(noise=0.5, seed=s) for s in (1, 1, 2)]
    runs = [[d("C") for _ in range(64)] for d in draws]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]
    assert noise_seed(5, condition="x", replicate=0, side="agent_a") != noise_seed(
        5, condition="x", replicate=0, side="agent_b"
    )


def test_noise_outside_zero_one_is_refused():
    with pytest.raises(ValueError, match="noise must be in"):
        noisy(noise=1.5, seed=0)


def _policy(name: str) -> dict:
    return {"ref": "agents/policies.yaml", "overrides": {"policy": name}}


def _noisy_run(project: Path, *, noise, conditions, n=400, replicates=1, out="run"):
    config = write_experiment(
        project / "configs",
        horizon={"type": "fixed", "n": n},
        replicates=replicates,
        noise=noise,
        conditions=conditions,
    )
    result = run_experiment(load_config(config), output_dir=project / out)
    rows = list(read_jsonl(result.run_dir / PDFiles.ROUNDS))
    for row in rows:
        RoundRecord.model_validate(row)
    by_match = defaultdict(list)
    for row in rows:
        by_match[row["condition"]].append(row)
    return by_match


def _flips(rows, side):
    return sum(r[f"{side}_intended_action"] != r[f"{side}_action"] for r in rows)


def test_noise_zero_records_intended_equal_to_executed(project: Path):
    rows = _noisy_run(
        project,
        noise=0.0,
        conditions=[{"name": "p", "agent_a": _policy("TFT"), "agent_b": _policy("GTFT")}],
    )["p"]
    assert _flips(rows, "agent_a") == _flips(rows, "agent_b") == 0


def test_noise_one_flips_every_action_and_scores_the_executed_ones(project: Path):
    rows = _noisy_run(
        project,
        noise=1.0,
        n=5,
        conditions=[{"name": "p", "agent_a": _policy("ALLC"), "agent_b": _policy("ALLD")}],
    )["p"]
    assert [(r["agent_a_intended_action"], r["agent_a_action"]) for r in rows] == [("C", "D")] * 5
    assert [(r["agent_b_intended_action"], r["agent_b_action"]) for r in rows] == [("D", "C")] * 5
    # executed: A defects on a cooperating B, 5 per round
    assert [r["agent_a_cum_payoff"] for r in rows] == [5.0, 10.0, 15.0, 20.0, 25.0]
    assert rows[-1]["agent_b_cum_payoff"] == 0.0


def test_a_condition_overrides_the_experiment_noise(project: Path):
    by = _noisy_run(
        project,
        noise=1.0,
        n=4,
        conditions=[
            {"name": "loud", "agent_a": _policy("ALLC"), "agent_b": _policy("ALLC")},
            {"name": "quiet", "agent_a": _policy("ALLC"), "agent_b": _policy("ALLC"), "noise": 0.0},
        ],
    )
    assert _flips(by["loud"], "agent_a") == 4
    assert _flips(by["quiet"], "agent_a") == 0


def test_the_flip_rate_of_a_run_is_its_noise(project: Path):
    rows = _noisy_run(
        project,
        noise=0.1,
        n=5000,
        conditions=[{"name": "p", "agent_a": _policy("ALLC"), "agent_b": _policy("ALLD")}],
    )["p"]
    flips = _flips(rows, "agent_a") + _flips(rows, "agent_b")
    # binomial(10000, 0.1): sd = sqrt(10000 * 0.1 * 0.9) = 30; 5 sd = 150 around 1000
    assert abs(flips - 1000) < 150


def test_agents_see_the_executed_actions(project: Path):
    # TFT's intended action in round t+1 is B's EXECUTED action in round t (as in Axelrod)
    rows = _noisy_run(
        project,
        noise=0.2,
        n=600,
        conditions=[{"name": "p", "agent_a": _policy("TFT"), "agent_b": _policy("ALLC")}],
    )["p"]
    assert _flips(rows, "agent_b") > 50  # the check below sees flipped rounds
    for before, after in pairwise(rows):
        assert after["agent_a_intended_action"] == before["agent_b_action"]


def test_noise_is_part_of_the_plan(project: Path):
    config = write_experiment(project / "configs", noise=0.25)
    plans = plan_matches(load_config(config).config)
    assert {p.noise for p in plans} == {0.25}
    assert len({p.noise_seeds for p in plans}) == len(plans)


def test_noisy_llm_matches_record_intended_and_executed(project: Path):
    rows = _noisy_run(
        project,
        noise=1.0,
        n=3,
        conditions=[
            {
                "name": "m",
                "agent_a": {
                    "ref": "agents/llm_default.yaml",
                    "overrides": {"mock": {"strategy": "ALLC"}},
                },
                "agent_b": _policy("ALLC"),
            }
        ],
    )["m"]
    assert [(r["agent_a_intended_action"], r["agent_a_action"]) for r in rows] == [("C", "D")] * 3
