"""The power of a study by simulation, and the smallest size that reaches a target power.

A study is a family of paired tests (:class:`PairedTest`), each with the per-replicate
differences of a pool of replicates (played by the config's agents, or read from a pilot
run). A simulated study of n replicates draws n of the pool's replicates with replacement,
the same draws for every test (so that tests of one replicate stay as correlated as they
were played), runs the paired sign-flip test on each (:mod:`pdbench.power.sign_flip`) and
Benjamini-Hochberg over the family. On a *planted* test the effect is put on the centred
differences: each pool difference d becomes ``d - mean(pool d) + effect``, so the planted
test's true mean difference is exactly ``effect`` and its spread is the pool's. The power at
n is the share of simulated studies in which the planted tests are found: BH-adjusted p at
most alpha, mean difference positive (the verdict ``higher``), averaged over the planted
tests; its Monte-Carlo standard error is the SD of that share over the simulations / sqrt(K).

Every simulation draws its replicates once for the largest size (:data:`MAX_REPLICATES`),
and a study of n takes the first n: the power curve is then smooth in n (common random
numbers), and the search for the smallest n is a bisection over it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from pdbench.power.planting import Planting, planting
from pdbench.power.sign_flip import (
    Floats,
    benjamini_hochberg,
    flip_signs,
    normal_limit_p,
    random_flip_count,
    sign_flip_p,
    uses_normal_limit,
)
from pdbench.rng import derive_seed

__all__ = [
    "MAX_REPLICATES",
    "MIN_REPLICATES",
    "PairedTest",
    "PowerPoint",
    "PowerSearch",
    "Study",
    "curve_sizes",
    "normal_approximation",
    "smallest_size",
]

MAX_REPLICATES = 5_000
"""The largest study the planner simulates; past it, it says so."""
MIN_REPLICATES = 6
"""The fewest paired replicates whose sign-flip test can reach p <= 0.05 (2 / 2^6)."""
_CHUNK = 250
"""Simulations tested at once (bounds the memory of the flips x simulations matrices)."""


@dataclass(frozen=True)
class PairedTest:
    """One test of the family: the paired differences of the pool (NaN: undefined), in the
    order of the pool's replicates."""

    name: str
    differences: Floats
    planted: bool = False


@dataclass(frozen=True)
class Study:
    """What is simulated: the family, the effect planted, and the run's test settings."""

    tests: list[PairedTest]
    effect: float
    alpha: float = 0.05
    n_tests: int = 1
    """Every test of the run (pairs x metrics): how many random flips a test gets."""
    bootstrap_n: int = 1000
    """The config's ``metrics.bootstrap.n``: the fewest random flips of a test."""
    simulations: int = 1000
    seed: int = 0

    def __post_init__(self) -> None:
        if not any(test.planted for test in self.tests):
            raise ValueError("a study needs a planted test")

    @property
    def pool_size(self) -> int:
        """Replicates of the pool."""
        return len(self.tests[0].differences)


@dataclass(frozen=True)
class PowerPoint:
    """The simulated power at one size."""

    replicates: int
    power: float
    standard_error: float


def normal_approximation(*, sd: float, effect: float, alpha: float, power: float) -> int:
    """Replicates of a two-sided z-test at ``alpha`` with ``power`` against ``effect`` when
    the paired differences have SD ``sd``: ((z(1 - alpha/2) + z(power)) sd / effect)^2."""
    normal = NormalDist()
    z = normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)
    return max(1, math.ceil((z * sd / effect) ** 2 - 1e-9))


@dataclass
class PowerSearch:
    """Simulated power of a :class:`Study` by size, each size simulated once."""

    study: Study
    on_point: Callable[[PowerPoint], None] | None = None
    points: dict[int, PowerPoint] = field(default_factory=dict)

    def __post_init__(self) -> None:
        study = self.study
        rng = np.random.default_rng(derive_seed(study.seed, "power", "draws"))
        self._draws = rng.integers(
            0, study.pool_size, size=(study.simulations, MAX_REPLICATES), dtype=np.int32
        )
        self._uniforms = rng.random(size=(study.simulations, MAX_REPLICATES), dtype=np.float32)
        self._pools = [self._pool(test) for test in study.tests]
        self._plantings = {
            column: planting(test.differences, study.effect)
            for column, test in enumerate(study.tests)
            if test.planted
        }

    def _pool(self, test: PairedTest) -> Floats | None:
        """The pool of a test as it is drawn from, None when it is all 0 and nothing is
        planted on it (p = 1 always)."""
        values = test.differences
        if not test.planted and np.all(np.isnan(values) | (values == 0)):
            return None
        return values

    def power(self, replicates: int) -> PowerPoint:
        """The power at ``replicates`` per condition (simulated once, then remembered)."""
        found = self.points.get(replicates)
        if found is not None:
            return found
        study = self.study
        shares = np.concatenate(
            [self._found_share(replicates, start) for start in range(0, study.simulations, _CHUNK)]
        )
        se = float(shares.std(ddof=1) / math.sqrt(len(shares))) if len(shares) > 1 else 0.0
        point = PowerPoint(replicates, float(shares.mean()), se)
        self.points[replicates] = point
        if self.on_point is not None:
            self.on_point(point)
        return point

    def _found_share(self, replicates: int, start: int) -> Floats:
        study = self.study
        draws = self._draws[start : start + _CHUNK, :replicates]
        test = self._test(replicates)
        p_values = np.empty((draws.shape[0], len(study.tests)))
        means = np.zeros_like(p_values)
        for column, pool in enumerate(self._pools):
            if pool is None:
                p_values[:, column] = np.where(
                    np.isnan(study.tests[column].differences[draws]).all(axis=1), np.nan, 1.0
                )
                continue
            sample = pool[draws]
            shift: Planting | None = self._plantings.get(column)
            if shift is not None:
                uniforms = self._uniforms[start : start + _CHUNK, :replicates]
                sample = shift.apply(sample, uniforms.astype(np.float64))
            p_values[:, column] = test(sample)
            with np.errstate(invalid="ignore"):
                means[:, column] = np.nan_to_num(np.nanmean(sample, axis=1))
        adjusted = benjamini_hochberg(p_values)
        planted = [i for i, t in enumerate(study.tests) if t.planted]
        found = (adjusted[:, planted] <= study.alpha) & (means[:, planted] > 0)
        result: Floats = found.mean(axis=1)
        return result

    def _test(self, replicates: int) -> Callable[[Floats], Floats]:
        study = self.study
        if uses_normal_limit(replicates, n_tests=study.n_tests):
            return normal_limit_p
        rng = np.random.default_rng(derive_seed(study.seed, "power", "flips", replicates))
        n_random = random_flip_count(bootstrap_n=study.bootstrap_n, n_tests=study.n_tests)
        signs, exact = flip_signs(replicates, n_random=n_random, rng=rng)
        return lambda sample: sign_flip_p(sample, signs, exact=exact)

    @property
    def simulations(self) -> int:
        """Simulated studies per size."""
        return self.study.simulations

    maximum = MAX_REPLICATES

    def smallest(self, target: float, *, start: int) -> int | None:
        """The fewest replicates whose simulated power reaches ``target``, searched from
        ``start`` (:func:`smallest_size`); None past :data:`MAX_REPLICATES`."""
        return smallest_size(
            lambda n: self.power(n), target, start=start, minimum=MIN_REPLICATES,
            maximum=MAX_REPLICATES,
        )  # fmt: skip

    def curve(self, needed: int) -> list[PowerPoint]:
        """The power around ``needed`` (:func:`curve_sizes`)."""
        return [
            self.power(n)
            for n in curve_sizes(needed, minimum=MIN_REPLICATES, maximum=MAX_REPLICATES)
        ]


def smallest_size(
    power: Callable[[int], PowerPoint], target: float, *, start: int, minimum: int, maximum: int
) -> int | None:
    """The fewest units (from ``minimum``) whose ``power`` reaches ``target``, searched from
    ``start``: doubling (or halving) to bracket it, then bisection; None past ``maximum``."""
    low, high = minimum - 1, None
    n = min(max(start, minimum), maximum)
    while high is None:
        if power(n).power >= target:
            high = n
        elif n >= maximum:
            return None
        else:
            low, n = n, min(2 * n, maximum)
    n = high // 2
    while n > low and power(n).power >= target:
        high, n = n, n // 2
    low = max(low, n)
    while high - low > 1:
        middle = (low + high) // 2
        if power(middle).power >= target:
            high = middle
        else:
            low = middle
    return high


def curve_sizes(needed: int, *, minimum: int, maximum: int) -> list[int]:
    """About half, three quarters, once, 1.25 and 1.5 times ``needed``, within
    [``minimum``, ``maximum``]."""
    return sorted(
        {
            min(maximum, max(minimum, round(needed * factor)))
            for factor in (0.5, 0.75, 1.0, 1.25, 1.5)
        }
    )
