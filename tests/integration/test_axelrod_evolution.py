"""The evolutionary marts against Axelrod on the same round robin: ``tournament_ecosystem``
against Axelrod's ``Ecosystem`` (the same shares to 1e-9 over every generation) and
``tournament_fixation`` against Axelrod's ``MoranProcess`` played many times (the same
fixation frequencies within sampling error).

pdbench plays the six policies' round robin with self-play and dbt builds the marts;
Axelrod plays the same six strategies in its own tournament and processes. Every match is
deterministic (no noise, a fixed number of turns), so Axelrod's payoff matrix has no spread
and its Ecosystem's normal draws are the means themselves.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import ClassVar

import axelrod as axl
import duckdb
import pytest
from pdbench.aggregate import aggregate_run
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart

from tests.conftest import write_experiment
from tests.integration.test_axelrod import SIX_AGENTS

TURNS = 10
GENERATIONS = 100
POPULATION = 4
REPETITIONS = 2000
STRATEGIES = {
    "ALLC": axl.Cooperator,
    "ALLD": axl.Defector,
    "GRIM": axl.Grudger,
    "GTFT": lambda: axl.GTFT(p=0),
    "TFT": axl.TitForTat,
    "WSLS": axl.WinStayLoseShift,
}
NAMES = sorted(STRATEGIES)  # the marts' agent order


def _rows(path: Path, sql: str = "select * from {path}") -> list[dict]:
    with duckdb.connect() as con:
        cursor = con.execute(sql.replace("{path}", f"read_parquet('{path}')"))
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("evolution")
    path = write_experiment(
        folder,
        conditions=[],
        replicates=2,
        horizon={"type": "fixed", "n": TURNS},
        round_robin={"agents": SIX_AGENTS, "self_play": True},
        metrics={
            "evolution": {
                "generations": GENERATIONS,
                "population": POPULATION,
                "repetitions": REPETITIONS,
            }
        },
    )
    result = run_experiment(load_config(path), output_dir=folder / "run")
    aggregate_run(result.run_dir)
    return result.run_dir


@pytest.fixture(scope="module")
def axelrod_results() -> axl.ResultSet:
    players = [STRATEGIES[name]() for name in NAMES]
    return axl.Tournament(players, turns=TURNS, repetitions=1, seed=1).play(progress_bar=False)


def test_the_payoff_matrix_is_axelrods(run_dir: Path, axelrod_results: axl.ResultSet):
    ours = {
        (row["agent"], row["opponent"]): row["mean_score_per_round"]
        for row in _rows(run_dir / PDMart.TOURNAMENT_PAYOFF_MATRIX)
    }
    theirs = {
        (agent, opponent): float(axelrod_results.payoff_matrix[i][j])
        for i, agent in enumerate(NAMES)
        for j, opponent in enumerate(NAMES)
    }
    assert ours == theirs
    assert ours["ALLD", "TFT"] == (5 + 9 * 1) / TURNS


def test_replicator_dynamics_are_axelrods_ecosystem(run_dir: Path, axelrod_results: axl.ResultSet):
    rows = _rows(run_dir / PDMart.TOURNAMENT_ECOSYSTEM)
    ours = [[0.0] * len(NAMES) for _ in range(GENERATIONS + 1)]
    for row in rows:
        ours[row["generation"]][NAMES.index(row["agent"])] = row["population_share"]
    assert len(rows) == (GENERATIONS + 1) * len(NAMES)

    ecosystem = axl.Ecosystem(axelrod_results)
    ecosystem.reproduce(GENERATIONS)
    theirs = ecosystem.population_sizes
    assert len(theirs) == GENERATIONS + 1
    difference = max(
        abs(share - float(their_share))
        for generation, their_generation in zip(ours, theirs, strict=True)
        for share, their_share in zip(generation, their_generation, strict=True)
    )
    assert difference < 1e-9
    # the dynamics did something: ALLD dies out, the retaliators (GRIM, GTFT with p = 0,
    # TFT: the same moves here) end with the largest shares
    last = dict(zip(NAMES, ours[GENERATIONS], strict=True))
    assert last["ALLD"] < 1e-9 < ours[1][NAMES.index("ALLD")] < 1 / 6
    assert last["TFT"] == max(last.values()) > 1 / 6


class _RememberedMatch:
    """Axelrod's Match, played once per ordered pair of strategies and remembered: the
    strategies are deterministic and there is no noise, so every match of a pair scores the
    same. The Moran process draws its random numbers as with Axelrod's own Match."""

    scores: ClassVar[dict[tuple[str, str], tuple[float, float]]] = {}

    def __init__(self, players: tuple, turns: int, **_: object) -> None:
        self.players = players
        self.turns = turns

    def play(self) -> None:
        key = (str(self.players[0]), str(self.players[1]))
        if key not in self.scores:
            match = axl.Match(tuple(p.clone() for p in self.players), turns=self.turns)
            match.play()
            self.scores[key] = match.final_score_per_turn()
        self._scores = self.scores[key]

    def final_score_per_turn(self) -> tuple[float, float]:
        return self._scores


def _fixation_frequency(mutant: str, resident: str) -> float:
    mutant_name = str(STRATEGIES[mutant]())
    fixations = 0
    for seed in range(REPETITIONS):
        players = [STRATEGIES[mutant]()] + [STRATEGIES[resident]() for _ in range(POPULATION - 1)]
        process = axl.MoranProcess(players, turns=TURNS, seed=seed, match_class=_RememberedMatch)
        process.play()
        fixations += process.winning_strategy_name == mutant_name
    return fixations / REPETITIONS


# exact values with N = 4 and 10 turns: ALLD in ALLC 0.663, in WSLS 0.443, in TFT 0.157;
# WSLS in ALLD 0.055; ALLC in ALLD 0 (it scores nothing); TFT in GTFT (the same moves) 1/4
PAIRS = [
    ("ALLD", "ALLC"),
    ("ALLD", "WSLS"),
    ("ALLD", "TFT"),
    ("WSLS", "ALLD"),
    ("ALLC", "ALLD"),
    ("TFT", "GTFT"),
]


@pytest.mark.parametrize(("mutant", "resident"), PAIRS, ids=[f"{m}-in-{r}" for m, r in PAIRS])
def test_fixation_probabilities_are_axelrods_moran_process(
    run_dir: Path, mutant: str, resident: str
):
    (row,) = _rows(
        run_dir / PDMart.TOURNAMENT_FIXATION,
        f"select * from {{path}} where mutant = '{mutant}' and resident = '{resident}'",
    )
    exact = row["fixation_probability"]
    assert row["population_size"] == POPULATION
    frequency = _fixation_frequency(mutant, resident)
    # 4 binomial standard errors of the exact value: a false alarm once in ~16,000 pairs
    standard_error = math.sqrt(exact * (1 - exact) / REPETITIONS)
    assert abs(frequency - exact) <= 4 * standard_error, (
        f"{mutant} in {resident}: exact {exact:.4f}, Axelrod {frequency:.4f} "
        f"(standard error {standard_error:.4f})"
    )


def test_the_seeded_sql_moran_runs_agree_with_the_exact_probabilities(run_dir: Path):
    exact = {
        (row["mutant"], row["resident"]): row["fixation_probability"]
        for row in _rows(run_dir / PDMart.TOURNAMENT_FIXATION)
    }
    simulated = _rows(run_dir / PDMart.TOURNAMENT_MORAN_SIMULATIONS)
    assert len(simulated) == len(exact) == len(NAMES) * (len(NAMES) - 1)
    for row in simulated:
        probability = exact[row["mutant"], row["resident"]]
        assert row["n_repetitions"] == REPETITIONS
        standard_error = math.sqrt(probability * (1 - probability) / REPETITIONS)
        assert abs(row["simulated_fixation_rate"] - probability) <= 4 * standard_error, row
    # ALLC scores nothing against ALLD: it never fixates, in any run
    assert {(r["mutant"], r["resident"]): r for r in simulated}["ALLC", "ALLD"]["n_fixations"] == 0


def test_fixation_rows_cover_every_ordered_pair(run_dir: Path):
    rows = _rows(run_dir / PDMart.TOURNAMENT_FIXATION)
    assert len(rows) == len(NAMES) * (len(NAMES) - 1)
    by_pair = {(row["mutant"], row["resident"]): row for row in rows}
    assert by_pair["TFT", "GTFT"]["fixation_probability"] == 1 / POPULATION
    assert by_pair["ALLC", "ALLD"]["fixation_probability"] == 0.0
    assert by_pair["ALLD", "ALLC"]["is_favoured"]
    assert not by_pair["ALLD", "TFT"]["is_favoured"]


def test_a_second_build_writes_the_same_evolution_marts(run_dir: Path):
    marts = (
        PDMart.TOURNAMENT_ECOSYSTEM,
        PDMart.TOURNAMENT_FIXATION,
        PDMart.TOURNAMENT_MORAN_SIMULATIONS,
    )

    def digests() -> list[str]:
        return [hashlib.sha256((run_dir / mart).read_bytes()).hexdigest() for mart in marts]

    first = digests()
    aggregate_run(run_dir)
    assert digests() == first
