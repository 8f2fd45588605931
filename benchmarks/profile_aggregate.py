"""Where `pdbench aggregate` spends its time: the seconds of every model and data test.

Not a test. For each run measured, in fresh processes as a user would start them:

- play: ``pdbench run <config> --no-aggregate`` (the baseline: the same run without metrics);
- aggregate: ``pdbench aggregate <run_dir>``, best of 3;
- the build's nodes: ``pdbench aggregate`` once more with ``PDBENCH_DBT_RUN_RESULTS`` set, so
  that the build writes each node's seconds (``pdbench.dbt_build.execute``), printed models
  and tests apart, slowest first, each with its seconds and its share of the aggregate's wall
  time; what no node accounts for (starting Python, loading the compiled project, the run's
  set-up, counting the marts' rows, the summary) is printed as "outside the nodes".

Runs: the demo (``configs/experiment.yaml``), the policy round robin
(``configs/round_robin.yaml`` with ``--replicates``, default 50: 21 pairings, about 200 rounds
each, about 210,000 rounds) and, with ``--large N``, a synthetic policy run of N rounds
(``bench_aggregate.generate_run``; no play time then). The load average is printed beside
the numbers: on a shared machine they say what this machine gave at that moment.

Usage: ``uv run python benchmarks/profile_aggregate.py [--runs demo round_robin]
[--replicates 50] [--large 10000000] [--top 20] [--dir DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

ROOT = Path(__file__).resolve().parents[1]
RUN_RESULTS_ENV = "PDBENCH_DBT_RUN_RESULTS"
"""pdbench.dbt_build.execute writes each build's node timings into this folder."""


@dataclass(frozen=True)
class Node:
    kind: str
    """``model``, ``seed`` or ``test`` (a data test)."""
    name: str
    seconds: float


def load_average() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def pdbench(*arguments: str, env: dict[str, str] | None = None) -> float:
    """Wall seconds of ``pdbench <arguments>`` in a fresh process (its output discarded)."""
    start = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).with_name("pdbench")), *arguments],
        cwd=ROOT,
        env=os.environ | (env or {}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pdbench {' '.join(arguments)} failed: {done.stderr[-2000:]}")
    return elapsed


def timed_nodes(run_dir: Path) -> tuple[list[Node], float]:
    """Each node's seconds in one ``pdbench aggregate`` of ``run_dir``, and its wall seconds."""
    with tempfile.TemporaryDirectory(prefix="pdbench-profile-") as folder:
        wall = pdbench("aggregate", str(run_dir), env={RUN_RESULTS_ENV: folder})
        nodes = [
            Node(result["unique_id"].split(".")[0], result["unique_id"].split(".")[2],
                 result["execution_time"])
            for path in sorted(Path(folder).glob("run_results-*.json"))
            for result in json.loads(path.read_text(encoding="utf-8"))["results"]
        ]  # fmt: skip
    return nodes, wall


def print_nodes(title: str, nodes: list[Node], *, wall: float, top: int) -> float:
    """The ``top`` slowest of ``nodes``; their total seconds."""
    total = sum(node.seconds for node in nodes)
    print(f"  {title}: {len(nodes)} nodes, {total:.2f} s ({total / wall:.0%} of the aggregate)")
    for node in sorted(nodes, key=lambda n: -n.seconds)[:top]:
        print(f"    {node.seconds:7.3f} s  {node.seconds / wall:5.1%}  {node.name}")
    return total


def profile(label: str, run_dir: Path, *, play: float | None, top: int) -> None:
    """Aggregate ``run_dir`` and print where the time went."""
    load = load_average()
    wall = min(pdbench("aggregate", str(run_dir)) for _ in range(3))
    nodes, timed = timed_nodes(run_dir)
    rounds = sum(1 for _ in (run_dir / "rounds.jsonl").open("rb"))
    print(
        f"\n{label}: {rounds:,} rounds in {run_dir}  (load average {load}, cpus={os.cpu_count()})"
    )
    if play is not None:
        print(f"  play (pdbench run --no-aggregate): {play:.2f} s")
    print(f"  aggregate (pdbench aggregate, best of 3): {wall:.2f} s")
    if play is not None:
        print(f"  play + aggregate / play: {(play + wall) / play:.1f}x")
    print(f"  the same, its nodes timed: {timed:.2f} s")
    in_nodes = 0.0
    for title, kinds in (("models and seeds", {"model", "seed"}), ("data tests", {"test"})):
        chosen = [node for node in nodes if node.kind in kinds]
        if chosen:
            in_nodes += print_nodes(title, chosen, wall=timed, top=top)
    outside = timed - in_nodes
    print(f"  outside the nodes (start-up, set-up, counting, summary): {outside:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", default=["demo", "round_robin"],
                        choices=["demo", "round_robin"])  # fmt: skip
    parser.add_argument("--replicates", type=int, default=50, help="of the round robin")
    parser.add_argument("--large", type=int, default=None, help="also a synthetic run of N rounds")
    parser.add_argument("--top", type=int, default=15, help="slowest nodes listed per kind")
    parser.add_argument("--dir", type=Path, default=None, help="where to write the runs")
    args = parser.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="pdbench-profile-runs-"))
    configs = {
        "demo": ("configs/experiment.yaml", []),
        "round_robin": ("configs/round_robin.yaml", ["--replicates", str(args.replicates)]),
    }
    for name in args.runs:
        config, extra = configs[name]
        run_dir = base / name
        play = pdbench(
            "run", config, "--no-aggregate", "--overwrite", "--output-dir", str(run_dir), *extra
        )
        profile(
            f"{name} ({config} {' '.join(extra)})".replace(" )", ")"),
            run_dir,
            play=play,
            top=args.top,
        )
    if args.large:
        from bench_aggregate import generate_run

        run_dir = base / f"large_{args.large}"
        generate_run(run_dir, args.large)
        profile(f"synthetic policy run of {args.large:,} rounds", run_dir, play=None, top=args.top)
    print(f"\nruns kept in {base}")


if __name__ == "__main__":
    main()
