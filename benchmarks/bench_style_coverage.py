"""How well style control recovers planted strengths under a planted length bias: coverage of
the style-controlled Elo intervals (bradley_terry.parquet) and of the length coefficient's
interval (pairwise_style.parquet), over seeds.

Not a test. Per seed, one tournament of the Bradley-Terry mock played by the engine and built
by dbt: five players of planted strength 900, 950, 1000, 1050 and 1100 (Elo) whose answers
are 300, 60, 180, 240 and 120 words on average (length not in the order of strength), every
pair of answers to a question judged in both orders by the three judges not in the pair,
each judge adding ``--length`` (0.8) log-odds per 100 words of the first answer's length over
the second's. The truths: a style-controlled Elo of strength - mean + 1000 (the planted
strength itself here) and a length coefficient of 0.8 per 100 words. Reported, each share
with its 95% Wilson interval (the checks of a seed counted as independent):

- the share of style-controlled Elo intervals that hold the planted Elo, and, for contrast,
  of plain Elo intervals that do;
- the share of length intervals that hold 0.8, and that leave out 0;
- rank inversions with disjoint rank intervals: pairs whose truly stronger player's
  style-controlled rank interval lies wholly below (worse than) the other's (should be 0),
  and the same for the plain rank intervals.

Usage: ``uv run python benchmarks/bench_style_coverage.py [--seeds 40] [--questions 4]
[--bootstrap 100] [--first-seed 1] [--dir DIR]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from itertools import combinations
from pathlib import Path

import duckdb
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.calibration_arena import wilson  # noqa: E402

PLAYERS = {  # name: (planted strength, mean answer words)
    "atlas": (1100.0, 300.0),
    "borealis": (1050.0, 60.0),
    "cirrus": (1000.0, 180.0),
    "dynamo": (950.0, 240.0),
    "equinox": (900.0, 120.0),
}


def arena_file(folder: Path, *, seed: int, args: argparse.Namespace) -> Path:
    """The arena file of seed ``seed`` in ``folder``, beside configs/agents and prompts."""
    for sub in ("agents", "prompts"):
        if not (folder / sub).exists():
            (folder / sub).symlink_to(REPO / "configs" / sub)
    players = [
        {
            "ref": "agents/arena_player.yaml",
            "overrides": {
                "name": name,
                "mock": {
                    "strength": strength,
                    "answer_words": words,
                    "length_preference": args.length,
                },
            },
        }
        for name, (strength, words) in PLAYERS.items()
    ]
    arena = {
        "game": "arena",
        "run_id": f"style-{seed}",
        "seed": seed,
        "dev": True,
        "questions_per_player": args.questions,
        "categories": ["math", "logic", "ethics", "science"],
        "question_filter": {"kind": "none"},
        "rationales": None,
        "bootstrap": {"n": args.bootstrap},
        "anomaly": {"permutations": 10},
        "store_prompts": False,
        "judging": "pairwise",
        "pairing": {
            "scheme": "all",
            "position_swap": True,
            "self_judging": False,
            "reveal_names": False,
            "prompt": "prompts/arena/pairwise.md",
        },
        "players": players,
    }
    path = folder / f"style-{seed}.yaml"
    path.write_text(yaml.safe_dump(arena, sort_keys=False), encoding="utf-8")
    return path


def one_seed(folder: Path, seed: int, args: argparse.Namespace) -> dict[str, int]:
    """Counts of one seed: hits and checks of each interval, and inversions."""
    from pdbench.arena.runner import run_arena
    from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
    from pdbench.games import load_config

    run_dir = folder / "runs" / f"style-{seed}"
    run_arena(load_config(arena_file(folder, seed=seed, args=args)), output_dir=run_dir)
    invoke_dbt(
        DbtRequest("run", run_dir=run_dir, select="+arena_bradley_terry +arena_pairwise_style")
    )
    rows = duckdb.sql(f"select * from '{run_dir / 'bradley_terry.parquet'}'")
    ratings = {r[0]: dict(zip(rows.columns, r, strict=True)) for r in rows.fetchall()}
    (length,) = duckdb.sql(
        f"select ci_low, ci_high from '{run_dir / 'pairwise_style.parquet'}' "
        "where feature = 'answer_length'"
    ).fetchall()
    mean = sum(strength for strength, _ in PLAYERS.values()) / len(PLAYERS)
    counts = {"length_held": int(length[0] <= args.length <= length[1]), "length_off_0": 0}
    counts["length_off_0"] = int(length[0] > 0 or length[1] < 0)
    for stem, rank in (("elo_style_controlled", "rank_style_controlled"), ("elo", "rank")):
        counts[f"{stem}_held"] = sum(
            row[f"{stem}_ci_low"] <= PLAYERS[name][0] - mean + 1000 <= row[f"{stem}_ci_high"]
            for name, row in ratings.items()
        )
        counts[f"{rank}_inversions"] = sum(
            ratings[strong][f"{rank}_ci_low"] > ratings[weak][f"{rank}_ci_high"]
            for strong, weak in combinations(PLAYERS, 2)  # PLAYERS runs strongest first
        )
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--questions", type=int, default=4, help="questions per player")
    parser.add_argument("--bootstrap", type=int, default=100)
    parser.add_argument("--length", type=float, default=0.8, help="log-odds per 100 words")
    parser.add_argument("--first-seed", type=int, default=1, help="another batch of seeds")
    parser.add_argument("--dir", type=Path, default=None, help="keep the runs here")
    args = parser.parse_args(argv)
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench_style_"))
    folder.mkdir(parents=True, exist_ok=True)
    totals: dict[str, int] = {}
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for key, value in one_seed(folder, seed, args).items():
            totals[key] = totals.get(key, 0) + value
        print(f"seed {seed}: {totals}", file=sys.stderr)
    n_players, n_pairs = len(PLAYERS), len(PLAYERS) * (len(PLAYERS) - 1) // 2
    n_questions = args.questions * n_players
    print(
        f"{args.seeds} seeds, {n_questions} questions, {args.bootstrap} bootstrap replicates, "
        f"length preference {args.length} per 100 words\n"
    )
    print("| check | held / checked | share [95% Wilson] |")
    print("| --- | ---: | ---: |")
    lines = (
        ("style-controlled Elo interval holds the planted Elo", "elo_style_controlled_held",
         n_players),
        ("plain Elo interval holds the planted Elo", "elo_held", n_players),
        ("length interval holds 0.8 per 100 words", "length_held", 1),
        ("length interval leaves out 0", "length_off_0", 1),
        ("style-controlled rank intervals inverted and disjoint",
         "rank_style_controlled_inversions", n_pairs),
        ("plain rank intervals inverted and disjoint", "rank_inversions", n_pairs),
    )  # fmt: skip
    for text, key, per_seed in lines:
        hits, checked = totals[key], per_seed * args.seeds
        low, high = wilson(hits, checked)
        print(f"| {text} | {hits} / {checked} | {hits / checked:.1%} [{low:.1%}, {high:.1%}] |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
