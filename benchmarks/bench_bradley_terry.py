"""Simulation study of the arena's Bradley-Terry intervals: coverage over seeds.

Not a test. For each seed, writes pairwise verdicts drawn from planted Bradley-Terry
strengths (every pair of five players on every question, judged by a third player, 10% ties
and 10% strong verdicts; ``tests/integration/pairwise_runs.py``) into a temporary run
directory, builds ``bradley_terry.parquet`` with dbt and checks, per player, whether the 95%
bootstrap interval of its Elo-scaled strength holds the planted one (the planted
ln-strengths have mean 0, so the planted Elo is 1000 + 400 log10(e) * ln-strength). Prints
the coverage (intervals holding the planted value / intervals) and the share of seeds whose
point ranking is the planted order.

Usage::

    uv run --frozen python benchmarks/bench_bradley_terry.py --seeds 20 --questions 40
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt  # noqa: E402

from tests.integration.pairwise_runs import (  # noqa: E402
    planted_verdicts,
    scoring,
    write_pairwise_run,
)

PLANTED = {"ada": 1.2, "bob": 0.6, "cyd": 0.0, "dee": -0.5, "eve": -1.3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--bootstrap", type=int, default=200)
    args = parser.parse_args()
    covered = intervals = ordered = 0
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.seeds):
            run_dir = write_pairwise_run(
                Path(folder) / f"seed{seed}",
                planted_verdicts(PLANTED, n_questions=args.questions, seed=1000 + seed),
                scoring(bootstrap_n=args.bootstrap, seed=seed),
            )
            invoke_dbt(DbtRequest("build", run_dir=run_dir, select="+arena_bradley_terry"))
            rows = duckdb.sql(
                f"select player, elo_ci_low, elo_ci_high from '{run_dir}/bradley_terry.parquet' "
                "order by rank"
            ).fetchall()
            for player, low, high in rows:
                planted = 1000 + 400 / math.log(10) * PLANTED[player]
                covered += low <= planted <= high
                intervals += 1
            ordered += [r[0] for r in rows] == sorted(PLANTED, key=PLANTED.get, reverse=True)
            print(f"seed {seed}: covered {covered} of {intervals}", file=sys.stderr)
    print(
        f"| seeds | questions | intervals | coverage of 95% intervals | planted order |\n"
        f"| ---: | ---: | ---: | ---: | ---: |\n"
        f"| {args.seeds} | {args.questions} | {intervals} | {covered / intervals:.1%} "
        f"| {ordered / args.seeds:.0%} |"
    )


if __name__ == "__main__":
    main()
