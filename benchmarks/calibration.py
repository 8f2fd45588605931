"""Calibration of the PD's intervals and tests under planted truth (not a test: it prints).

Plays runs of classic policy pairings with execution noise through the engine and dbt, and
compares what the marts say with the truth, computed here, apart from the SQL, as the exact
Markov chain of the pairing: every policy used is memory-one, so the executed actions of a
round are a Markov chain over (A's action, B's action), and the horizon's law is known
(geometric, capped). Printed per study: hits / trials, the rate with its 95% Wilson
interval, and the target.

- pd_means: the 95% interval of the condition mean cooperation (aggregates.parquet: t, widened
  to the binomial floor) holds E[replicate cooperation rate] (target >= 0.93); also per
  pairing and agent, and the mean width of the intervals.
- pd_memory_one: the 95% Wilson interval of P(C | previous round), pooled (memory_one.parquet,
  condition rows), holds the policy's noisy P(C | that round) (target >= 0.90).
- pd_null: pairs of conditions that play the same pairing (a true difference of 0): the share
  of comparisons with p_value <= 0.05 (target <= 0.05); the interval excludes 0 on exactly
  those rows.

Each study is a function registered in STUDIES by name; another game's study (the arena's
score coverage) is one more function and one more entry.

    uv run python benchmarks/calibration.py                    # every study, moderate size
    uv run python benchmarks/calibration.py --runs 2 --copies 4 --replicates 5
    uv run python benchmarks/calibration.py --study pd_null
    uv run python benchmarks/calibration.py --dir /tmp/cal            # keep the runs, then
    uv run python benchmarks/calibration.py --dir /tmp/cal --reuse    # rebuild their marts
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import write_config

Z_975 = 1.959963984540054
NOISE = 0.05
STOP_PROB = 0.1
MAX_ROUNDS = 100
GENEROUS = 1 / 3  # GTFT's default forgiveness at payoffs 3/0/5/1
PAIRINGS = (("TFT", "TFT"), ("WSLS", "TFT"), ("GTFT", "ALLD"), ("TFT", "ALLC"))
STATES = ("CC", "CD", "DC", "DD")  # (own previous action, the other's)


@dataclass(frozen=True)
class Settings:
    runs: int
    copies: int
    replicates: tuple[int, ...]
    workdir: Path
    reuse: bool = False
    """Aggregate runs already played in ``workdir`` again instead of playing them."""


@dataclass(frozen=True)
class Result:
    study: str
    label: str
    hits: int
    trials: int
    target: str
    mean_width: float | None = None
    """The mean width of the defined intervals, when the study measures intervals."""

    def line(self) -> str:
        rate = self.hits / self.trials if self.trials else float("nan")
        low, high = wilson(self.hits, self.trials)
        width = "" if self.mean_width is None else f"  mean width {self.mean_width:.3f}"
        return (
            f"{self.study:<14} {self.label:<40} {self.hits:>5} / {self.trials:<5} "
            f"{rate:6.3f} [{low:.3f}, {high:.3f}]  target {self.target}{width}"
        )


def wilson(hits: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a binomial share."""
    if trials == 0:
        return float("nan"), float("nan")
    z2 = Z_975**2
    center = (hits + z2 / 2) / (trials + z2)
    half = Z_975 * math.sqrt(hits * (trials - hits) / trials + z2 / 4) / (trials + z2)
    return center - half, center + half


def mean_width(widths: list[float]) -> float | None:
    return sum(widths) / len(widths) if widths else None


# --- the truth: the Markov chain of a memory-one pairing with execution noise ----------------


def intended_c(policy: str, own: str, other: str) -> float:
    """P(the policy intends C) after (own, other) executed."""
    if policy == "ALLC":
        return 1.0
    if policy == "ALLD":
        return 0.0
    if policy == "TFT":
        return 1.0 if other == "C" else 0.0
    if policy == "GTFT":
        return 1.0 if other == "C" else GENEROUS
    if policy == "WSLS":  # a win (CC, DC) repeats, a loss switches: C after CC and DD
        return 1.0 if own == other else 0.0
    raise ValueError(policy)


def executed_c(policy: str, own: str | None, other: str | None) -> float:
    """P(C is played): the intention, flipped with probability NOISE."""
    wants = 1.0 if own is None else intended_c(policy, own, other)  # every policy opens with C
    if own is None and policy == "ALLD":
        wants = 0.0
    return wants * (1 - NOISE) + (1 - wants) * NOISE


def horizon_law() -> list[float]:
    """P(L = l) for l = 1 .. MAX_ROUNDS: geometric with STOP_PROB, capped."""
    law = [(1 - STOP_PROB) ** (length - 1) * STOP_PROB for length in range(1, MAX_ROUNDS)]
    return [*law, (1 - STOP_PROB) ** (MAX_ROUNDS - 1)]


def true_cooperation(policy_a: str, policy_b: str) -> dict[str, float]:
    """E[replicate mean] of cooperation_rate_a, _b and cooperation_rate (both agents)."""
    first_a, first_b = executed_c(policy_a, None, None), executed_c(policy_b, None, None)
    state = {
        a + b: (first_a if a == "C" else 1 - first_a) * (first_b if b == "C" else 1 - first_b)
        for a in "CD"
        for b in "CD"
    }
    per_round_a, per_round_b = [], []
    for _ in range(MAX_ROUNDS):
        per_round_a.append(state["CC"] + state["CD"])
        per_round_b.append(state["CC"] + state["DC"])
        following = dict.fromkeys(state, 0.0)
        for joint, weight in state.items():
            p_a = executed_c(policy_a, joint[0], joint[1])
            p_b = executed_c(policy_b, joint[1], joint[0])
            for a in "CD":
                for b in "CD":
                    following[a + b] += (
                        weight * (p_a if a == "C" else 1 - p_a) * (p_b if b == "C" else 1 - p_b)
                    )
        state = following
    truth = {"cooperation_rate_a": 0.0, "cooperation_rate_b": 0.0}
    for length, weight in enumerate(horizon_law(), start=1):
        truth["cooperation_rate_a"] += weight * sum(per_round_a[:length]) / length
        truth["cooperation_rate_b"] += weight * sum(per_round_b[:length]) / length
    truth["cooperation_rate"] = (truth["cooperation_rate_a"] + truth["cooperation_rate_b"]) / 2
    return truth


# --- playing the runs --------------------------------------------------------------------------

_PLAYED: dict[int, list[Path]] = {}


def condition_name(pairing: tuple[str, str], copy: int) -> str:
    return f"{pairing[0].lower()}_vs_{pairing[1].lower()}_{copy}"


def played_runs(settings: Settings, replicates: int) -> list[Path]:
    """``settings.runs`` runs of ``copies`` conditions per pairing, each at ``replicates``;
    copies 2j and 2j + 1 of a pairing are compared (a null difference). Played once."""
    if replicates in _PLAYED:
        return _PLAYED[replicates]
    from pdbench.aggregate import aggregate_run
    from pdbench.games import load_config
    from pdbench.pd.experiment import run_experiment

    policy = "agents/policies.yaml"
    run_dirs = []
    for run in range(settings.runs):
        folder = settings.workdir / f"r{replicates}_{run}"
        if settings.reuse and (folder / "run" / "rounds.jsonl").is_file():
            aggregate_run(folder / "run")
            run_dirs.append(folder / "run")
            print(f"  aggregated again {folder / 'run'}", file=sys.stderr)
            continue
        folder.mkdir(parents=True)
        (folder / "agents").mkdir()
        (folder / "agents" / "policies.yaml").write_text("type: policy\npolicy: TFT\n")
        conditions, comparisons = [], []
        for pairing in PAIRINGS:
            for copy in range(settings.copies):
                conditions.append(
                    {
                        "name": condition_name(pairing, copy),
                        "agent_a": {"ref": policy, "overrides": {"policy": pairing[0]}},
                        "agent_b": {"ref": policy, "overrides": {"policy": pairing[1]}},
                    }
                )
            for copy in range(0, settings.copies - 1, 2):
                comparisons.append(
                    [condition_name(pairing, copy), condition_name(pairing, copy + 1)]
                )
        config = write_config(
            folder,
            game="pd",
            run_id=f"calibration_{replicates}_{run}",
            seed=1000 + run,
            replicates=replicates,
            noise=NOISE,
            horizon={"type": "geometric", "stop_prob": STOP_PROB, "max_rounds": MAX_ROUNDS},
            conditions=conditions,
            comparisons=comparisons,
        )
        run_experiment(load_config(config), output_dir=folder / "run")
        aggregate_run(folder / "run")
        run_dirs.append(folder / "run")
        print(f"  played and aggregated {folder / 'run'}", file=sys.stderr)
    _PLAYED[replicates] = run_dirs
    return run_dirs


def rows(path: Path, sql: str) -> list[dict]:
    cursor = duckdb.execute(sql.replace("{path}", f"read_parquet('{path}')"))
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def pairing_of(condition: str) -> tuple[str, str]:
    first, _, rest = condition.partition("_vs_")
    return first.upper(), rest.rsplit("_", 1)[0].upper()


# --- the studies -------------------------------------------------------------------------------

STUDIES: dict[str, Callable[[Settings], list[Result]]] = {}


def study(name: str):
    def register(function: Callable[[Settings], list[Result]]):
        STUDIES[name] = function
        return function

    return register


@study("pd_means")
def pd_means(settings: Settings) -> list[Result]:
    """Coverage of the condition means' intervals of cooperation, overall and (indented) per
    pairing and agent: a miss names what it misses."""
    results = []
    for replicates in settings.replicates:
        tallies: dict[str, list] = {}  # label -> [hits, trials, undefined, widths]
        for run_dir in played_runs(settings, replicates):
            for row in rows(
                run_dir / "aggregates.parquet", "select * from {path} where level = 'condition'"
            ):
                pairing = pairing_of(row["condition"])
                truth = true_cooperation(*pairing)
                for metric in ("cooperation_rate_a", "cooperation_rate_b", "cooperation_rate"):
                    low, high = row[f"{metric}_ci_low"], row[f"{metric}_ci_high"]
                    who = {"cooperation_rate_a": pairing[0], "cooperation_rate_b": pairing[1]}
                    part = f"  {' vs '.join(pairing)}: {who.get(metric, 'both')}"
                    for label in (f"cooperation, {replicates} replicates", part):
                        tally = tallies.setdefault(label, [0, 0, 0, []])
                        tally[1] += 1
                        if low is None:
                            tally[2] += 1
                        else:
                            tally[0] += low <= truth[metric] <= high
                            tally[3].append(high - low)
        for label, (hits, trials, undefined, widths) in tallies.items():
            if undefined:
                label += f" ({undefined} NULL)"
            results.append(Result("pd_means", label, hits, trials, ">= 0.93", mean_width(widths)))
    return results


@study("pd_memory_one")
def pd_memory_one(settings: Settings) -> list[Result]:
    results = []
    for replicates in settings.replicates:
        hits = trials = 0
        widths = []
        for run_dir in played_runs(settings, replicates):
            for row in rows(
                run_dir / "memory_one.parquet",
                "select * from {path} where level = 'condition' and n_visits > 0",
            ):
                pairing = pairing_of(row["condition"])
                policy = pairing[0] if row["side"] == "agent_a" else pairing[1]
                state = row["previous_round"]
                truth = executed_c(policy, state[0], state[1])
                trials += 1
                hits += row["p_cooperate_ci_low"] <= truth <= row["p_cooperate_ci_high"]
                widths.append(row["p_cooperate_ci_high"] - row["p_cooperate_ci_low"])
        label = f"Wilson, pooled visits, {replicates} replicates"
        results.append(Result("pd_memory_one", label, hits, trials, ">= 0.90", mean_width(widths)))
    return results


@study("pd_null")
def pd_null(settings: Settings) -> list[Result]:
    results = []
    for replicates in settings.replicates:
        rejected = trials = disagreements = 0
        for run_dir in played_runs(settings, replicates):
            for row in rows(
                run_dir / "comparisons.parquet",
                "select * from {path} where metric in "
                "('cooperation_rate_a', 'cooperation_rate_b', 'payoff_per_round_a')",
            ):
                trials += 1
                rejected += row["p_value"] <= 0.05
                if row["ci_low"] is not None:
                    excludes = row["ci_low"] > 0 or row["ci_high"] < 0
                    disagreements += excludes != (row["p_value"] <= 0.05)
        label = f"p <= 0.05 on a null, {replicates} replicates"
        if disagreements:
            label += f" ({disagreements} interval/p disagree)"
        results.append(Result("pd_null", label, rejected, trials, "<= 0.05"))
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per replicate count")
    parser.add_argument("--copies", type=int, default=8, help="conditions per pairing per run")
    parser.add_argument("--replicates", default="5,20", help="comma-separated replicate counts")
    parser.add_argument("--study", choices=sorted(STUDIES), action="append")
    parser.add_argument(
        "--dir", type=Path, default=None, help="keep the played runs here (default: a temp dir)"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="aggregate the runs kept in --dir again instead of playing them (same seeds, "
        "same rounds: compares two versions of the marts on the same data)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            runs=args.runs,
            copies=args.copies,
            replicates=tuple(int(n) for n in args.replicates.split(",")),
            workdir=args.dir or Path(folder),
            reuse=args.reuse,
        )
        for name in args.study or list(STUDIES):
            for result in STUDIES[name](settings):
                print(result.line(), flush=True)


if __name__ == "__main__":
    main()
