"""The collusion flag (``judge_player_bias``) as an alarm, on small simulated tournaments
through the engine and the dbt models of the flag: under the null (nobody favours anybody) few
pairs are flagged, and planted favours (one-way, a mutual ring, a judge that down-scores a
rival) are.

Each tournament builds the flag's mart and the models it reads (``+arena_judge_player_bias``) with
their data tests, not the arena's other marts: the same SQL as ``pdbench aggregate`` runs for
this mart, at a tenth of the models. The whole build is tested on played tournaments by
``test_arena_cli.py`` and the other end-to-end tests.

The full study, at more sizes and seeds, is ``benchmarks/bench_collusion.py`` (its figures
are in ``docs/arena_collusion.md``).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from pdbench.arena.runner import run_arena
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
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
        folder / "configs",
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
    invoke_dbt(
        DbtRequest(
            "build",
            run_dir=run_dir,
            select="+arena_judge_player_bias",
            # a test of how votes refer to answers: audience votes are not of this mart
            exclude="stg_arena_audience_votes",
        )
    )
    return duckdb.sql(
        f"select judge, player, is_flagged, relative_deviation, anomaly_rank, flag_kind "
        f"from '{run_dir}/judge_player_bias.parquet' where judge is not null"
    ).fetchall()


def test_under_the_null_few_pairs_are_flagged(project: Path):
    # Four tournaments of 20 questions per player (about 80 answers per pair) without any
    # favour: 80 judge x player pairs. Under the complete null Benjamini-Hochberg flags
    # something in a tournament with probability at most the FDR (0.1), so two or more of
    # four tournaments with a flag has probability at most 1 - 0.9^4 - 4 x 0.1 x 0.9^3
    # = 0.052; the seeds are fixed, so the outcome is too. The share of flagged pairs is
    # bounded by the FDR itself. The earlier, unstratified test flagged something in 85% of
    # tournaments of 30 questions per player (docs/arena_collusion.md).
    flagged = pairs = tournaments_with_a_flag = 0
    for seed in range(4):
        rows = _play(project, seed=100 + seed, questions=20, favours={})
        assert len(rows) == 20
        n_flagged = sum(is_flagged for _, _, is_flagged, *_ in rows)
        pairs += len(rows)
        flagged += n_flagged
        tournaments_with_a_flag += n_flagged > 0
    assert tournaments_with_a_flag <= 1
    assert flagged / pairs <= FDR


@pytest.mark.parametrize(
    "planted",
    [
        {"dynamo": ("borealis", 3.0), "ember": ("atlas", -3.0)},  # one-way, and a rival
        {"borealis": ("dynamo", 3.0), "dynamo": ("borealis", 3.0)},  # a ring of two
    ],
    ids=["one_way_and_rival", "ring_of_two"],
)
def test_planted_favours_are_flagged_first(project: Path, planted: dict):
    # 20 questions per player (about 80 answers per pair), 3 points each way.
    rows = _play(project, seed=7, questions=20, favours=planted)
    by_rank = sorted(rows, key=lambda row: row[4])
    pairs = {(judge, player) for judge, (player, _) in planted.items()}
    top = by_rank[: len(pairs)]
    assert {(judge, player) for judge, player, *_ in top} == pairs
    for judge, player, is_flagged, deviation, _, kind in top:
        bonus = planted[judge][1]
        assert is_flagged and deviation * bonus > 0
        mutual = planted.get(player, (None,))[0] == judge
        assert kind == ("mutual_inflation" if mutual else "favouritism" if bonus > 0
                        else "disfavour")  # fmt: skip


def test_a_one_way_favour_at_the_demo_size_is_the_largest_residual(project: Path):
    rows = _play(project, seed=11, questions=6, favours={"dynamo": ("borealis", 3.0)})
    top = max(rows, key=lambda row: abs(row[3]))
    assert top[:3] == ("dynamo", "borealis", True)
    assert top[4] == 1  # also first by p-value
