"""Coverage study of the joint model of absolute judging (``joint_model.parquet``).

Not a test. Plays K seeded tournaments of four mock players of equal skill whose answers
average 60, 140, 220 and 300 words, judged by judges of planted leniency -1, 0, 0.5 and 1
(the design of ``tests/integration/test_arena_joint_model.py``), through the real engine,
builds ``+arena_joint_model`` with dbt, and counts per effect kind how often the 95% interval
holds the planted value: each judge's leniency against the mean judge (planted minus
0.125), each player's quality (0: equal skill) and the length effect (0: the mock judge
scores worked steps and padding adds none). Also the judges put in the wrong order with
disjoint intervals (should be 0).

Printed per kind: checks, coverage with a 95% Wilson interval (the checks of a tournament
counted as independent: a little optimistic), the mean interval width; the target is about
0.95.

Usage::

    uv run --frozen python benchmarks/bench_joint_coverage.py --tournaments 40 \\
        [--questions 10] [--bootstrap 200] [--first-seed 7000]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

import duckdb
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.calibration_arena import wilson  # noqa: E402

LENIENCY = {"ash": -1.0, "birch": 0.0, "cedar": 0.5, "dune": 1.0}
WORDS = {"ash": 60, "birch": 140, "cedar": 220, "dune": 300}


def arena_file(folder: Path, *, seed: int, questions: int, bootstrap: int) -> Path:
    """The planted tournament of seed ``seed`` as an arena file in ``folder``."""
    players = [
        {
            "ref": "agents/arena_player.yaml",
            "overrides": {
                "name": name,
                "mock": {
                    "answer_skill": 0.7,
                    "judge_leniency": leniency,
                    "judge_noise": 0.7,
                    "answer_words": WORDS[name],
                },
            },
        }
        for name, leniency in LENIENCY.items()
    ]
    arena = {
        "game": "arena",
        "run_id": f"joint-{seed}",
        "seed": seed,
        "dev": questions <= 10,
        "questions_per_player": questions,
        "categories": ["math", "logic", "ethics", "science"],
        "question_filter": {"kind": "none"},
        "rationales": None,
        "bootstrap": {"n": bootstrap},
        "anomaly": {"permutations": 10},
        "store_prompts": False,
        "players": players,
    }
    path = folder / f"joint-{seed}.yaml"
    path.write_text(yaml.safe_dump(arena, sort_keys=False), encoding="utf-8")
    return path


def planted(kind: str, name: str) -> float | None:
    """The planted value of an effect of the design; None for one it does not plant."""
    if kind == "leniency":
        return LENIENCY[name] - sum(LENIENCY.values()) / len(LENIENCY)
    if kind == "quality" or (kind, name) == ("style", "answer_length"):
        return 0.0
    return None


def tournament(folder: Path, seed: int, args: argparse.Namespace) -> list[tuple]:
    """The joint model's estimable effects of one tournament: (kind, name, effect, low, high)."""
    from pdbench.arena.runner import run_arena
    from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
    from pdbench.games import load_config

    path = arena_file(folder, seed=seed, questions=args.questions, bootstrap=args.bootstrap)
    run_dir = folder / f"run-{seed}"
    run_arena(load_config(path), output_dir=run_dir, use_cache=False)
    invoke_dbt(DbtRequest("run", run_dir=run_dir, select="+arena_joint_model"))
    rows = duckdb.sql(
        "select effect_kind, effect_name, joint_effect, joint_effect_ci_low, joint_effect_ci_high "
        f"from '{run_dir / 'joint_model.parquet'}' where is_estimable"
    ).fetchall()
    shutil.rmtree(run_dir)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=40)
    parser.add_argument("--questions", type=int, default=10, help="per player")
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=7000)
    args = parser.parse_args()
    hits: dict[str, list[bool]] = {"leniency": [], "quality": [], "length": []}
    widths: dict[str, list[float]] = {kind: [] for kind in hits}
    wrong_order = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for sub in ("agents", "prompts"):
            shutil.copytree(REPO / "configs" / sub, folder / sub)
        for index in range(args.tournaments):
            rows = tournament(folder, args.first_seed + index, args)
            for kind, name, _, low, high in rows:
                truth = planted(kind, name)
                if truth is None:
                    continue
                key = "length" if kind == "style" else kind
                hits[key].append(low <= truth <= high)
                widths[key].append(high - low)
            judges = {name: (low, high) for kind, name, _, low, high in rows if kind == "leniency"}
            for below, above in combinations(sorted(LENIENCY, key=LENIENCY.get), 2):
                if LENIENCY[below] < LENIENCY[above] and judges[below][0] > judges[above][1]:
                    wrong_order += 1
            print(f"  tournament {index + 1}/{args.tournaments}", file=sys.stderr)
    print(
        f"{args.tournaments} tournaments, {4 * args.questions} questions each, "
        f"{args.bootstrap} bootstrap draws ({time.perf_counter() - started:.0f} s)"
    )
    print(f"{'effect':<10} {'checks':>6} {'coverage':>9} {'95% Wilson':>16} {'mean width':>11}")
    for kind, checks in hits.items():
        low, high = wilson(sum(checks), len(checks))
        print(
            f"{kind:<10} {len(checks):>6} {sum(checks) / len(checks):>9.3f} "
            f"[{low:.3f}, {high:.3f}] {sum(widths[kind]) / len(widths[kind]):>11.3f}"
        )
    print(f"judges in the wrong order with disjoint intervals: {wrong_order}")


if __name__ == "__main__":
    main()
