"""`pdbench run` end to end (play and metrics) against its baselines, measured in one run.

Not a test. Two comparisons, each side in a fresh process, alternated ``--repeat`` times
(best of each reported, the ratio best against best):

- demo: ``pdbench run configs/experiment.yaml`` against the same run with ``--no-aggregate``
  (how much the metrics add to playing), and once, first, with a user cache that holds no
  compiled dbt project (the first run after a change of the project, which compiles it);
- round robin: the six classic policies, every pairing and self-play (21 pairings) x 50
  replicates x 200 rounds (210,000 rounds, no noise), ``pdbench run`` end to end against
  Axelrod's serial ``Tournament.play`` + ``ResultSet.summarise`` of the same tournament
  (Axelrod's import, which builds every strategy, is reported apart and not counted).

One untimed demo run first makes what a first aggregate after a change of the dbt project
makes once (the compiled project). The load average is printed beside the
numbers: on a shared machine they say what this machine gave at that moment.

Usage: ``uv run python benchmarks/bench_end_to_end.py [--runs demo round_robin]
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


def pdbench(*arguments: str, env: dict[str, str] | None = None) -> float:
    """Wall seconds of ``pdbench <arguments>`` in a fresh process."""
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


def demo(folder: Path, repeat: int) -> None:
    run_dir = str(folder / "demo")
    common = ["run", "configs/experiment.yaml", "--overwrite", "--output-dir", run_dir]
    # cold: a user cache with no compiled project, as after a change of the dbt project
    cold = pdbench(*common, env={"XDG_CACHE_HOME": str(folder / "cold_cache")})
    plain, full = [], []
    for _ in range(repeat):
        plain.append(pdbench(*common, "--no-aggregate"))
        full.append(pdbench(*common))
    print(
        f"demo (203 rounds): run --no-aggregate {min(plain):.2f} s, run {min(full):.2f} s, "
        f"ratio {min(full) / min(plain):.2f}x (best of {repeat}; load average {load()}); "
        f"first run after a change of the dbt project (compiles it) {cold:.2f} s, "
        f"ratio {cold / min(plain):.2f}x",
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
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--replicates", type=int, default=50)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    print(f"cpus={os.cpu_count()}  load average {load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="pdbench-e2e-") as tmp:
        # once, not timed: the compiled project (kept in the user's cache), which a first
        # aggregate after a change of the dbt project makes
        pdbench("run", "configs/experiment.yaml", "--overwrite", "--output-dir", f"{tmp}/warm")
        if "demo" in args.runs:
            demo(Path(tmp), max(1, args.repeat))
        if "round_robin" in args.runs:
            round_robin(
                Path(tmp), max(1, args.repeat), replicates=args.replicates, turns=args.turns
            )


if __name__ == "__main__":
    main()
