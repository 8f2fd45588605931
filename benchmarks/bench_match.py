"""Rounds per second of one long match: pdbench's engine (writing rounds.jsonl) against
Axelrod's ``Match.play`` (in memory, writes nothing), TFT vs WSLS, measured in the same run.

    uv run python benchmarks/bench_match.py [--rounds 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import import_axelrod, write_config
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment


def pdbench_rate(rounds: int, folder: Path) -> float:
    path = write_config(
        folder,
        run_id="bench_match",
        seed=1,
        horizon={"type": "fixed", "n": rounds},
        conditions=[
            {
                "name": "tft_vs_wsls",
                "agent_a": {"type": "policy", "policy": "TFT"},
                "agent_b": {"type": "policy", "policy": "WSLS"},
            }
        ],
    )
    loaded = load_config(path)
    start = time.perf_counter()
    result = run_experiment(loaded, output_dir=folder / "run", overwrite=True)
    elapsed = time.perf_counter() - start
    assert result.counts["rounds"] == rounds
    return rounds / elapsed


def axelrod_rate(axl, rounds: int) -> float:
    match = axl.Match((axl.TitForTat(), axl.WinStayLoseShift()), turns=rounds)
    start = time.perf_counter()
    played = match.play()
    elapsed = time.perf_counter() - start
    assert len(played) == rounds
    return rounds / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N for each side")
    args = parser.parse_args()
    axl, import_s = import_axelrod()
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            ours.append(pdbench_rate(args.rounds, Path(tmp)))
            theirs.append(axelrod_rate(axl, args.rounds))
        size = (Path(tmp) / "run" / "rounds.jsonl").stat().st_size
    best_ours, best_theirs = max(ours), max(theirs)
    print(f"single match, TFT vs WSLS, {args.rounds:,} rounds, best of {args.repeat}")
    print(
        f"  pdbench engine (writes rounds.jsonl, {size / 1e6:,.0f} MB): "
        f"{best_ours:>10,.0f} rounds/s  (all: {', '.join(f'{r:,.0f}' for r in ours)})"
    )
    print(
        f"  axelrod Match.play (in memory):      {best_theirs:>10,.0f} rounds/s  "
        f"(all: {', '.join(f'{r:,.0f}' for r in theirs)})"
    )
    print(f"  ratio pdbench / axelrod: {best_ours / best_theirs:.2f}x  (target >= 1.0x)")
    print(f"  (importing axelrod took {import_s:.1f} s, not counted)")


if __name__ == "__main__":
    main()
