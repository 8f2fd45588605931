"""The collusion flag (``judge_player_bias``) as an alarm, on small simulated tournaments
through the engine and the dbt build: under the null (nobody favours anybody) few pairs are
flagged, and planted favours (one-way, a mutual ring, a judge that down-scores a rival) are.

The full study, at more sizes and seeds, is ``benchmarks/bench_collusion.py`` (its figures
are in ``docs/arena_scoring.md``).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from pdbench.aggregate import aggregate_run
from pdbench.arena.runner import run_arena
from pdbench.games import load_config

from tests.conftest import write_arena

FDR = 0.1

# The demo's field (configs/arena.yaml) without its favour: different skills, leniencies
# from -1 to +2 (the lenient judge clamps at 10), noise from 0.5 to 1.5.
FIELD = {
    "atlas": {"answer_skill": 0.9, "judge_leniency": 0.0, "judge_noise": 0.5},
    "borealis": {"answer_skill": 0.75, "judge_leniency": -0.5, "judge_noise": 0.5},
    "cirrus": {"answer_skill": 0.6, "judge_leniency": 2.0, "judge_noise": 0.5},
    "dynamo": {"answer_skill": 0.45, "judge_leniency": 0.0, "judge_noise": 0.5},
    "ember": {"answer_skill": 0.3, "judge_leniency": -1.0, "judge_noise": 1.5},
}


def _play(folder: Path, *, seed: int, questions: int, favours: dict[str, tuple[str, float]]):
    players = []
    for name, traits in FIELD.items():
        mock = dict(traits)
        if name in favours:
            player, bonus = favours[name]
            mock |= {"favours": player, "favour_bonus": bonus}
        players.append(
            {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": mock}}
        )
    path = write_arena(
        folder,
        f"arena_{seed}.yaml",
        players=players,
        seed=seed,
        dev=questions <= 10,
        questions_per_player=questions,
        bootstrap={"n": 20},
        anomaly={"permutations": 400, "fdr": FDR},
        store_prompts=False,
    )
    run_dir = folder / f"run_{seed}"
    run_arena(load_config(path), output_dir=run_dir, use_cache=False)
    aggregate_run(run_dir)
    return duckdb.sql(
        f"select judge, player, is_flagged, relative_deviation "
        f"from '{run_dir}/judge_player_bias.parquet' where judge is not null"
    ).fetchall()


def test_under_the_null_few_pairs_are_flagged(project: Path):
    # Five tournaments of the demo's size without any favour: 100 judge x player pairs. Under
    # the complete null Benjamini-Hochberg flags something in a tournament with probability
    # at most the FDR (0.1), and then usually one or two of its 20 pairs, so the expected
    # share of flagged pairs is about 0.01. The bound is the FDR itself: a tenfold margin
    # for the approximations of the method (see docs/arena_scoring.md) and for the spread
    # of 5 tournaments, still far below the 0.3 to 0.5 the unstratified test flagged.
    flagged = pairs = 0
    for seed in range(5):
        rows = _play(project, seed=100 + seed, questions=6, favours={})
        assert len(rows) == 20
        pairs += len(rows)
        flagged += sum(is_flagged for _, _, is_flagged, _ in rows)
    assert flagged / pairs <= FDR


def test_planted_favours_a_ring_and_a_rival_are_flagged(project: Path):
    # One tournament of 20 questions per player (~100 answers per pair) with a mutual ring
    # (atlas <-> ember), a one-way favour (dynamo -> borealis) and a judge that down-scores
    # a rival (borealis -> cirrus), each 3 points.
    planted = {
        "atlas": ("ember", 3.0),
        "ember": ("atlas", 3.0),
        "dynamo": ("borealis", 3.0),
        "borealis": ("cirrus", -3.0),
    }
    rows = _play(project, seed=7, questions=20, favours=planted)
    flags = {(judge, player): deviation for judge, player, is_flagged, deviation in rows
             if is_flagged}  # fmt: skip
    for judge, (player, bonus) in planted.items():
        assert (judge, player) in flags, (judge, player, flags)
        assert flags[judge, player] * bonus > 0  # the planted direction
    false_flags = [pair for pair in flags if pair not in {(j, p) for j, (p, _) in planted.items()}]
    assert len(false_flags) <= 2, false_flags


def test_a_one_way_favour_at_the_demo_size_is_the_largest_residual(project: Path):
    rows = _play(project, seed=11, questions=6, favours={"dynamo": ("borealis", 3.0)})
    top = max(rows, key=lambda row: abs(row[3]))
    assert top[:3] == ("dynamo", "borealis", True)
