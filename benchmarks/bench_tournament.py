"""The round robin of the six classic policies (self-play included, as Axelrod's tournaments
do; 200 rounds, 50 replicates; GTFT with its default 1/3 in both): Axelrod's
``Tournament.play`` + ``ResultSet.summarise`` against pdbench end to end (``pdbench run`` in a
fresh process, then the dbt aggregation), measured in the same run.

    uv run python benchmarks/bench_tournament.py [--turns 200] [--repetitions 50]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import import_axelrod, write_config

SIX = ["ALLC", "ALLD", "TFT", "GRIM", "GTFT", "WSLS"]


def axelrod_seconds(axl, *, turns: int, repetitions: int) -> tuple[float, object]:
    players = [
        axl.Cooperator(),
        axl.Defector(),
        axl.TitForTat(),
        axl.Grudger(),
        axl.GTFT(),
        axl.WinStayLoseShift(),
    ]
    start = time.perf_counter()
    tournament = axl.Tournament(players, turns=turns, repetitions=repetitions, seed=1)
    results = tournament.play(processes=1, progress_bar=False)
    summary = results.summarise()
    return time.perf_counter() - start, summary


def pdbench_seconds(folder: Path, *, turns: int, repetitions: int) -> tuple[float, float | None]:
    path = write_config(
        folder,
        run_id="bench_tournament",
        seed=1,
        replicates=repetitions,
        horizon={"type": "fixed", "n": turns},
        round_robin={"agents": SIX, "self_play": True},
    )
    run_dir = folder / "run"
    pdbench = Path(sys.executable).parent / "pdbench"
    start = time.perf_counter()
    subprocess.run(
        [str(pdbench), "run", str(path), "--output-dir", str(run_dir), "--no-aggregate"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    engine = time.perf_counter() - start
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from pdbench.storage.aggregate import aggregate_run\n"
        "try:\n    aggregate_run(Path(sys.argv[1]))\n"
        "except NotImplementedError:\n    sys.exit(3)\n"
    )
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, str(run_dir)], check=False)
    aggregation = time.perf_counter() - start
    if done.returncode == 3:
        return engine, None
    done.check_returncode()
    return engine, aggregation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repetitions", type=int, default=50)
    args = parser.parse_args()
    axl, import_s = import_axelrod()
    theirs, summary = axelrod_seconds(axl, turns=args.turns, repetitions=args.repetitions)
    with tempfile.TemporaryDirectory() as tmp:
        engine, aggregation = pdbench_seconds(
            Path(tmp), turns=args.turns, repetitions=args.repetitions
        )
    rounds = 21 * args.repetitions * args.turns
    ours = engine + (aggregation or 0.0)
    print(
        f"round robin of 6 policies + self-play: 21 pairings x {args.repetitions} "
        f"replicates x {args.turns} rounds = {rounds:,} rounds"
    )
    print(f"  axelrod Tournament.play + summarise (in process): {theirs:7.2f} s")
    print(f"  pdbench run (fresh process, writes the run dir):  {engine:7.2f} s")
    shown = "n/a (dbt models not merged)" if aggregation is None else f"{aggregation:7.2f} s"
    print(f"  pdbench aggregation (dbt):                        {shown}")
    print(
        f"  ratio pdbench / axelrod: {ours / theirs:.2f}  (target <= 0.50)"
        + ("  [engine only]" if aggregation is None else "")
    )
    print(f"  (importing axelrod took {import_s:.1f} s, not counted)")
    print("  axelrod ranking:", ", ".join(row.Name for row in summary))


if __name__ == "__main__":
    main()
