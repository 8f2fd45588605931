"""The arena's Elo planner (:mod:`pdbench.arena.power_elo`): the Bradley-Terry fit, the
marts' interval and its stretch, the simulated verdicts and the share of tournaments whose
intervals tell two players apart, on cases computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pdbench.arena.power_bootstrap import QuestionSearch, arm_factor
from pdbench.arena.power_elo import EloDesign, fit_elo, interval_separated


def test_three_wins_in_four_are_a_strength_ratio_of_three() -> None:
    # p_a / p_b = 3: 400 log10(3) = 190.85 Elo apart, centred on 1000
    elo = fit_elo(np.array([3.0]), np.array([4.0]), n_players=2)
    half = 200 * math.log10(3)
    assert elo == pytest.approx([1000 + half, 1000 - half], abs=1e-6)
    anchored = fit_elo(np.array([3.0]), np.array([4.0]), n_players=2, anchor=1)
    assert anchored == pytest.approx([1000 + 2 * half, 1000.0], abs=1e-6)


def test_three_players_in_a_circle_are_equal_and_many_tables_fit_at_once() -> None:
    # pairs (a, b), (a, c), (b, c): a beats b 2 of 4, a beats c 2 of 4, b beats c 2 of 4
    even = np.array([[2.0, 2.0, 2.0], [3.0, 2.0, 2.0]])
    games = np.full((2, 3), 4.0)
    elo = fit_elo(even, games, n_players=3)
    assert elo.shape == (2, 3)
    assert elo[0] == pytest.approx([1000.0, 1000.0, 1000.0], abs=1e-6)
    # a beats b 3 of 4 instead: a comes first, and the field stays centred on 1000
    assert elo[1, 0] == elo[1].max()
    assert float(np.mean(elo[1])) == pytest.approx(1000.0, abs=1e-6)


def test_the_stretch_of_each_arm() -> None:
    # sqrt(n / (n - 1)) t(0.975, n - 1) / 1.959964: 9 questions sqrt(9/8) 2.306 / 1.959964
    assert arm_factor(9) == pytest.approx(math.sqrt(9 / 8) * 2.306 / 1.959964, abs=1e-9)
    assert arm_factor(9) == pytest.approx(1.248, abs=1e-3)
    assert arm_factor(20) == pytest.approx(1.096, abs=1e-3)


def test_disjoint_intervals_by_hand() -> None:
    # replicates 0..100 of the upper player (q2.5 = 2.5, q97.5 = 97.5), observed 50: with f = 1
    # its interval is [50 - 47.5, 50 + 47.5] = [2.5, 97.5]; the lower's replicates are the
    # same minus 100 (observed -50): [-97.5, -2.5]. Disjoint at f = 1, not at f = 1.1
    upper = np.arange(101.0)
    replicates = np.stack([upper, upper - 100], axis=-1)[None, :, :]
    observed = np.array([[50.0, -50.0]])
    assert interval_separated(observed, replicates, factor=1.0, upper=0, lower=1).tolist() == [True]
    assert interval_separated(observed, replicates, factor=1.1, upper=0, lower=1).tolist() == [
        False
    ]
    # the planted upper below: not found, whatever the width
    assert interval_separated(observed, replicates, factor=1.0, upper=1, lower=0).tolist() == [
        False
    ]


def test_every_verdict_a_tie_is_half_a_win() -> None:
    design = EloDesign(
        players=("a", "b", "c"), verdicts_per_pair=(2.0, 1.0, 0.0), effect=300, upper=0,
        lower=1, tie_share=1.0,
    )  # fmt: skip
    wins, games = design.tournaments(5, 3, np.random.default_rng(1))
    assert wins.shape == games.shape == (3, 5, 3)
    assert np.all(games == np.array([2.0, 1.0, 0.0]))
    assert np.all(wins == games / 2)


def test_a_fractional_count_of_verdicts_is_kept_on_average() -> None:
    # 1.25 verdicts per question: one always, a second a quarter of the time; strong verdicts
    # (every one, no ties) weigh 3
    design = EloDesign(
        players=("a", "b"), verdicts_per_pair=(1.25,), effect=0, upper=0, lower=1,
        strong_share=1.0, strong_weight=3.0,
    )  # fmt: skip
    _, games = design.tournaments(2000, 2, np.random.default_rng(2))
    assert set(np.unique(games)) == {3.0, 6.0}
    assert games.mean() / 3 == pytest.approx(1.25, abs=0.03)


def test_a_large_gap_is_always_found_and_none_rarely() -> None:
    # 500 Elo apart: a beats b with probability 0.947, each 250 from c (0.807)
    far = EloDesign(players=("a", "b", "c"), verdicts_per_pair=(4.0,) * 3, effect=500, upper=0,
                    lower=1, bootstrap_n=100)  # fmt: skip
    assert QuestionSearch(far, simulations=50, seed=3).power(24).power == 1.0
    none = EloDesign(players=("a", "b", "c"), verdicts_per_pair=(4.0,) * 3, effect=0, upper=0,
                     lower=1, bootstrap_n=100)  # fmt: skip
    assert QuestionSearch(none, simulations=200, seed=3).power(12).power <= 0.03


def test_the_search_returns_the_first_size_that_reaches_the_target() -> None:
    design = EloDesign(players=("a", "b", "c"), verdicts_per_pair=(4.0,) * 3, effect=200,
                       upper=0, lower=1, bootstrap_n=100)  # fmt: skip
    search = QuestionSearch(design, simulations=100, seed=4)
    needed = search.smallest(0.8, start=8)
    assert needed is not None
    assert search.power(needed).power >= 0.8
    assert search.power(needed - 1).power < 0.8
