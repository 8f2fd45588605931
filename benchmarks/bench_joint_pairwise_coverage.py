"""How well the joint model of pairwise judging recovers planted strengths and biases:
coverage of its intervals (joint_model.parquet, judging pairwise), over seeds.

Not a test. Per seed, one tournament of ``configs/arena_joint.yaml`` played by the engine and
built by dbt (``tests/integration/joint_pairwise_runs.py``). Three players (ann, ben, cyd)
write, answer and judge; a fourth (dan) only answers. Every pair of answers to a question is
judged by the three judges in both orders, once blind and once with the authors' names, the
judges' own answers included. The mock's preferences are planted in log-odds, the joint
model's terms: strengths 1100, 1030, 970 and 900 (Elo); ann's first_log_odds 0.5, cyd's
-0.3; ben's self_log_odds 0.8; every judge's name_log_odds 0.9 for dan; every judge's
length_preference 0.5 per 100 words. The truths (``planted_truths``, in the mart's Elo
points) are those values times 400 / ln 10, strengths and name pulls against the mean
player. Reported per kind of effect, each share with its 95% Wilson interval (the checks of
a seed counted as independent): the share of intervals that hold the truth; and strength
inversions with disjoint intervals (the truly stronger player's interval wholly below the
other's; should be 0).

Usage: ``uv run python benchmarks/bench_joint_pairwise_coverage.py [--seeds 40]
[--questions 7] [--first-seed 1] [--workers 2] [--dir DIR]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.calibration_arena import wilson  # noqa: E402
from tests.integration.joint_pairwise_runs import planted_truths, play_joint  # noqa: E402


def one_seed(folder: Path, seed: int, args: argparse.Namespace) -> dict[str, int]:
    """Counts of one seed: per kind of effect, intervals checked and holding the truth;
    strength inversions with disjoint intervals."""
    run_dir = play_joint(folder, seed=seed, questions=args.questions, bootstrap=10)
    rows = duckdb.sql(
        "select effect_kind, effect_name, joint_effect_ci_low, joint_effect_ci_high "
        f"from '{run_dir / 'joint_model.parquet'}' where judging = 'pairwise'"
    ).fetchall()
    intervals = {(kind, name): (low, high) for kind, name, low, high in rows}
    counts: dict[str, int] = {}
    truths = planted_truths()
    for (kind, name), truth in truths.items():
        low, high = intervals.get((kind, name), (None, None))
        counts[f"{kind}_checked"] = counts.get(f"{kind}_checked", 0) + 1
        held = low is not None and high is not None and low <= truth <= high
        counts[f"{kind}_held"] = counts.get(f"{kind}_held", 0) + int(held)
    strengths = {name: truth for (kind, name), truth in truths.items() if kind == "strength"}
    ordered = sorted(strengths, key=strengths.__getitem__, reverse=True)
    counts["inversions"] = sum(
        intervals["strength", strong][1] < intervals["strength", weak][0]
        for strong, weak in combinations(ordered, 2)
    )
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--questions", type=int, default=7, help="questions per writer")
    parser.add_argument("--first-seed", type=int, default=1, help="another batch of seeds")
    parser.add_argument("--workers", type=int, default=2, help="tournaments at once")
    parser.add_argument("--dir", type=Path, default=None, help="keep the runs here")
    args = parser.parse_args(argv)
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench_joint_pairwise_"))
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("agents", "prompts"):  # linked before the workers start
        if not (folder / sub).exists():
            (folder / sub).symlink_to(REPO / "configs" / sub)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    totals: dict[str, int] = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(one_seed, folder, seed, args) for seed in seeds]
        for seed, future in zip(seeds, futures, strict=True):
            for key, value in future.result().items():
                totals[key] = totals.get(key, 0) + value
            print(f"seed {seed}: {totals}", file=sys.stderr)
    print(f"{args.seeds} seeds, {3 * args.questions} questions (3 writers)\n")
    print("| effects | intervals holding the truth | share [95% Wilson] |")
    print("| --- | ---: | ---: |")
    for kind, text in (
        ("strength", "strengths"),
        ("position", "position biases"),
        ("self", "self biases"),
        ("name", "name pulls"),
        ("style", "length"),
    ):
        hits, checked = totals[f"{kind}_held"], totals[f"{kind}_checked"]
        low, high = wilson(hits, checked)
        print(f"| {text} | {hits} / {checked} | {hits / checked:.1%} [{low:.1%}, {high:.1%}] |")
    n_players = sum(kind == "strength" for kind, _ in planted_truths())
    pairs = args.seeds * n_players * (n_players - 1) // 2
    print(f"\nstrength inversions with disjoint intervals: {totals['inversions']} of {pairs} pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
