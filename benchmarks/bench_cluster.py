"""Rounds per second of a policy round robin on a local Dask cluster of 1, 2 and 4 worker
processes, against the same run in one process (the baseline, measured in the same run); and
the cost of one chunk (scheduling it, shipping its job, committing its folder).

    uv run python benchmarks/bench_cluster.py [--rounds 1000000] [--workers 1 2 4] [--repeat 3]

Every worker is a process with one thread (``LocalCluster(processes=True)``); the cluster is
started before the clock starts. On a machine with fewer cores than workers, the extra
workers only share the cores: the numbers say what this machine gives, nothing more.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import write_config
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.run.executors import DaskExecutor

AGENTS = ["ALLC", "ALLD", "TFT", "GRIM", "WSLS", "GTFT"]
PAIRINGS = len(AGENTS) * (len(AGENTS) + 1) // 2
REPLICATES = 10


def timed_run(loaded, folder: Path, **executor) -> tuple[float, int]:
    """Seconds to play the run, and its rounds."""
    start = time.perf_counter()
    result = run_experiment(loaded, output_dir=folder / "run", overwrite=True, **executor)
    elapsed = time.perf_counter() - start
    assert result.manifest.status == "completed"
    return elapsed, result.counts["rounds"]


def on_cluster(
    loaded, folder: Path, *, workers: int, chunk_rounds: int | None
) -> tuple[float, int]:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        executor = DaskExecutor(cluster.scheduler_address)
        return timed_run(loaded, folder, executor=executor, chunk_rounds=chunk_rounds)


def chunk_overhead_s(loaded, folder: Path, *, rounds_per_match: int) -> float:
    """Seconds one chunk costs beyond its rounds, on one worker: the run cut into one chunk
    per match against the run in a single chunk."""
    matches = PAIRINGS * REPLICATES
    one, _ = on_cluster(loaded, folder, workers=1, chunk_rounds=10**12)
    many, _ = on_cluster(loaded, folder, workers=1, chunk_rounds=rounds_per_match)
    return (many - one) / (matches - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeat", type=int, default=3, help="best of N for each line")
    parser.add_argument(
        "--auto-chunks",
        action="store_true",
        help="size the chunks as pdbench does by default (a few per worker thread)",
    )
    args = parser.parse_args()
    n = max(1, args.rounds // (PAIRINGS * REPLICATES))
    chunk_rounds = None if args.auto_chunks else max(1, args.rounds // 16)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        loaded = load_config(
            write_config(
                folder,
                run_id="bench_cluster",
                seed=1,
                replicates=REPLICATES,
                horizon={"type": "fixed", "n": n},
                conditions=[],
                round_robin={"agents": AGENTS, "self_play": True},
            )
        )
        base_s, rounds = min(timed_run(loaded, folder) for _ in range(args.repeat))
        print(
            f"round robin of {len(AGENTS)} policies with self-play, {REPLICATES} replicates, "
            f"{rounds:,} rounds; chunks of "
            + ("a few per worker thread" if chunk_rounds is None else f"{chunk_rounds:,} rounds")
        )
        print(f"  one process (baseline):         {rounds / base_s:>10,.0f} rounds/s")
        print(f"  (best of {args.repeat} each; {os.cpu_count()} cores, shared with other work)")
        for workers in args.workers:
            seconds, played = min(
                on_cluster(loaded, folder, workers=workers, chunk_rounds=chunk_rounds)
                for _ in range(args.repeat)
            )
            assert played == rounds
            print(
                f"  dask, {workers} worker process(es):  {rounds / seconds:>10,.0f} rounds/s  "
                f"ratio to baseline {base_s / seconds:.2f}x"
            )
        overhead = chunk_overhead_s(loaded, folder, rounds_per_match=n)
        print(
            f"  cost of one chunk on one worker: {overhead * 1e3:.1f} ms "
            f"({PAIRINGS * REPLICATES} chunks of one match against one chunk)"
        )


if __name__ == "__main__":
    main()
