"""The arena's power planner against played tournaments (not a test: it prints; run on demand).

Two studies, each on four mock players of which two differ by a planted amount and the
others sit between them, as the planner's field does:

- score (``judging: absolute``): atlas answers with skill 0.5 + delta, the three others with
  0.5. The mock's skill is not in score points, so the true difference D is measured first:
  the mean leaderboard difference of atlas over borealis in ``--calibration`` tournaments of
  20 questions per player. `pdbench power --effect D` then gives the questions per player.
- Elo (``judging: pairwise``, the Bradley-Terry mock): atlas at 1000 + D/2, borealis at
  1000 - D/2, the two others at 1000; every pair judged in both orders by the two players
  outside it, a tenth of the verdicts ties and 30% of the others strong (weight 3).
  `pdbench power --metric elo --effect D` gives the questions per player.

Each study plays ``--seeds`` tournaments (the config's seed plus 1, 2, ...) at the planned
questions per player, each through the engine and a dbt build of the models its ranking needs
(``+arena_leaderboard`` or ``+arena_bradley_terry``), and counts the tournaments whose marts
tell atlas and borealis apart by the run's own rule: the 95% intervals do not overlap, atlas
above (``leaderboard.ci_low`` of atlas above ``ci_high`` of borealis; ``bradley_terry``'s
``elo_ci_low`` and ``elo_ci_high``). The null plays the same with no planted difference and
counts disjoint intervals either way. Beside it, the share whose rank intervals do not
overlap (another reading of the same marts), and the planner's simulated power at the size
played (a whole number of questions per player is often a few questions more than planned).

    uv run python benchmarks/bench_power_arena.py                    # both, 100 seeds, nulls
    uv run python benchmarks/bench_power_arena.py --study elo --seeds 200 --effect-elo 150
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
from bench_power import wilson
from pdbench.arena.power_bootstrap import QuestionSearch  # benchmarks/ is the script's folder

REPO = Path(__file__).resolve().parents[1]
PLAYER = REPO / "configs" / "agents" / "arena_player.yaml"
NAMES = ("atlas", "borealis", "cirrus", "dynamo")


def score_config(*, seed: int, questions: int, delta: float) -> str:
    """Four mock players judged alone: atlas at skill 0.5 + ``delta``, the others at 0.5."""
    players = "\n".join(
        f"  - ref: {PLAYER}\n    overrides:\n      name: {name}\n"
        f"      mock: {{answer_skill: {0.5 + (delta if name == 'atlas' else 0.0):g}, "
        "judge_noise: 0.5}"
        for name in NAMES
    )
    return (
        f"game: arena\nrun_id: power-score\nseed: {seed}\nquestions_per_player: {questions}\n"
        "categories: [math, logic, ethics, science]\nquestion_filter: {kind: none}\n"
        "rationales: null\nbootstrap: {n: 200}\nanomaly: {permutations: 20}\n"
        f"players:\n{players}\n"
    )


def elo_config(*, seed: int, questions: int, effect: float) -> str:
    """Four Bradley-Terry mock players: atlas and borealis ``effect`` Elo apart around 1000."""
    strengths = {"atlas": 1000 + effect / 2, "borealis": 1000 - effect / 2}
    players = "\n".join(
        f"  - ref: {PLAYER}\n    overrides:\n      name: {name}\n"
        f"      mock: {{strength: {strengths.get(name, 1000.0):g}, tie_share: 0.1, "
        "strong_share: 0.3}"
        for name in NAMES
    )
    return (
        f"game: arena\nrun_id: power-elo\nseed: {seed}\nquestions_per_player: {questions}\n"
        "categories: [math, logic, ethics, science]\nquestion_filter: {kind: none}\n"
        "rationales: null\nbootstrap: {n: 200}\nanomaly: {permutations: 20}\n"
        "judging: pairwise\npairing: {scheme: all, position_swap: true}\n"
        f"players:\n{players}\n"
    )


def _load(folder: Path, text: str, name: str) -> Any:
    from pdbench.games import load_config

    prompts = folder / "prompts"
    if not prompts.exists():
        prompts.symlink_to(REPO / "configs" / "prompts")  # the configs' prompts, as written
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def play_and_read(loaded: Any, *, folder: Path, mart: str) -> list[dict[str, Any]]:
    """Play one tournament, build ``+<mart>`` with dbt, and read the mart's rows."""
    from pdbench.arena.runner import run_arena
    from pdbench.dbt_build.invoke import invoke_dbt
    from pdbench.dbt_build.request import DbtRequest

    run_dir = folder / f"{loaded.config.run_id}-{loaded.config.seed}"
    run_arena(loaded, output_dir=run_dir, overwrite=False, resume=False, use_cache=False)
    invoke_dbt(DbtRequest("run", run_dir=run_dir, select=f"+arena_{mart}"))
    with duckdb.connect() as con:
        cursor = con.execute(f"select * from read_parquet('{run_dir / (mart + '.parquet')}')")
        columns = [d[0] for d in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


Outcome = tuple[bool, bool, bool, int, float]


def _apart(rows: list[dict[str, Any]], low: str, high: str) -> Outcome:
    """(atlas's interval above borealis's, either above the other, rank intervals apart,
    questions, atlas's value less borealis's)."""
    by = {row["player"]: row for row in rows}
    a, b = by["atlas"], by["borealis"]
    above = a[low] is not None and b[high] is not None and a[low] > b[high]
    below = b[low] is not None and a[high] is not None and b[low] > a[high]
    ranks = a["rank_ci_high"] is not None and b["rank_ci_low"] is not None
    ranks_apart = ranks and (
        a["rank_ci_high"] < b["rank_ci_low"] or b["rank_ci_high"] < a["rank_ci_low"]
    )
    value = "elo" if low == "elo_ci_low" else "score"
    gap = float("nan") if a[value] is None or b[value] is None else a[value] - b[value]
    return above, above or below, ranks_apart, int(a["n_questions"]), gap


def tournaments(
    make: Any, *, seeds: int, first_seed: int, mart: str, low: str, high: str
) -> list[Outcome]:
    results = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for i in range(seeds):
            loaded = _load(folder, make(first_seed + 1 + i), f"t{i}")
            results.append(_apart(play_and_read(loaded, folder=folder, mart=mart), low, high))
    return results


def report(what: str, results: list[Outcome], *, null: bool, target: str,
           seconds: float) -> None:  # fmt: skip
    n = len(results)
    hits = sum(r[1] if null else r[0] for r in results)
    ranks = sum(r[2] for r in results)
    low, high = wilson(hits, n)
    rank_low, rank_high = wilson(ranks, n)
    questions = sorted({r[3] for r in results})
    gaps = [r[4] for r in results if r[4] == r[4]]
    mean = sum(gaps) / len(gaps)
    se = (sum((g - mean) ** 2 for g in gaps) / (len(gaps) - 1) / len(gaps)) ** 0.5
    print(
        f"{what}: intervals apart in {hits}/{n} tournaments = {hits / n:.3f} [{low:.3f}, "
        f"{high:.3f}] 95% Wilson interval (target {target}); rank intervals apart "
        f"{ranks / n:.3f} [{rank_low:.3f}, {rank_high:.3f}]; questions per tournament "
        f"{questions}; atlas minus borealis {mean:.3f} on average (SE {se:.3f}, "
        f"{len(gaps)} tournaments with both values); {seconds:.0f} s",
        flush=True,
    )


def plan(
    loaded: Any, *, effect: float, metric: str, simulations: int | None, pool: int | None
) -> dict[str, Any]:
    """`pdbench power`'s answer: the questions needed, the questions per player, and the
    planner's search (to ask its power at other sizes)."""
    from pdbench.arena import power as arena_power
    from pdbench.arena.power_bootstrap import QuestionSearch
    from pdbench.arena.power_pool import elo_design, score_pool
    from pdbench.arena.power_score import ScoreDesign
    from pdbench.power.text import PowerRequest

    start = time.perf_counter()
    request = PowerRequest(effect=effect, metric=metric, simulations=simulations, pool=pool)
    lines = arena_power.arena_power_lines(loaded, request, pilot=None, on_line=lambda _: None)
    seconds = time.perf_counter() - start
    prefix = "questions needed: " if metric == "elo" else "common questions needed: "
    (needed,) = [int(x.split(": ")[1]) for x in lines if x.startswith(prefix)]
    (per_player,) = [
        int(x.split(": ")[1].split()[0])
        for x in lines
        if x.startswith("questions per player needed: ")
    ]
    with arena_power._pool_run(loaded, None, lambda _: None, pool=pool) as (run_dir, _, _):
        if metric == "elo":
            design: Any = elo_design(run_dir, effect=effect)[0]
            default = arena_power.ELO_SIMULATIONS
        else:
            rows, _common = score_pool(run_dir)
            design = ScoreDesign(rows=rows, effect=effect, bootstrap_n=200)
            default = arena_power.SCORE_SIMULATIONS
    search = QuestionSearch(design, simulations=simulations or default, seed=loaded.config.seed)
    return {"needed": needed, "per_player": per_player, "search": search, "seconds": seconds}


def score_study(args: argparse.Namespace, folder: Path) -> None:
    start = time.perf_counter()
    differences = []
    with tempfile.TemporaryDirectory() as name:
        for i in range(args.calibration):
            loaded = _load(Path(name), score_config(seed=20_000 + i, questions=20,
                                                    delta=args.delta), f"c{i}")  # fmt: skip
            rows = play_and_read(loaded, folder=Path(name), mart="leaderboard")
            by = {row["player"]: row["score"] for row in rows}
            differences.append(by["atlas"] - by["borealis"])
    effect = sum(differences) / len(differences)
    spread = (sum((d - effect) ** 2 for d in differences) / (len(differences) - 1)) ** 0.5
    print(
        f"score: skill 0.5 + {args.delta:g} against 0.5 is {effect:.3f} points apart (mean of "
        f"{len(differences)} tournaments of 20 questions per player; SE "
        f"{spread / len(differences) ** 0.5:.3f}); {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    base = _load(folder, score_config(seed=4242, questions=10, delta=args.delta), "score")
    planned = plan(
        base, effect=effect, metric="score", simulations=args.simulations, pool=args.pool
    )
    _run(args, planned, unit="common questions", null_delta=0.0, effect=effect,
         make=lambda seed, q, d: score_config(seed=seed, questions=q, delta=d),
         planted=args.delta, mart="leaderboard", low="ci_low", high="ci_high")  # fmt: skip


def elo_study(args: argparse.Namespace, folder: Path) -> None:
    effect = args.effect_elo
    base = _load(folder, elo_config(seed=4343, questions=5, effect=effect), "elo")
    planned = plan(base, effect=effect, metric="elo", simulations=args.simulations, pool=args.pool)
    _run(args, planned, unit="questions", null_delta=0.0, effect=effect,
         make=lambda seed, q, d: elo_config(seed=seed, questions=q, effect=d),
         planted=effect, mart="bradley_terry", low="elo_ci_low", high="elo_ci_high")  # fmt: skip


def _run(
    args: argparse.Namespace,
    planned: dict[str, Any],
    *,
    unit: str,
    null_delta: float,
    effect: float,
    make: Any,
    planted: float,
    mart: str,
    low: str,
    high: str,
) -> None:
    per_player = planned["per_player"]
    print(
        f"{mart}: pdbench power asks {planned['needed']} {unit} for {effect:g} "
        f"({per_player} questions per player; planner {planned['seconds']:.1f} s)",
        flush=True,
    )
    start = time.perf_counter()
    found = tournaments(
        lambda seed: make(seed, per_player, planted), seeds=args.seeds, first_seed=0,
        mart=mart, low=low, high=high,
    )  # fmt: skip
    played = found[0][3]
    point = planned["search"].power(played)
    at_planned = planned["search"].power(planned["needed"])
    print(
        f"  the planner's simulated power at the {played} {unit} played: "
        f"{100 * point.power:.1f}% (Monte-Carlo SE {100 * point.standard_error:.1f} pp); at "
        f"the {planned['needed']} planned: {100 * at_planned.power:.1f}%",
        flush=True,
    )
    report(f"  planted {effect:g}", found, null=False, target="the planner's power",
           seconds=time.perf_counter() - start)  # fmt: skip
    gaps = [r[4] for r in found if r[4] == r[4]]
    measured = sum(gaps) / len(gaps)
    search = planned["search"]
    again = QuestionSearch(
        replace(search.design, effect=measured), simulations=search.simulations,
        seed=search.seed,
    )  # fmt: skip
    at_measured = again.power(played)
    print(
        f"  the planner's simulated power at the {played} {unit} played for the difference "
        f"these tournaments measured, {measured:.3f}: {100 * at_measured.power:.1f}% "
        f"(Monte-Carlo SE {100 * at_measured.standard_error:.1f} pp)",
        flush=True,
    )
    if args.no_null:
        return
    start = time.perf_counter()
    null = tournaments(
        lambda seed: make(seed, per_player, null_delta), seeds=args.seeds, first_seed=5_000,
        mart=mart, low=low, high=high,
    )  # fmt: skip
    report("  null (no difference), either way", null, null=True, target="0.05 or below",
           seconds=time.perf_counter() - start)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", choices=["score", "elo", "both"], default="both")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--delta", type=float, default=0.1, help="atlas's extra answer skill")
    parser.add_argument("--calibration", type=int, default=40)
    parser.add_argument("--effect-elo", type=float, default=100.0)
    parser.add_argument("--simulations", type=int, default=None)
    parser.add_argument(
        "--pool", type=int, default=None, help="questions per player of the planner's pool"
    )
    parser.add_argument("--no-null", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        if args.study in ("score", "both"):
            score_study(args, Path(name))
        if args.study in ("elo", "both"):
            elo_study(args, Path(name))


if __name__ == "__main__":
    main()
