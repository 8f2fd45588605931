"""Calibration study of the arena's score intervals (``leaderboard.ci_low`` / ``ci_high``).

Not a test. Plays K seeded tournaments of the same planted mock players through the real
engine (``pdbench.games.load_config``, ``pdbench.arena.runner.run_arena``) into a temporary
folder, builds the leaderboard with dbt (``+arena_leaderboard``, no data tests) and checks, per
tournament and player, whether the 95% score interval covers the truth.

The truth is the player's expected score in a tournament of this field: every player's
score is the same linear function of its answers' judgements in every tournament (each
question answered by every player, each answer judged by every other judge), so its mean
over tournaments estimates it without bias. Tournament k is compared with the mean of the
other K - 1 tournaments (leave one out, so that its own score does not pull the truth
towards itself); that mean carries an error of about sd / sqrt(K - 1), small against the
interval's half-width at the K used here.

Printed: K, players, coverage with a 95% Wilson interval (the (tournament, player) checks are
counted as independent; within a tournament they are slightly correlated, so the interval is
a little optimistic), the mean interval width, the spread of each player's score across
tournaments against the spread its intervals imply (width / 3.92), and the target
[0.93, 0.97].

Usage::

    uv run --frozen python benchmarks/calibration_arena.py --tournaments 100 \\
        [--questions 6] [--bootstrap 400] [--normalization shift] [--first-seed 5000]
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import yaml

REPO = Path(__file__).resolve().parents[1]

PLAYERS = {
    "atlas": {"answer_skill": 0.9, "judge_leniency": 0.0, "judge_noise": 0.5},
    "borealis": {"answer_skill": 0.75, "judge_leniency": -0.5, "judge_noise": 0.5},
    "cirrus": {"answer_skill": 0.6, "judge_leniency": 2.0, "judge_noise": 0.5},
    "dynamo": {"answer_skill": 0.45, "judge_leniency": 0.0, "judge_noise": 0.5},
    "ember": {"answer_skill": 0.3, "judge_leniency": -1.0, "judge_noise": 1.5},
}
"""The demo's five players (``configs/arena.yaml``) without its favour, leaks and tricks."""

TARGET = (0.93, 0.97)
Z95 = 1.959964


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion ``hits / n``."""
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def arena_file(folder: Path, *, seed: int, args: argparse.Namespace) -> Path:
    players = [
        {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": traits}}
        for name, traits in PLAYERS.items()
    ]
    arena = {
        "game": "arena",
        "run_id": f"calibration-{seed}",
        "seed": seed,
        "dev": args.questions <= 10,
        "questions_per_player": args.questions,
        "categories": ["math", "logic", "ethics", "science", "language"],
        "question_filter": {"kind": "none"},
        "normalization": args.normalization,
        "bootstrap": {"n": args.bootstrap},
        "anomaly": {"permutations": 20},
        "store_prompts": False,
        "players": players,
    }
    path = folder / f"{arena['run_id']}.yaml"
    path.write_text(yaml.safe_dump(arena, sort_keys=False), encoding="utf-8")
    return path


def play_one(folder: Path, *, seed: int, args: argparse.Namespace) -> dict[str, tuple]:
    """player -> (score, ci_low, ci_high) of one tournament."""
    from pdbench.arena.runner import run_arena
    from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
    from pdbench.games import load_config

    path = arena_file(folder, seed=seed, args=args)
    run_dir = folder / "runs" / path.stem
    run_arena(load_config(path), output_dir=run_dir, use_cache=False)
    invoke_dbt(DbtRequest("run", run_dir=run_dir, select="+arena_leaderboard"))
    rows = duckdb.sql(
        f"select player, score, ci_low, ci_high from '{run_dir}/leaderboard.parquet' "
        "where player is not null and ci_low is not null"
    ).fetchall()
    shutil.rmtree(run_dir)
    return {player: (score, low, high) for player, score, low, high in rows}


def report(results: list[dict[str, tuple]], args: argparse.Namespace) -> None:
    players = sorted({p for r in results for p in r})
    hits = checks = 0
    widths: list[float] = []
    lines = []
    for player in players:
        scores = [r[player][0] for r in results if player in r]
        total = sum(scores)
        player_widths = []
        for r in results:
            if player not in r or len(scores) < 2:
                continue
            score, low, high = r[player]
            truth = (total - score) / (len(scores) - 1)
            hits += low <= truth <= high
            checks += 1
            player_widths.append(high - low)
        widths += player_widths
        spread = statistics.stdev(scores) if len(scores) > 1 else float("nan")
        implied = statistics.mean(player_widths) / (2 * Z95) if player_widths else float("nan")
        lines.append(f"| {player} | {statistics.mean(scores):.3f} | {spread:.3f} | {implied:.3f} |")
    low, high = wilson(hits, checks)
    coverage = hits / checks
    print(
        f"normalization {args.normalization}, {args.questions} questions per player, "
        f"{len(PLAYERS)} players, bootstrap n {args.bootstrap}, seeds from {args.first_seed}\n"
    )
    print(f"K = {len(results)} tournaments, {checks} (tournament, player) checks")
    print(
        f"coverage of the 95% score interval: {coverage:.3f} [{low:.3f}, {high:.3f}] (Wilson 95%)"
    )
    print(f"mean interval width: {statistics.mean(widths):.3f} points")
    verdict = "within" if TARGET[0] <= coverage <= TARGET[1] else "OUTSIDE"
    print(f"target [{TARGET[0]}, {TARGET[1]}]: {verdict}\n")
    print("| player | mean score | sd across tournaments | sd implied by the interval |")
    print("| --- | --- | --- | --- |")
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=100, help="K")
    parser.add_argument("--questions", type=int, default=6, help="questions per player")
    parser.add_argument("--bootstrap", type=int, default=400, help="bootstrap replicates")
    parser.add_argument("--normalization", default="shift")
    parser.add_argument("--first-seed", type=int, default=5000)
    args = parser.parse_args(argv)
    results = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="calibration_arena_") as tmp:
        folder = Path(tmp)
        shutil.copytree(REPO / "configs" / "agents", folder / "agents")
        shutil.copytree(REPO / "configs" / "prompts", folder / "prompts")
        for k in range(args.tournaments):
            results.append(play_one(folder, seed=args.first_seed + k, args=args))
            if (k + 1) % 10 == 0:
                elapsed = time.perf_counter() - start
                print(f"{k + 1} tournaments, {elapsed:.0f} s", file=sys.stderr, flush=True)
    report(results, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
