"""What an agent's strategy is: Ashlock fingerprints against Axelrod's, and the closest known
strategy of every agent of a noisy round robin (policies, an Axelrod strategy and an LLM agent
on the mock). The same run names the one pair of conditions it compares."""

from __future__ import annotations

import math
import shutil
import warnings
from pathlib import Path

import axelrod as axl
import duckdb
import pytest
from axelrod.fingerprint import Point, _create_jossann
from pdbench.aggregate import aggregate_run
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.pd.agents.probe import AshlockProbe
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart

from tests.conftest import CONFIGS, write_experiment

TURNS = 20
REPLICATES = 60
AXELROD_REPETITIONS = 300
FINGERPRINTED = {"TFT": axl.TitForTat, "WSLS": axl.WinStayLoseShift, "GRIM": axl.Grudger}
CORNERS = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]


def _rows(path: Path, sql: str) -> list[dict]:
    with duckdb.connect() as con:
        cursor = con.execute(sql.replace("{path}", f"read_parquet('{path}')"))
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TFT, WSLS and GRIM fingerprinted on a 3 x 3 grid, a round robin with noise 0.1 of the
    six policies and Axelrod's Grudger, and an LLM agent whose mock plays WSLS against GTFT
    with noise 0.1."""
    llm = {
        "ref": "agents/llm_default.yaml",
        "overrides": {"name": "llm_wsls", "persona": "wsls", "mock": {"strategy": "WSLS"}},
    }
    folder = tmp_path_factory.mktemp("strategies")
    shutil.copytree(CONFIGS, folder / "configs")
    path = write_experiment(
        folder / "configs",
        run_id="strategies",
        replicates=REPLICATES,
        store_prompts=False,
        horizon={"type": "fixed", "n": TURNS},
        metrics={"bootstrap": {"n": 10}},
        conditions=[
            {
                "name": "llm_vs_gtft",
                "agent_a": llm,
                "agent_b": {"type": "policy", "policy": "GTFT"},
                "noise": 0.1,
            }
        ],
        fingerprint={"agents": list(FINGERPRINTED), "step": 0.5},
        comparisons=[["ALLD_vs_GRIM", "ALLD_vs_TFT"]],
        round_robin={
            "agents": [
                "ALLC",
                "ALLD",
                "TFT",
                "GRIM",
                "WSLS",
                "GTFT",
                {"type": "policy", "policy": "axelrod:Grudger", "name": "Grudger"},
            ],
            "noise": 0.1,
        },
    )
    result = run_experiment(load_config(path), output_dir=folder / "run")
    aggregate_run(result.run_dir)
    return result.run_dir


def test_the_probe_corners_play_axelrods_moves():
    """(0, 0) TFT, (1, 0) ALLC, (0, 1) ALLD, (1, 1) Psycho, the dual of TFT: deterministic,
    so move for move against scripted opponents."""
    for x, y in CORNERS:
        for opponent in (axl.Cooperator, axl.Defector, axl.Alternator, axl.TitForTat):
            theirs = _create_jossann(Point(x, y), axl.TitForTat)
            match = axl.Match((theirs, opponent()), turns=TURNS, seed=1)
            expected = [(str(a), str(b)) for a, b in match.play()]
            ours = AshlockProbe(x=x, y=y)
            ours.reset(5)
            moves = [ours.first_action()]
            for (_, last_opponent), (own, _) in zip(expected, expected, strict=True):
                moves.append(ours.next_action(own, last_opponent, 0.0))
            assert moves[:TURNS] == [a for a, _ in expected], (x, y, opponent.name)


def test_the_probe_draws_at_its_point():
    """Below the anti-diagonal the probe plays C with probability x and D with probability y
    on top of TFT; above it, D with probability 1 - x and C with probability 1 - y on top of
    Psycho. Against ALLD, TFT's and Psycho's own moves are D and C."""
    for (x, y), want_c in [((0.3, 0.2), 0.3), ((0.6, 0.9), 0.1 + 0.3)]:
        probe = AshlockProbe(x=x, y=y)
        probe.reset(11)
        draws = 20_000
        share = sum(probe.next_action("C", "D", 0.0) == "C" for _ in range(draws)) / draws
        # the share of C: x (TFT's own move is D) below; 1 - y plus the rest (Psycho's C) above
        want = want_c if x + y < 1 else (1 - y) + (x + y - 1)
        assert abs(share - want) < 4 * math.sqrt(want * (1 - want) / draws), (x, y, share)


def test_fingerprints_recover_axelrods(run_dir: Path):
    """Every point of the three fingerprints within sampling error of Axelrod's
    AshlockFingerprint (the same turns; 4.5 standard errors of the difference), and the
    deterministic corners exactly."""
    ours = {
        (r["agent_name"], r["probe_x"], r["probe_y"]): r
        for r in _rows(run_dir / PDMart.FINGERPRINTS, "select * from {path}")
    }
    assert len(ours) == len(FINGERPRINTED) * 9
    for name, strategy in FINGERPRINTED.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = axl.AshlockFingerprint(strategy()).fingerprint(
                turns=TURNS,
                repetitions=AXELROD_REPETITIONS,
                step=0.5,
                progress_bar=False,
                seed=3,
            )
        assert len(theirs) == 9
        for point, value in theirs.items():
            row = ours[(name, float(point.x), float(point.y))]
            assert row["n_matches"] == REPLICATES
            if (point.x, point.y) in CORNERS:
                assert row["mean_score_per_round"] == pytest.approx(value, abs=1e-9)
                continue
            se_ours = row["score_se"]
            se_theirs = se_ours * math.sqrt(REPLICATES / AXELROD_REPETITIONS)
            gap = abs(row["mean_score_per_round"] - value)
            assert gap <= 4.5 * math.hypot(se_ours, se_theirs) + 1e-9, (name, point, row, value)


def _closest(run_dir: Path) -> dict[str, list[dict]]:
    rows = _rows(
        run_dir / PDMart.STRATEGY_FIT,
        "select * from {path} where level = 'agent' and fit_rank = 1 order by agent_name",
    )
    by_agent: dict[str, list[dict]] = {}
    for row in rows:
        by_agent.setdefault(row["agent_name"], []).append(row)
    return by_agent


@pytest.mark.parametrize("policy", ["ALLC", "ALLD", "TFT", "GRIM", "WSLS"])
def test_a_deterministic_policy_is_closest_to_itself_at_distance_zero(run_dir, policy):
    """Under noise 0.1 every context is met; the intended moves follow the rule exactly."""
    (closest,) = _closest(run_dir)[policy]
    assert closest["reference"] == policy
    assert closest["distance"] == 0.0
    assert closest["posterior"] > 0.999


def test_gtft_is_closest_to_gtft(run_dir):
    """A stochastic rule disagrees with its own draws: after each of the opponent's
    defections GTFT forgives with probability 1/3, so its expected disagreement there is
    2 x 1/3 x 2/3 = 4/9; never elsewhere."""
    (closest,) = _closest(run_dir)["GTFT"]
    assert closest["reference"] == "GTFT"
    assert 0 < closest["distance"] < 4 / 9


def test_an_axelrod_strategy_is_named_by_the_classic_it_plays(run_dir):
    """Axelrod's Grudger is GRIM; its own profile as played is a reference for the others,
    and GRIM's memory (the opponent ever defected) fits GRIM better than Grudger's
    memory-one profile does."""
    (closest,) = _closest(run_dir)["Grudger"]
    assert (closest["reference"], closest["distance"]) == ("GRIM", 0.0)
    grim = _rows(
        run_dir / PDMart.STRATEGY_FIT,
        "select reference, fit_rank from {path} where level = 'agent' and agent_name = 'GRIM'",
    )
    ranks = {row["reference"]: row["fit_rank"] for row in grim}
    assert ranks["GRIM"] == 1 < ranks["Grudger"]


def test_an_llm_agent_is_identified_by_the_strategy_it_plays(run_dir):
    (closest,) = _closest(run_dir)["llm_wsls"]
    assert closest["reference"] == "WSLS"
    assert closest["distance"] == 0.0


def test_a_fingerprint_step_must_divide_one(project: Path):
    path = write_experiment(
        project / "configs",
        name="bad_step.yaml",
        conditions=[],
        fingerprint={"agents": ["TFT"], "step": 0.3},
    )
    with pytest.raises(ConfigError, match=r"fingerprint\.step.*0\.3 does not divide 1"):
        load_config(path)


def test_a_probe_needs_its_point(project: Path):
    path = write_experiment(
        project / "configs",
        name="bad_probe.yaml",
        conditions=[
            {
                "name": "p",
                "agent_a": {"type": "policy", "policy": "TFT"},
                "agent_b": {"type": "policy", "policy": "PROBE"},
            }
        ],
    )
    with pytest.raises(ConfigError, match=r"PROBE needs its point"):
        load_config(path)


def test_the_configured_pair_is_the_only_comparison(run_dir: Path):
    """GRIM minus TFT, each against ALLD under noise: the mean over replicates of the
    difference in B's cooperation, recomputed from the rounds; no automatic pair (the round
    robin alone has 21 pairs sharing an agent) and none among the fingerprint's."""
    rows = _rows(run_dir / PDMart.COMPARISONS, "select * from {path}")
    assert {(r["condition_1"], r["condition_2"]) for r in rows} == {("ALLD_vs_GRIM", "ALLD_vs_TFT")}
    (row,) = [r for r in rows if r["metric"] == "cooperation_rate_b"]
    per_replicate = _rows(
        run_dir / "rounds.jsonl",
        "select condition, replicate, avg((agent_b_action = 'C')::int) as c "
        "from read_json_auto('" + str(run_dir / "rounds.jsonl") + "') "
        "where condition in ('ALLD_vs_GRIM', 'ALLD_vs_TFT') group by all",
    )
    by = {(r["condition"], r["replicate"]): r["c"] for r in per_replicate}
    differences = [by[("ALLD_vs_GRIM", k)] - by[("ALLD_vs_TFT", k)] for k in range(REPLICATES)]
    assert row["n_pairs"] == REPLICATES
    assert row["mean_difference"] == pytest.approx(sum(differences) / REPLICATES, abs=1e-12)


def test_a_compared_condition_must_exist(project: Path):
    path = write_experiment(
        project / "configs", name="bad_pair.yaml", comparisons=[["tft_vs_alld", "tft_vs_allc"]]
    )
    with pytest.raises(ConfigError, match=r"comparisons.*unknown condition 'tft_vs_allc'"):
        load_config(path)
