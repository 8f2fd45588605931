"""Where `pdbench aggregate` spends its time: dbt's own timing of every model and test.

Not a test. For each run measured, in fresh processes as a user would start them:

- play: ``pdbench run <config> --no-aggregate`` (the baseline: the same run without metrics);
- aggregate: ``pdbench aggregate <run_dir>``, with ``PDBENCH_DBT_RUN_RESULTS`` set so that the
  dbt worker writes dbt's ``run_results.json``; its node timings are printed, models and
  tests apart, slowest first, each with its seconds and its share of the aggregate's wall
  time; what no node accounts for (starting Python and dbt, parsing, hooks) is printed as
  "outside the nodes", and split into stages by the times the dbt worker writes beside dbt's
  results (``stages-<n>.json``): pdbench's start-up until the worker runs, importing dbt,
  dbt's set-up for the build (reading the saved parse, selecting; or the parse ahead, when
  the worker had time for it), the build itself (dbt's elapsed: nodes and hooks), and what
  pdbench does after dbt answered (empty marts, counts, the summary, the process's end);
- aggregate replayed: ``pdbench aggregate`` as a user runs it, where a build made before on
  the same project is replayed without dbt (``pdbench.storage.dbt_plan``), best of 3.

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


@dataclass(frozen=True)
class Node:
    kind: str
    """``model``, ``test`` (data test) or ``unit_test``."""
    name: str
    seconds: float
    status: str


def load_average() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def pdbench(*arguments: str, env: dict[str, str] | None = None) -> float:
    """Wall seconds of ``pdbench <arguments>`` in a fresh process (its output discarded)."""
    start = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).with_name("pdbench")), *arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pdbench {' '.join(arguments)} failed: {done.stderr.strip()[-2000:]}")
    return elapsed


def read_nodes(folder: Path) -> tuple[list[Node], float]:
    """The nodes of every ``run_results-*.json`` in ``folder``, and dbt's elapsed seconds."""
    nodes: list[Node] = []
    elapsed = 0.0
    for path in sorted(folder.glob("run_results-*.json")):
        results = json.loads(path.read_text(encoding="utf-8"))
        elapsed += float(results.get("elapsed_time") or 0.0)
        for result in results["results"]:
            # model.<project>.<name>, test.<project>.<name>.<hash>,
            # unit_test.<project>.<model>.<name>
            kind, _, *rest = result["unique_id"].split(".")
            nodes.append(
                Node(
                    kind=kind,
                    name=".".join(rest[:-1])
                    if kind == "test" and len(rest) > 1
                    else ".".join(rest),
                    seconds=float(result["execution_time"]),
                    status=str(result["status"]),
                )
            )
    return nodes, elapsed


def print_nodes(title: str, nodes: list[Node], *, wall: float, top: int) -> float:
    """Print the ``top`` slowest ``nodes`` with their share of ``wall``; return their total."""
    total = sum(node.seconds for node in nodes)
    print(f"  {title}: {len(nodes)} nodes, {total:.2f} s ({total / wall:.0%} of aggregate)")
    ranked = sorted(nodes, key=lambda node: node.seconds, reverse=True)
    for node in ranked[:top]:
        print(f"    {node.seconds:7.3f} s  {node.seconds / wall:5.1%}  {node.name}")
    rest = ranked[top:]
    if rest:
        rest_total = sum(node.seconds for node in rest)
        print(f"    {rest_total:7.3f} s  {rest_total / wall:5.1%}  ({len(rest)} more)")
    return total


def read_stages(folder: Path) -> list[dict[str, float]]:
    """The stage times of every invocation the worker answered (``stages-<n>.json``)."""
    paths = sorted(folder.glob("stages-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    return [json.loads(path.read_text(encoding="utf-8")) for path in paths]


def print_stages(
    stages: list[dict[str, float]], *, started: float, ended: float, dbt_elapsed: float
) -> None:
    """Print the wall seconds of each stage of one aggregate (see the module)."""
    if not stages:
        return
    first, last = stages[0], stages[-1]
    imported = first.get("dbt_imported", first["worker_started"])
    ready = first.get("parsed_ahead", imported)
    rows = [
        ("pdbench start-up until the dbt worker runs", first["worker_started"] - started),
        ("importing dbt", imported - first["worker_started"]),
        ("parsing ahead of the request", ready - imported),
        ("waiting for the request", max(0.0, first["request_received"] - ready)),
        (
            "dbt set-up of the build (saved parse, selection), outside its elapsed",
            sum(s["answered"] - s["request_received"] for s in stages) - dbt_elapsed,
        ),
        ("dbt's elapsed (nodes, hooks)", dbt_elapsed),
        ("after dbt answered (empty marts, counts, summary, exit)", ended - last["answered"]),
    ]
    print(f"  stages ({len(stages)} dbt invocation(s)):")
    for title, seconds in rows:
        print(f"    {seconds:7.2f} s  {title}")


def profile(label: str, run_dir: Path, *, play: float | None, top: int) -> None:
    """Aggregate ``run_dir`` once and print where the time went."""
    with tempfile.TemporaryDirectory(prefix="pdbench-profile-") as results_dir:
        env = dict(os.environ, **{RUN_RESULTS_ENV: results_dir})
        load = load_average()
        started = time.time()
        wall = pdbench("aggregate", str(run_dir), env=env)
        ended = time.time()
        nodes, dbt_elapsed = read_nodes(Path(results_dir))
        stages = read_stages(Path(results_dir))
    rounds = sum(1 for _ in (run_dir / "rounds.jsonl").open("rb"))
    print(
        f"\n{label}: {rounds:,} rounds in {run_dir}  (load average {load}, cpus={os.cpu_count()})"
    )
    if play is not None:
        print(f"  play (pdbench run --no-aggregate): {play:.2f} s")
    print(f"  aggregate (pdbench aggregate): {wall:.2f} s; dbt's own elapsed {dbt_elapsed:.2f} s")
    if play is not None:
        print(f"  play + aggregate / play: {(play + wall) / play:.1f}x")
    in_nodes = 0.0
    for title, kinds in (
        ("models", {"model"}),
        ("data tests", {"test"}),
        ("unit tests", {"unit_test"}),
    ):
        chosen = [node for node in nodes if node.kind in kinds]
        if chosen:
            in_nodes += print_nodes(title, chosen, wall=wall, top=top)
    outside = wall - in_nodes
    share = f"{outside / wall:.0%}"
    print(f"  outside the nodes (start-up, parse, hooks, reading back): {outside:.2f} s ({share})")
    print_stages(stages, started=started, ended=ended, dbt_elapsed=dbt_elapsed)
    # without the results folder a build made before is replayed (pdbench.storage.dbt_plan):
    # the first of these keeps the plan, if no earlier aggregate kept it, the others replay it
    replayed = min(pdbench("aggregate", str(run_dir)) for _ in range(3))
    line = f"  aggregate replayed (dbt's statements sent again, without dbt): {replayed:.2f} s"
    if play is not None:
        line += f"; play + aggregate / play: {(play + replayed) / play:.1f}x"
    print(line)


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
