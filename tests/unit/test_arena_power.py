"""The arena planner for the score (:mod:`pdbench.arena.power_score`,
:mod:`pdbench.arena.power`): the pool of every pair of players' centred per-question scores,
the leaderboard's interval rule and the simulated tournaments, on scores written here by
hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pdbench.arena.power import interval_approximation
from pdbench.arena.power_bootstrap import QuestionSearch, bootstrap_counts
from pdbench.arena.power_score import ScoreDesign, centred_pair_rows, percentile_separated


def test_each_score_loses_what_its_judges_means_take_then_each_pair_is_centred() -> None:
    # c_p = ((k - 2) T + s_p) / (k - 1)^2. q1: 7, 5, 3 (k 3, T 15): c 5.5, 5, 4.5 -> 1.5, 0,
    # -1.5; q2: 5, 5, 3 (T 13): c 4.5, 4.5, 4 -> 0.5, 0.5, -1; q3: 6, 5 (k 2): c = s -> 0, 0
    scores = [
        ("q1", "atlas", 7.0), ("q1", "boreas", 5.0), ("q1", "ember", 3.0),
        ("q2", "atlas", 5.0), ("q2", "boreas", 5.0), ("q2", "ember", 3.0),
        ("q3", "atlas", 6.0), ("q3", "boreas", 5.0),
    ]  # fmt: skip
    found = centred_pair_rows(scores)
    assert found is not None
    rows, common = found
    # atlas, boreas over q1, q2, q3: atlas 1.5, 0.5, 0 (mean 2/3), boreas 0, 0.5, 0 (mean
    # 1/6); atlas, ember over q1, q2: ember -1.5, -1 (mean -1.25); then boreas, ember
    assert rows.shape == (3 + 2 + 2, 2)
    assert rows[:3, 0] == pytest.approx([1.5 - 2 / 3, 0.5 - 2 / 3, -2 / 3])
    assert rows[:3, 1] == pytest.approx([-1 / 6, 0.5 - 1 / 6, -1 / 6])
    assert rows[3:5, 1] == pytest.approx([-0.25, 0.25])
    assert rows.mean(axis=0) == pytest.approx([0.0, 0.0])
    assert common == pytest.approx(7 / 3)


def test_no_pair_with_two_common_questions() -> None:
    assert centred_pair_rows([("q1", "atlas", 7.0), ("q1", "boreas", 5.0)]) is None


def test_the_leaderboard_intervals_by_hand() -> None:
    # replicates 0..100 (q2.5 = 2.5, q97.5 = 97.5), observed 50: f = 1 gives [2.5, 97.5];
    # the second player the same minus 100: [-97.5, -2.5]; f = 1.1 makes them overlap
    first = np.arange(101.0)
    replicates = np.stack([first, first - 100], axis=-1)[None, :, :]
    observed = np.array([[50.0, -50.0]])
    assert percentile_separated(observed, replicates, factor=1.0).tolist() == [True]
    assert percentile_separated(observed, replicates, factor=1.1).tolist() == [False]


def test_bootstrap_counts_draw_each_replicate_whole() -> None:
    counts = bootstrap_counts(3, 50, 7, np.random.default_rng(5))
    assert counts.shape == (3, 50, 7)
    assert np.all(counts.sum(axis=2) == 7)


def test_scores_without_spread_are_apart_exactly_when_a_difference_is_planted() -> None:
    rows = np.zeros((10, 2))
    rng = np.random.default_rng(6)
    assert ScoreDesign(rows=rows, effect=0.5, bootstrap_n=20).found(5, 40, rng) == 40
    assert ScoreDesign(rows=rows, effect=0.0, bootstrap_n=20).found(5, 40, rng) == 0


def test_the_normal_approximation_of_disjoint_intervals() -> None:
    # SDs 1 and 1, SD of the difference sqrt(2), D = 1, 80% power:
    # ((1.95996 x 2 + 0.84162 x 1.41421) / 1)^2 = 5.11 ^ 2 = 26.1 -> 27
    root = 1.959963984540054 * 2 + 0.8416212335729143 * math.sqrt(2)
    assert root**2 == pytest.approx(26.12, abs=0.01)
    assert interval_approximation(sds=(1.0, 1.0), sd_difference=math.sqrt(2), effect=1.0,
                                  power=0.8) == 27  # fmt: skip


def test_the_simulated_power_rises_with_the_questions() -> None:
    # two independent players, SD 1 each: at 27 questions the normal approximation gives
    # about 80% (the stretch of the intervals asks a few more)
    rng = np.random.default_rng(7)
    rows = rng.normal(size=(4000, 2))
    search = QuestionSearch(ScoreDesign(rows=rows - rows.mean(axis=0), effect=1.0,
                                        bootstrap_n=200), simulations=300, seed=8)  # fmt: skip
    low, middle, high = (search.power(n).power for n in (10, 30, 60))
    assert low < middle < high
    assert 0.6 <= middle <= 0.9
    assert high >= 0.97
