"""Simulation study of the collusion flag (``judge_player_bias``): null flag rate and power.

Not a test. Plays arena tournaments with mock players through the real engine
(``pdbench.games.load_config``, ``pdbench.arena.runner.run_arena``) into a temporary folder,
builds the marts (``pdbench.aggregate.aggregate_run``) and reads ``judge_player_bias``.

The field is the demo's five players (``configs/arena.yaml``: different skills, leniencies
from -1 to +2, noise from 0.5 to 1.5, 5% invalid replies for two of them), without the
demo's favour, under these structures:

- ``null``: nobody favours anybody;
- ``one_way``: dynamo favours borealis;
- ``ring2``: borealis and dynamo favour each other;
- ``ring3``: atlas favours cirrus, cirrus favours ember, ember favours atlas;
- ``rival``: ember down-scores atlas (a negative ``favour_bonus``).

A planted pair is *found* when it is flagged with the planted sign. Reported per structure
and size: tournaments, pairs, the share of flagged pairs among the unplanted ones (the null
flag rate; under ``null`` every pair is unplanted), the share of tournaments with any false
flag, the false discovery proportion (false flags / flags, averaged over tournaments with a
flag), and the power (found / planted).

Usage::

    uv run --frozen python benchmarks/bench_collusion.py \\
        --sizes 6,30 --null-seeds 20 --planted-seeds 4 --permutations 1000 [--bonus 3]
        [--min-effect 0.5] [--show-false-flags]

``--sizes`` are questions per player (<= 10 plays in dev mode, above in full mode).
Prints a Markdown table (the one in ``docs/arena_collusion.md``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import yaml

REPO = Path(__file__).resolve().parents[1]

BASE_PLAYERS = {
    "atlas": {"answer_skill": 0.9, "question_quality": 0.8, "judge_leniency": 0.0},
    "borealis": {"answer_skill": 0.75, "question_quality": 0.6, "judge_leniency": -0.5},
    "cirrus": {"answer_skill": 0.6, "question_quality": 0.9, "judge_leniency": 2.0,
               "invalid_rate": 0.05},
    "dynamo": {"answer_skill": 0.45, "question_quality": 0.4, "judge_leniency": 0.0},
    "ember": {"answer_skill": 0.3, "question_quality": 0.2, "judge_leniency": -1.0,
              "judge_noise": 1.5, "invalid_rate": 0.05},
}  # fmt: skip

STRUCTURES: dict[str, list[tuple[str, str, int]]] = {
    "null": [],
    "one_way": [("dynamo", "borealis", 1)],
    "ring2": [("borealis", "dynamo", 1), ("dynamo", "borealis", 1)],
    "ring3": [("atlas", "cirrus", 1), ("cirrus", "ember", 1), ("ember", "atlas", 1)],
    "rival": [("ember", "atlas", -1)],
}
"""(judge, player, sign of the bonus) of every planted pair."""


@dataclass
class Tally:
    tournaments: int = 0
    pairs: int = 0
    unplanted: int = 0
    false_flags: int = 0
    tournaments_with_false_flag: int = 0
    fdp_sum: float = 0.0
    tournaments_with_flag: int = 0
    planted: int = 0
    found: int = 0
    small_p: int = 0
    seconds: float = 0.0


def arena_file(folder: Path, *, structure: str, questions: int, seed: int, args) -> Path:
    planted = {judge: (player, sign) for judge, player, sign in STRUCTURES[structure]}
    players = []
    for name, traits in BASE_PLAYERS.items():
        mock = {"judge_noise": 0.5, **traits}
        if name in planted:
            player, sign = planted[name]
            mock |= {"favours": player, "favour_bonus": sign * args.bonus}
        players.append(
            {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": mock}}
        )
    arena = {
        "game": "arena",
        "run_id": f"collusion-{structure}-{questions}-{seed}",
        "seed": seed,
        "dev": questions <= 10,
        "questions_per_player": questions,
        "categories": ["math", "logic", "ethics", "science", "language"],
        "question_filter": {"kind": "none"},
        "bootstrap": {"n": 50},
        "anomaly": {"permutations": args.permutations, "fdr": args.fdr}
        | ({} if args.min_effect is None else {"min_effect": args.min_effect}),
        "store_prompts": False,
        "players": players,
    }
    path = folder / f"{arena['run_id']}.yaml"
    path.write_text(yaml.safe_dump(arena, sort_keys=False), encoding="utf-8")
    return path


def play_one(folder: Path, *, structure: str, questions: int, seed: int, args) -> list[tuple]:
    from pdbench.aggregate import aggregate_run
    from pdbench.arena.runner import run_arena
    from pdbench.games import load_config

    path = arena_file(folder, structure=structure, questions=questions, seed=seed, args=args)
    run_dir = folder / "runs" / path.stem
    run_arena(load_config(path), output_dir=run_dir, use_cache=False)
    aggregate_run(run_dir)
    rows = duckdb.sql(
        f"select judge, player, is_flagged, relative_deviation, p_value "
        f"from '{run_dir}/judge_player_bias.parquet' where judge is not null"
    ).fetchall()
    shutil.rmtree(run_dir)
    return rows


def tally(rows: list[tuple], structure: str, into: Tally) -> None:
    planted = {(judge, player): sign for judge, player, sign in STRUCTURES[structure]}
    into.tournaments += 1
    into.pairs += len(rows)
    false_flags = flags = 0
    for judge, player, flagged, deviation, p_value in rows:
        sign = planted.get((judge, player))
        flags += bool(flagged)
        if sign is None:
            into.unplanted += 1
            false_flags += bool(flagged)
            into.small_p += p_value <= 0.05
        else:
            into.planted += 1
            into.found += bool(flagged and deviation * sign > 0)
    into.false_flags += false_flags
    into.tournaments_with_false_flag += false_flags > 0
    if flags:
        into.tournaments_with_flag += 1
        into.fdp_sum += false_flags / flags


def show_false_flags(rows: list[tuple], structure: str, *, seed: int) -> None:
    planted = {(judge, player) for judge, player, _ in STRUCTURES[structure]}
    for judge, player, flagged, deviation, _ in rows:
        if flagged and (judge, player) not in planted:
            print(
                f"  false flag {structure} seed {seed}: {judge} -> {player} {deviation:+.2f}",
                file=sys.stderr,
            )


def share(part: float, whole: float) -> str:
    return f"{part / whole:.3f}" if whole else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="6,30", help="questions per player, comma-separated")
    parser.add_argument("--structures", default=",".join(STRUCTURES))
    parser.add_argument("--null-seeds", type=int, default=20)
    parser.add_argument("--planted-seeds", type=int, default=5)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--fdr", type=float, default=0.1)
    parser.add_argument("--bonus", type=float, default=3.0)
    parser.add_argument(
        "--min-effect", type=float, default=None, help="anomaly.min_effect (default: config's)"
    )
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--show-false-flags", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    structures = args.structures.split(",")
    results: dict[tuple[str, int], Tally] = {}
    with tempfile.TemporaryDirectory(prefix="bench_collusion_") as tmp:
        folder = Path(tmp)
        shutil.copytree(REPO / "configs" / "agents", folder / "agents")
        shutil.copytree(REPO / "configs" / "prompts", folder / "prompts")
        for questions in sizes:
            for structure in structures:
                seeds = args.null_seeds if structure == "null" else args.planted_seeds
                result = results.setdefault((structure, questions), Tally())
                for k in range(seeds):
                    start = time.perf_counter()
                    rows = play_one(
                        folder,
                        structure=structure,
                        questions=questions,
                        seed=args.first_seed + k,
                        args=args,
                    )
                    result.seconds += time.perf_counter() - start
                    tally(rows, structure, result)
                    if args.show_false_flags:
                        show_false_flags(rows, structure, seed=args.first_seed + k)
                print(
                    f"{structure} q={questions}: {result.tournaments} tournaments, "
                    f"{result.seconds:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    print(
        f"permutations {args.permutations}, fdr {args.fdr}, bonus {args.bonus}, "
        f"min_effect {'config default' if args.min_effect is None else args.min_effect}, "
        f"seeds from {args.first_seed}\n"
    )
    print(
        "| structure | questions per player | tournaments | unplanted pairs "
        "| unplanted pairs flagged | unplanted p <= 0.05 | tournaments with a false flag "
        "| mean false discovery proportion "
        "| planted pairs | power |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (structure, questions), t in results.items():
        fdp = share(t.fdp_sum, t.tournaments)
        print(
            f"| {structure} | {questions} | {t.tournaments} | {t.unplanted} "
            f"| {share(t.false_flags, t.unplanted)} | {share(t.small_p, t.unplanted)} "
            f"| {share(t.tournaments_with_false_flag, t.tournaments)} | {fdp} "
            f"| {t.planted or '-'} | {share(t.found, t.planted)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
