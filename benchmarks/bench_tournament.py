"""The round robin of the six classic policies (self-play included, as Axelrod's tournaments
do; 200 rounds, 50 replicates; GTFT with its default 1/3 in both): Axelrod's
``Tournament.play`` + ``ResultSet.summarise`` against pdbench end to end (``pdbench run`` in a
fresh process: play, then the dbt aggregation), measured in the same run, alternately,
``--repeat`` times; the ratio is best against best. The first pdbench run starts with an empty
user cache, so it also pays for parsing the dbt project, and is reported on its own.

    uv run python benchmarks/bench_tournament.py [--turns 200] [--repetitions 50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
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


def pdbench_seconds(folder: Path, config: Path, *, aggregate: bool, cache_home: Path) -> float:
    """Wall time of ``pdbench run`` in a fresh process (with its dbt aggregation or without),
    with ``cache_home`` as the user's cache folder (where dbt's parse is kept)."""
    pdbench = Path(sys.executable).parent / "pdbench"
    run_dir = folder / ("run" if aggregate else "run_no_aggregate")
    command = [str(pdbench), "run", str(config), "--output-dir", str(run_dir), "--overwrite"]
    if not aggregate:
        command.append("--no-aggregate")
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    start = time.perf_counter()
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pdbench run failed ({done.returncode}):\n{done.stderr}")
    if aggregate and not (run_dir / "tournament_standings.parquet").is_file():
        raise SystemExit(f"pdbench run wrote no tournament_standings.parquet in {run_dir}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repetitions", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3, help="measurements of each (>= 1)")
    args = parser.parse_args()
    axl, import_s = import_axelrod()
    load = " / ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"cpus={os.cpu_count()}  load average {load}  repeat={args.repeat}")
    theirs, ours, play = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = write_config(
            folder,
            run_id="bench_tournament",
            seed=1,
            replicates=args.repetitions,
            horizon={"type": "fixed", "n": args.turns},
            round_robin={"agents": SIX, "self_play": True},
        )
        cache_home = folder / "cache"
        # the first run on a machine parses the dbt project; later runs reuse that parse
        cold = pdbench_seconds(folder, config, aggregate=True, cache_home=cache_home)
        for _ in range(max(1, args.repeat)):
            seconds, summary = axelrod_seconds(axl, turns=args.turns, repetitions=args.repetitions)
            theirs.append(seconds)
            ours.append(pdbench_seconds(folder, config, aggregate=True, cache_home=cache_home))
            play.append(pdbench_seconds(folder, config, aggregate=False, cache_home=cache_home))
    rounds = 21 * args.repetitions * args.turns
    best_theirs, best_ours = min(theirs), min(ours)

    def shown(values: list[float]) -> str:
        return f"{min(values):7.2f} s  (median {statistics.median(values):.2f})"

    print(
        f"round robin of 6 policies + self-play: 21 pairings x {args.repetitions} "
        f"replicates x {args.turns} rounds = {rounds:,} rounds; best of {len(ours)}"
    )
    print(f"  axelrod Tournament.play + summarise (in process): {shown(theirs)}")
    print(f"  pdbench run, end to end with dbt (fresh process): {shown(ours)}")
    print(f"    of which playing (pdbench run --no-aggregate):  {shown(play)}")
    print(f"  pdbench run, first on the machine (dbt parses):   {cold:7.2f} s")
    print(f"  ratio pdbench / axelrod: {best_ours / best_theirs:.2f}  (target <= 0.50)")
    print(f"  ratio on the first run:  {cold / best_theirs:.2f}")
    print(f"  (importing axelrod took {import_s:.1f} s, not counted)")
    print("  axelrod ranking:", ", ".join(row.Name for row in summary))


if __name__ == "__main__":
    main()
