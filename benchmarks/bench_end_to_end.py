"""`pdbench run` end to end (play and metrics) against its baselines, measured in one run.

Not a test. Two comparisons, each side in a fresh process, alternated ``--repeat`` times
(best of each reported, the ratio best against best):

- demo: ``pdbench run configs/experiment.yaml`` against the same run with ``--no-aggregate``
  (how much the metrics add to playing); with ``--worker``, also ``pdbench run`` while a
  persistent dbt worker runs (``pdbench worker start``, started before and not timed);
- round robin: the six classic policies, every pairing and self-play (21 pairings) x 50
  replicates x 200 rounds (210,000 rounds, no noise), ``pdbench run`` end to end against
  Axelrod's serial ``Tournament.play`` + ``ResultSet.summarise`` of the same tournament
  (Axelrod's import, which builds every strategy, is reported apart and not counted).

One untimed demo run first makes what a first aggregate after a change of the dbt project
makes once (dbt's saved parse, the empty marts). The load average is printed beside the
numbers: on a shared machine they say what this machine gave at that moment.

Usage: ``uv run python benchmarks/bench_end_to_end.py [--runs demo round_robin] [--worker]
[--repeat 2] [--replicates 50] [--turns 200]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import write_config
from pdbench.storage.worker_socket import PRIVATE_ENV

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ["ALLC", "ALLD", "TFT", "GRIM", "GTFT", "WSLS"]
_AXELROD = """
import sys, time, warnings
warnings.simplefilter("ignore")
started = time.perf_counter()
import axelrod as axl
imported = time.perf_counter() - started
turns, repetitions = int(sys.argv[1]), int(sys.argv[2])
players = [axl.Cooperator(), axl.Defector(), axl.TitForTat(), axl.Grudger(), axl.GTFT(),
           axl.WinStayLoseShift()]
started = time.perf_counter()
tournament = axl.Tournament(players, turns=turns, repetitions=repetitions, seed=1)
results = tournament.play(processes=1, progress_bar=False)
results.summarise()
print(time.perf_counter() - started, imported)
"""


def pdbench(*arguments: str, private: bool = True) -> float:
    """Wall seconds of ``pdbench <arguments>`` in a fresh process (with ``private``, one that
    starts a dbt worker of its own, whether a persistent one runs or not)."""
    start = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).with_name("pdbench")), *arguments],
        cwd=ROOT,
        env=os.environ | {PRIVATE_ENV: "1" if private else "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pdbench {' '.join(arguments)} failed: {done.stderr[-2000:]}")
    return elapsed


def axelrod(turns: int, repetitions: int) -> tuple[float, float]:
    """Seconds of Axelrod's play + summarise, and of its import, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", _AXELROD, str(turns), str(repetitions)],
        capture_output=True,
        text=True,
        check=True,
    )
    play, imported = (float(value) for value in done.stdout.split())
    return play, imported


def load() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def demo(folder: Path, repeat: int, *, worker: bool) -> None:
    run_dir = str(folder / "demo")
    common = ["run", "configs/experiment.yaml", "--overwrite", "--output-dir", run_dir]
    plain, full, served = [], [], []
    if worker:
        pdbench("worker", "start")  # not timed: started once, it serves every run after
    try:
        for _ in range(repeat):
            plain.append(pdbench(*common, "--no-aggregate"))
            full.append(pdbench(*common))
            if worker:
                served.append(pdbench(*common, private=False))
        if worker:  # each timed run through the worker is one request: none fell back
            status = subprocess.run(
                [str(Path(sys.executable).with_name("pdbench")), "worker", "status"],
                cwd=ROOT,
                capture_output=True,
                text=True,
            ).stdout
            served_line = next(line for line in status.splitlines() if "served" in line)
            print(f"persistent worker: {served_line.split('; ')[1]}", flush=True)
    finally:
        if worker:
            pdbench("worker", "stop")
    print(
        f"demo (203 rounds): run --no-aggregate {min(plain):.2f} s, run {min(full):.2f} s, "
        f"ratio {min(full) / min(plain):.2f}x (best of {repeat}; load average {load()})",
        flush=True,
    )
    if worker:
        print(
            f"demo with a persistent dbt worker running: run {min(served):.2f} s, ratio "
            f"{min(served) / min(plain):.2f}x against run --no-aggregate, "
            f"{min(full) / min(served):.2f}x faster than without it (best of {repeat}; "
            f"load average {load()})",
            flush=True,
        )


def round_robin(folder: Path, repeat: int, *, replicates: int, turns: int) -> None:
    config = write_config(
        folder,
        run_id="bench_round_robin",
        seed=1,
        replicates=replicates,
        horizon={"type": "fixed", "n": turns},
        conditions=[],
        round_robin={"agents": POLICIES, "self_play": True},
    )
    common = ["run", str(config), "--overwrite", "--output-dir", str(folder / "round_robin")]
    ours, plays, theirs, imports = [], [], [], []
    for _ in range(repeat):
        plays.append(pdbench(*common, "--no-aggregate"))
        ours.append(pdbench(*common))
        axelrod_s, import_s = axelrod(turns, replicates)
        theirs.append(axelrod_s)
        imports.append(import_s)
    rounds = 21 * replicates * turns
    print(
        f"round robin ({rounds:,} rounds): pdbench run {min(ours):.2f} s (of which play, "
        f"--no-aggregate: {min(plays):.2f} s); Axelrod serial play + summarise "
        f"{min(theirs):.2f} s (+ import {min(imports):.2f} s); pdbench / Axelrod "
        f"{min(ours) / min(theirs):.2f}x, play alone {min(plays) / min(theirs):.2f}x "
        f"(best of {repeat}; load average {load()})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", default=["demo", "round_robin"],
                        choices=["demo", "round_robin"])  # fmt: skip
    parser.add_argument("--worker", action="store_true",
                        help="also time the demo with a persistent dbt worker running")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--replicates", type=int, default=50)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    print(f"cpus={os.cpu_count()}  load average {load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="pdbench-e2e-") as tmp:
        # once, not timed: dbt's saved parse and the empty marts of this project (kept in the
        # user's cache), which a first aggregate after a change of the dbt project makes
        pdbench("run", "configs/experiment.yaml", "--overwrite", "--output-dir", f"{tmp}/warm")
        if "demo" in args.runs:
            demo(Path(tmp), max(1, args.repeat), worker=args.worker)
        if "round_robin" in args.runs:
            round_robin(
                Path(tmp), max(1, args.repeat), replicates=args.replicates, turns=args.turns
            )


if __name__ == "__main__":
    main()
