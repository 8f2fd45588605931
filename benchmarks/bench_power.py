"""The power planner against real runs (not a test: it prints; run on demand).

For configs/power_urnd.yaml (URND 0.6 and URND 0.5 against ALLD over 20 rounds, one compared
pair, primary family cooperation_rate_a): asks `pdbench power` for the replicates that detect
0.10 (and 0.05), then plays studies of that size through the engine and measures them with
the project's SQL, and counts how many find the difference: URND 0.5 + D against URND 0.5,
a true difference of D (the planner's pool is the config's own 0.6 and 0.5, whose paired
differences have about the same SD).

A study is a block of N consecutive replicates of one large run (played once with
seeds x N replicates, then measured by one `dbt build`): the blocks are disjoint, so they are
independent studies of N replicates each, as different seeds would be. Each block's
cooperation_rate_a values (aggregates.parquet, replicate rows) go through the macro
`paired_sign_flip_test` in DuckDB (the same statements int_pd_paired_differences runs), with
the run's number of random flips; the family holds one test, so its BH p is its p. A block
finds the difference when p <= 0.05 and the mean is positive (urnd60 minus urnd50). The null
runs the same with both agents at 0.5 (a true difference of 0): the share of blocks with
p <= 0.05 either way.

    uv run python benchmarks/bench_power.py                   # 0.10, 100 seeds, and the null
    uv run python benchmarks/bench_power.py --effect 0.05 --seeds 60 --no-null
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "configs" / "power_urnd.yaml"


def wilson(hits: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of hits / n."""
    z = 1.959963984540054
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def planned(config: Path, effect: float, simulations: int) -> tuple[int, float]:
    """`pdbench power`'s N for ``effect``, and the seconds it took."""
    from pdbench.games import load_config
    from pdbench.pd.power import pd_power_lines
    from pdbench.power.text import PowerRequest

    start = time.perf_counter()
    lines = pd_power_lines(
        load_config(config),
        PowerRequest(effect=effect, metric="cooperation_rate_a", simulations=simulations),
        pilot=None,
        on_line=lambda line: None,
    )
    (needed,) = [int(x.split(": ")[1]) for x in lines if x.startswith("replicates needed: ")]
    return needed, time.perf_counter() - start


def played_blocks(config: Path, *, replicates: int, folder: Path) -> Path:
    """Play ``replicates`` replicates of ``config`` and aggregate them; the run directory."""
    from pdbench.aggregate import aggregate_run
    from pdbench.games import GAMES, load_config
    from pdbench.pd.experiment import run_experiment

    loaded = GAMES["pd"].with_replicates(load_config(config), replicates)
    run_dir = folder / config.stem
    run_experiment(loaded, output_dir=run_dir, use_cache=False)
    aggregate_run(run_dir)
    return run_dir


def block_tests(run_dir: Path, *, size: int, seeds: int, n_tests: int) -> list[tuple[float, float]]:
    """(mean difference, p) of every block of ``size`` replicates, by the SQL macro."""
    from pdbench.pd.paired_query import _statistics
    from pdbench.power.sign_flip import flip_signs, random_flip_count, uses_normal_limit

    aggregates = run_dir / "aggregates.parquet"
    normal = uses_normal_limit(size, n_tests=n_tests)
    signs, exact = flip_signs(
        size,
        n_random=random_flip_count(bootstrap_n=1000, n_tests=n_tests),
        rng=np.random.default_rng(2026),
    )
    flip_index, slot_index = np.indices(signs.shape)
    signs_table = pd.DataFrame(
        {
            "sample_size": size,
            "flip": flip_index.ravel(),
            "slot": slot_index.ravel() + 1,
            "sign": signs.ravel().astype(int),
            "is_exact": exact,
        }
    )
    with duckdb.connect() as con:
        con.execute(_statistics())
        con.register("signs_frame", signs_table)
        con.execute("create table signs as select * from signs_frame")
        con.execute(
            f"""
            create table paired_rows as
            with values_of as (
                select condition, replicate, cooperation_rate_a as value
                from read_parquet('{aggregates}') where level = 'replicate'
            )
            select
                'block ' || lpad((first.replicate // {size})::varchar, 4, '0') as condition_1,
                'x' as condition_2,
                'cooperation_rate_a' as metric,
                first.replicate,
                first.replicate % {size} + 1 as pair_position,
                {size} as n_common,
                first.value - second.value as difference,
                {str(normal).lower()} as is_normal_limit
            from values_of as first
            inner join values_of as second
                on first.replicate = second.replicate
            where
                first.condition = 'urnd60_vs_alld' and second.condition = 'urnd50_vs_alld'
                and first.replicate < {size * seeds}
            """
        )
        rows = con.execute(
            "select mean_difference, p_value from paired_sign_flip_test(paired_rows, signs) "
            "order by condition_1"
        ).fetchall()
    return [(float(mean), float(p)) for mean, p in rows]


def study(config: Path, *, effect: float, size: int, seeds: int, null: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        run_dir = played_blocks(config, replicates=size * seeds, folder=Path(folder))
        played = time.perf_counter() - start
        start = time.perf_counter()
        results = block_tests(run_dir, size=size, seeds=seeds, n_tests=28)
        tested = time.perf_counter() - start
    if null:
        hits = sum(p <= 0.05 for _, p in results)
        what = "null (both URND 0.5): share of studies with p <= 0.05 (target 0.05)"
    else:
        hits = sum(p <= 0.05 and mean > 0 for mean, p in results)
        what = f"planted difference {effect:g}: share of studies that find it (target 0.80)"
    low, high = wilson(hits, len(results))
    print(
        f"{what}: {hits}/{len(results)} = {hits / len(results):.3f} "
        f"[{low:.3f}, {high:.3f}] 95% Wilson interval; {size} replicates per study; played "
        f"and measured in {played:.1f} s, tested in {tested:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--effect", type=float, default=0.10)
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--no-null", action="store_true")
    args = parser.parse_args()
    needed, seconds = planned(CONFIG, args.effect, args.simulations)
    print(f"pdbench power: replicates needed for {args.effect:g}: {needed} ({seconds:.1f} s)")
    with tempfile.TemporaryDirectory() as folder:
        planted = _variant(Path(folder), "power_planted", first=0.5 + args.effect)
        study(planted, effect=args.effect, size=needed, seeds=args.seeds, null=False)
        if not args.no_null:
            null = _variant(Path(folder), "power_null", first=0.5)
            study(null, effect=0.0, size=needed, seeds=args.seeds, null=True)


def _variant(folder: Path, run_id: str, *, first: float) -> Path:
    """configs/power_urnd.yaml with the first agent cooperating with probability ``first``
    (the second stays at 0.5): a true difference of ``first - 0.5``."""
    text = CONFIG.read_text(encoding="utf-8").replace("coop_prob: 0.6", f"coop_prob: {first:g}")
    path = folder / f"{run_id}.yaml"
    path.write_text(text.replace("run_id: power_urnd", f"run_id: {run_id}"), encoding="utf-8")
    return path
    sys.stdout.flush()


if __name__ == "__main__":
    main()
