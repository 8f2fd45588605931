"""The power planner's N (:mod:`pdbench.power.simulate`) against the normal approximation
computed by hand, on a pool whose variation is known exactly: the paired differences of two
URND agents (cooperation 0.6 and 0.5) over 20 rounds, Bin(20, 0.6) / 20 - Bin(20, 0.5) / 20,
SD sqrt(0.6 x 0.4 / 20 + 0.5 x 0.5 / 20) = sqrt(0.0245) = 0.1565.

By hand, n = ((z(0.975) + z(0.80)) x 0.1565 / D)^2 with z(0.975) + z(0.80) = 1.9600 + 0.8416
= 2.8016: 19.2 for D = 0.10 and 76.9 for D = 0.05. The sign-flip test with random flips
loses a little power to the z-test, and 400 simulations leave about 2 pp of Monte-Carlo
error on a power of 0.8 (about 1.5 replicates at D = 0.10, 6 at D = 0.05): the tolerance is
-2 / +4 replicates at 0.10 and -7 / +12 at 0.05.
"""

from __future__ import annotations

import numpy as np
import pytest
from pdbench.power.planting import grid_step, planting
from pdbench.power.simulate import PairedTest, PowerSearch, Study, normal_approximation

SD = 0.0245**0.5


def _pool(size: int = 4000, *, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.binomial(20, 0.6, size) / 20 - rng.binomial(20, 0.5, size) / 20


def _needed(tests: list[PairedTest], effect: float, *, n_tests: int = 28) -> int | None:
    study = Study(tests=tests, effect=effect, n_tests=n_tests, simulations=400, seed=11)
    start = normal_approximation(sd=SD, effect=effect, alpha=0.05, power=0.8)
    return PowerSearch(study).smallest(0.8, start=start)


def test_the_hand_computed_normal_approximation() -> None:
    assert normal_approximation(sd=SD, effect=0.10, alpha=0.05, power=0.8) == 20  # 19.2
    assert normal_approximation(sd=SD, effect=0.05, alpha=0.05, power=0.8) == 77  # 76.9


def test_the_planner_needs_about_the_normal_approximation() -> None:
    pool = _pool()
    needed_10 = _needed([PairedTest("coop", pool, planted=True)], 0.10)
    needed_05 = _needed([PairedTest("coop", pool, planted=True)], 0.05)
    assert needed_10 is not None and 18 <= needed_10 <= 24
    assert needed_05 is not None and 70 <= needed_05 <= 89
    # half the effect, about four times the replicates
    assert 3.2 <= needed_05 / needed_10 <= 4.8


def test_a_second_test_in_the_family_raises_the_replicates() -> None:
    # the family holds a second test whose differences are always 0 (B's cooperation against
    # ALLD): p = 1 there, so BH asks p <= 0.05 / 2 of the planted test; by hand
    # ((z(0.9875) + z(0.80)) x 0.1565 / 0.1)^2 = ((2.2414 + 0.8416) x 1.565)^2 = 23.3
    pool = _pool()
    needed = _needed(
        [PairedTest("coop a", pool, planted=True), PairedTest("coop b", np.zeros_like(pool))],
        0.10,
    )
    assert needed is not None and 22 <= needed <= 28


def test_no_effect_is_found_at_the_nominal_rate() -> None:
    # a planted effect of (nearly) nothing: the share of studies that find it is the test's
    # one-sided false-positive rate, at most 0.025 (+ 3 Monte-Carlo SEs of 400 simulations)
    study = Study(
        tests=[PairedTest("coop", _pool(), planted=True)], effect=1e-12, n_tests=28,
        simulations=400, seed=5,
    )  # fmt: skip
    assert PowerSearch(study).power(20).power <= 0.025 + 3 * (0.025 * 0.975 / 400) ** 0.5


def test_a_planted_shift_keeps_the_grid() -> None:
    # differences -0.05, 0, 0, 0.05, 0.10 (a grid of 0.05), mean 0.02; an effect of 0.0325
    # moves every value by 0.0125 = 0.25 steps: 0 whole steps, and one step more where the
    # uniform is below 0.25
    values = np.array([-0.05, 0.0, 0.0, 0.05, 0.10])
    shift = planting(values, 0.0325)
    assert shift.step == 0.05
    assert shift.shift == pytest.approx(0.0125)
    uniforms = np.array([[0.10, 0.30, 0.20, 0.90, 0.24]])
    moved = shift.apply(values[None, :], uniforms)
    assert moved[0] == pytest.approx([0.0, 0.0, 0.05, 0.05, 0.15])
    # off a grid (0.13 is no whole multiple of the smallest gap, 0.03) every value moves by s
    assert grid_step(np.array([0.10, 0.13, 0.30])) is None
    off_grid = planting(np.array([0.10, 0.13, 0.30]), 0.2)
    assert off_grid.apply(np.array([[0.1]]), np.zeros((1, 1)))[0, 0] == pytest.approx(
        0.1 + 0.2 - 0.53 / 3
    )
