"""How well SFEM (strategy_shares.parquet) recovers planted populations: share error and the
coverage of its 95% intervals, over seeds and tremble levels.

Not a test. Writes one synthetic PD run in which every population is an agent name of its
own: for each planted mix, tremble level e and seed, 60 match sides of 20 rounds against a
random opponent (URND, C with probability 0.5), each side playing one strategy drawn from the
mix for the whole match (so the sides' own shares vary around the planted ones, as a sample
of a population does), whose intended move is flipped with
probability e (a tremble in the choice itself, which SFEM models; execution noise would not
be one). Then ``pdbench aggregate`` once, and per mix and tremble level:

- the mean absolute error of the shares (all nine strategies) and of the tremble;
- coverage: the share of populations whose interval holds the planted share, for the
  strategies of the mix and for those outside it (planted 0), and for the tremble, each with
  its 95% Wilson interval over the populations.

Usage: ``uv run python benchmarks/bench_sfem_recovery.py [--seeds 40] [--tremble 0 0.05 0.1]
[--dir DIR]``
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb

ROUNDS = 20
SIDES = 60
STRATEGIES = ("ALLC", "ALLD", "TFT", "STFT", "GRIM", "WSLS", "GTFT", "TF2T", "ALT")
MIXES = {
    "tft_grim": {"TFT": 2 / 3, "GRIM": 1 / 3},
    "tft_wsls_alld": {"TFT": 0.4, "WSLS": 0.3, "ALLD": 0.3},
}

History = list[tuple[str, str]]
"""(own, opponent) actions of the rounds so far."""


def _tft(history: History) -> str:
    return history[-1][1] if history else "C"


def _grim(history: History) -> str:
    return "D" if any(theirs == "D" for _, theirs in history) else "C"


def _wsls(history: History) -> str:
    return "C" if not history or history[-1][0] == history[-1][1] else "D"


def _alld(history: History) -> str:
    return "D"


POLICIES: dict[str, Callable[[History], str]] = {
    "TFT": _tft,
    "GRIM": _grim,
    "WSLS": _wsls,
    "ALLD": _alld,
}


def wilson(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson score interval of ``successes`` in ``trials``."""
    p = successes / trials
    shrink = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / shrink
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / shrink
    return max(0.0, centre - half), min(1.0, centre + half)


def _rows(
    population: str, mix: dict[str, float], tremble: float, rng: random.Random
) -> Iterator[tuple[dict[str, object], list[dict[str, object]]]]:
    """The matches of one population, a condition of its own against an opponent of its own
    (so that no two conditions share an agent and none is compared): its match records and
    their rounds."""
    plan = rng.choices(list(mix), weights=list(mix.values()), k=SIDES)
    opponent = f"{population}_urnd"
    for replicate, strategy in enumerate(plan):
        match_id = f"{population}/{replicate}"
        history: History = []
        rounds = []
        total_a = total_b = 0.0
        for round_index in range(1, ROUNDS + 1):
            intended = POLICIES[strategy](history)
            if rng.random() < tremble:
                intended = "D" if intended == "C" else "C"
            theirs = "C" if rng.random() < 0.5 else "D"
            payoff_a, payoff_b = {
                ("C", "C"): (3.0, 3.0),
                ("C", "D"): (0.0, 5.0),
                ("D", "C"): (5.0, 0.0),
                ("D", "D"): (1.0, 1.0),
            }[(intended, theirs)]
            total_a += payoff_a
            total_b += payoff_b
            rounds.append(
                {
                    "schema_version": 1,
                    "run_id": "recovery",
                    "match_id": match_id,
                    "condition": population,
                    "replicate": replicate,
                    "round_index": round_index,
                    "match_seed": replicate,
                    "agent_a_name": population,
                    "agent_b_name": opponent,
                    "agent_a_kind": "policy",
                    "agent_b_kind": "policy",
                    "agent_a_intended_action": intended,
                    "agent_b_intended_action": theirs,
                    "agent_a_action": intended,
                    "agent_b_action": theirs,
                    "agent_a_payoff": payoff_a,
                    "agent_b_payoff": payoff_b,
                    "agent_a_cum_payoff": total_a,
                    "agent_b_cum_payoff": total_b,
                    "agent_a_valid": True,
                    "agent_b_valid": True,
                    "agent_a_attempts": 0,
                    "agent_b_attempts": 0,
                    "horizon_type": "fixed",
                    "fixed_n": ROUNDS,
                    "stop_prob": None,
                    "timestamp_utc": "2025-01-01T00:00:00Z",
                }
            )
            history.append((intended, theirs))
        match = {
            "schema_version": 1,
            "run_id": "recovery",
            "match_id": match_id,
            "condition": population,
            "replicate": replicate,
            "match_seed": replicate,
            "agent_a_name": population,
            "agent_b_name": opponent,
            "agent_a_kind": "policy",
            "agent_b_kind": "policy",
            "horizon_type": "fixed",
            "planned_rounds": ROUNDS,
            "rounds_played": ROUNDS,
            "status": "ok",
            "abort_reason": None,
            "started_at": "2025-01-01T00:00:00Z",
            "finished_at": "2025-01-01T00:00:00Z",
        }
        yield match, rounds


def write_run(run_dir: Path, *, seeds: int, trembles: list[float]) -> dict[str, tuple[str, float]]:
    """The synthetic run; returns each population's mix and tremble by its agent name."""
    run_dir.mkdir(parents=True, exist_ok=True)
    populations: dict[str, tuple[str, float]] = {}
    n_rounds = n_matches = 0
    with (
        (run_dir / "rounds.jsonl").open("w", encoding="utf-8") as rounds_file,
        (run_dir / "matches.jsonl").open("w", encoding="utf-8") as matches_file,
    ):
        for mix_name, mix in MIXES.items():
            for tremble in trembles:
                for seed in range(1, seeds + 1):
                    population = f"{mix_name}_e{tremble:g}_s{seed}"
                    populations[population] = (mix_name, tremble)
                    rng = random.Random(f"{population}")
                    for match, rounds in _rows(population, mix, tremble, rng):
                        matches_file.write(json.dumps(match) + "\n")
                        rounds_file.writelines(json.dumps(row) + "\n" for row in rounds)
                        n_matches += 1
                        n_rounds += len(rounds)
    (run_dir / "calls.jsonl").write_text("")
    manifest = {
        "schema_version": 1,
        "run_id": "recovery",
        "game": "pd",
        "status": "completed",
        "seed": 1,
        "config_path": "synthetic",
        "config_sha256": "0" * 64,
        "config": {},
        "metric_params": {
            "collapse_k": 10,
            "collapse_threshold": 0.2,
            "bootstrap_n": 200,
            "bootstrap_seed": 1,
            "ecosystem_generations": 10,
            "moran_population": 10,
            "moran_repetitions": 10,
            "metrics": [],
        },
        "versions": {},
        "git_commit": None,
        "python": sys.version.split()[0],
        "platform": sys.platform,
        "started_at": "2025-01-01T00:00:00Z",
        "finished_at": "2025-01-01T00:00:00Z",
        "counts": {"rounds": n_rounds, "matches": n_matches},
    }
    (run_dir / "run_manifest.json").write_text(json.dumps(manifest, indent=2))
    return populations


def _percent(successes: int, trials: int) -> str:
    low, high = wilson(successes, trials)
    return f"{successes / trials:6.1%} [{low:.1%}, {high:.1%}]"


def report(run_dir: Path, populations: dict[str, tuple[str, float]]) -> None:
    """Print share error and interval coverage per mix and tremble level."""
    with duckdb.connect() as con:
        rows = con.execute(
            "select agent_name, strategy, share, share_ci_low, share_ci_high, tremble, "
            "tremble_ci_low, tremble_ci_high, n_em_steps "
            "from read_parquet(?) where not ends_with(agent_name, '_urnd')",
            [str(run_dir / "strategy_shares.parquet")],
        ).fetchall()
    by_cell: dict[tuple[str, float], list[tuple]] = {}
    for row in rows:
        by_cell.setdefault(populations[row[0]], []).append(row)
    print(
        f"{'mix':14} {'e':>5} {'pops':>4} {'share MAE':>9} {'max err':>7} "
        f"{'coverage, planted [95% Wilson]':>31} {'coverage, absent':>24} "
        f"{'tremble MAE':>11} {'tremble coverage':>24} {'EM steps':>8}"
    )
    for (mix_name, tremble), cell in sorted(by_cell.items()):
        mix = MIXES[mix_name]
        errors = [abs(share - mix.get(strategy, 0.0)) for _, strategy, share, *_ in cell]
        planted = [r for r in cell if r[1] in mix]
        absent = [r for r in cell if r[1] not in mix]
        covered_planted = sum(r[3] <= mix[r[1]] <= r[4] for r in planted)
        covered_absent = sum(r[3] <= 0.0 <= r[4] for r in absent)
        agents = {r[0]: r for r in cell}
        true_tremble = tremble
        tremble_errors = [abs(r[5] - true_tremble) for r in agents.values()]
        tremble_covered = sum(r[6] <= true_tremble <= r[7] for r in agents.values())
        steps = max(r[8] for r in cell)
        print(
            f"{mix_name:14} {tremble:5.2f} {len(agents):4d} "
            f"{sum(errors) / len(errors):9.3f} {max(errors):7.3f} "
            f"{_percent(covered_planted, len(planted)):>31} "
            f"{_percent(covered_absent, len(absent)):>24} "
            f"{sum(tremble_errors) / len(tremble_errors):11.4f} "
            f"{_percent(tremble_covered, len(agents)):>24} {steps:8d}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40, help="populations per mix and tremble")
    parser.add_argument("--tremble", type=float, nargs="+", default=[0.0, 0.05, 0.1])
    parser.add_argument("--dir", type=Path, help="where to write the run (default: a temp dir)")
    args = parser.parse_args()
    from pdbench.aggregate import aggregate_run

    with tempfile.TemporaryDirectory() as tmp:
        run_dir = (args.dir or Path(tmp)) / "sfem_recovery"
        populations = write_run(run_dir, seeds=args.seeds, trembles=args.tremble)
        aggregate_run(run_dir)
        print(
            f"{len(populations)} populations of {SIDES} match sides x {ROUNDS} rounds against "
            f"URND; mixes: {', '.join(f'{k} {v}' for k, v in MIXES.items())}"
        )
        report(run_dir, populations)


if __name__ == "__main__":
    main()
