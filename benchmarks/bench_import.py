"""Seconds to import game histories of Fontana et al.'s shape (``pdbench import fontana``,
without the metrics) against a baseline measured in the same run: reading the same files
with ``json.load`` and writing one plain ``json.dumps`` line per round (the same keys, no
checks, no manifest, no staging). The data is synthetic: models x 11 alphas x games x rounds.

    uv run python benchmarks/bench_import.py [--models 3] [--games 100] [--rounds 100]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from pdbench.imports import ImportOptions
from pdbench.imports.fontana import run as import_fontana
from pdbench.pd.records import RoundRecord
from pdbench.storage.schema import line_keys

ALPHAS = 11


def write_histories(root: Path, *, models: int, games: int, rounds: int) -> list[Path]:
    """``models`` run folders of 11 alphas x ``games`` histories of ``rounds`` rounds."""
    rng = random.Random(7)
    folders = []
    for model in range(models):
        folder = root / f"model{model}_URNDx_ws10"
        for tenths in range(ALPHAS):
            histories = folder / f"URND{tenths:02d}" / "game_histories"
            histories.mkdir(parents=True)
            for k in range(1, games + 1):
                a = [int(rng.random() < 0.5) for _ in range(rounds)]
                b = [int(rng.random() < tenths / 10) for _ in range(rounds)]
                (histories / f"game_history_{k}.json").write_text(
                    json.dumps({"A": a, "B": b}, indent=4)
                )
        folders.append(folder)
    return folders


def baseline(folders: list[Path], out: Path) -> float:
    """Read every history with json.load, write a plain line per round with json.dumps."""
    keys = line_keys(RoundRecord)
    start = time.perf_counter()
    with out.open("w") as handle:
        for path in sorted(p for f in folders for p in f.rglob("game_history_*.json")):
            history = json.loads(path.read_bytes())
            for index, (a, b) in enumerate(zip(history["A"], history["B"], strict=True)):
                row = dict.fromkeys(keys)
                row.update(round_index=index + 1, agent_a_action=a, agent_b_action=b)
                handle.write(json.dumps(row) + "\n")
    return time.perf_counter() - start


def pdbench_import(folders: list[Path], out: Path) -> float:
    start = time.perf_counter()
    summary = import_fontana(folders, out, ImportOptions())
    elapsed = time.perf_counter() - start
    assert summary.counts["matches"] == len(folders) * ALPHAS * GAMES
    return elapsed


GAMES = 100


def main() -> None:
    global GAMES
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=3)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    GAMES = args.games
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = write_histories(root, models=args.models, games=args.games, rounds=args.rounds)
        n_games = args.models * ALPHAS * args.games
        n_rounds = n_games * args.rounds
        plain = baseline(folders, root / "plain.jsonl")
        ours = pdbench_import(folders, root / "run")
    print(f"{n_games} games x {args.rounds} rounds = {n_rounds} rounds")
    print(f"baseline (json.load + one json.dumps line per round): {plain:.2f} s")
    print(f"pdbench import fontana (checked, staged, manifest):   {ours:.2f} s")
    print(f"ratio: {ours / plain:.2f} x the baseline's time ({n_rounds / ours:,.0f} rounds/s)")


if __name__ == "__main__":
    main()
