"""The paired sign-flip test and the Benjamini-Hochberg correction of ``comparisons.parquet``,
over thousands of simulated samples at once, for the power planner.

The test is the DuckDB macro ``paired_sign_flip_test`` (``dbt_project/macros/sign_flip_test.sql``)
written over arrays: each row of ``differences`` is one sample of paired differences (NaN
where a replicate has no value), each row of ``signs`` one flip (-1 negates a pair). The
p-value counts the flips whose subset mean (the mean of the differences it negates, rounded
to 9 decimals) is at most, and at least, 0: ``min(1, 2 min(u + below, u + above) / N)``, u the
flips that negate no defined difference (plus the observed sample with random flips), N the
flips (plus one with random flips). Past :data:`MAX_DRAWS` pairs, or past
:data:`EXACT_FLIP_MAX` in a run of more tests than random flips serve, the normal limit
``erfc(|sum d| / sqrt(2 sum d^2))`` by the same Chebyshev fit as ``normal_two_sided_ln_p``.
``tests/unit/test_power_sign_flip.py`` runs both on the same samples and flips and finds the
same p-values.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "EXACT_FLIP_MAX",
    "FLIPS_MAX",
    "FLIPS_PER_TEST",
    "MAX_DRAWS",
    "benjamini_hochberg",
    "flip_signs",
    "normal_limit_p",
    "random_flip_count",
    "sign_flip_p",
    "uses_normal_limit",
]

Floats = NDArray[np.float64]

EXACT_FLIP_MAX = 12
"""``pd_exact_flip_max()``: up to this many pairs every one of the 2^n flips is enumerated."""
MAX_DRAWS = 200
"""``pd_max_draws()``: past this many pairs, the normal limit."""
FLIPS_PER_TEST = 400
"""``pd_sign_flips_per_test``: random flips per test of the run."""
FLIPS_MAX = 20_000
"""``pd_sign_flips_max``: the most random flips of a test."""
_ROUNDING = 5e-10
"""A subset mean rounded to 9 decimals is <= 0 exactly when it is below half a unit of the
9th decimal."""


def random_flip_count(*, bootstrap_n: int, n_tests: int) -> int:
    """``pd_random_flip_count``: max(bootstrap_n, 400 x tests), at most 20,000."""
    return min(max(bootstrap_n, FLIPS_PER_TEST * n_tests), FLIPS_MAX)


def uses_normal_limit(n_pairs: int, *, n_tests: int) -> bool:
    """``pd_uses_normal_limit``: whether a pair of ``n_pairs`` common replicates is tested
    with the normal limit in a run of ``n_tests`` tests."""
    return n_pairs > MAX_DRAWS or (n_pairs > EXACT_FLIP_MAX and n_tests > 0.05 * FLIPS_MAX)


def flip_signs(n_pairs: int, *, n_random: int, rng: np.random.Generator) -> tuple[Floats, bool]:
    """The flips of a test of ``n_pairs`` pairs, one row each (-1 negates the pair), and
    whether they are exact: every one of the 2^n when n <= 12 (flip f negates pair i when bit
    i - 1 of f is set, as ``int_pd_sign_flips``), else ``n_random`` random ones."""
    if n_pairs <= EXACT_FLIP_MAX:
        flips = np.arange(2**n_pairs, dtype=np.int64)[:, None]
        bits = (flips >> np.arange(n_pairs, dtype=np.int64)[None, :]) & 1
        return (1 - 2 * bits).astype(np.float64), True
    bits = rng.integers(0, 2, size=(n_random, n_pairs))
    return (1 - 2 * bits).astype(np.float64), False


def _erfc_ln(z: Floats) -> Floats:
    """ln erfc(z / sqrt(2)) by Numerical Recipes' erfcc, as ``normal_two_sided_ln_p``."""
    x = z / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.5 * x)
    coefficients = (
        -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
        0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277,
    )  # fmt: skip
    poly = np.zeros_like(t)
    for coefficient in reversed(coefficients[1:]):
        poly = (poly + coefficient) * t
    result: Floats = np.log(t) - x * x + coefficients[0] + poly
    return result


def normal_limit_p(differences: Floats) -> Floats:
    """The normal limit of the sign-flip test per row: 1 when every difference is 0."""
    values = np.nan_to_num(differences)
    total = values.sum(axis=1)
    squares = (values * values).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(total) / np.sqrt(squares)
        p = np.minimum(1.0, np.maximum(np.exp(_erfc_ln(z)), 2.2250738585072014e-308))
    p = np.where(squares == 0, 1.0, p)
    result: Floats = np.where(np.isnan(differences).all(axis=1), np.nan, p)
    return result


def sign_flip_p(differences: Floats, signs: Floats, *, exact: bool) -> Floats:
    """The two-sided p-value of every row of ``differences`` (samples x pairs) under the
    flips ``signs`` (flips x pairs); NaN for a row without any defined difference."""
    defined = ~np.isnan(differences)
    values = np.where(defined, differences, 0.0)
    negated = (signs < 0).astype(np.float64)
    sums = values @ negated.T
    counts = defined.astype(np.float64) @ negated.T
    with np.errstate(divide="ignore", invalid="ignore"):
        means = sums / counts
    moved = counts > 0
    below = (moved & (means < _ROUNDING)).sum(axis=1)
    above = (moved & (means > -_ROUNDING)).sum(axis=1)
    extra = 0 if exact else 1
    unmoved = (~moved).sum(axis=1) + extra
    total = signs.shape[0] + extra
    p = np.minimum(1.0, 2 * np.minimum(unmoved + below, unmoved + above) / total)
    result: Floats = np.where(defined.any(axis=1), p, np.nan)
    return result


def benjamini_hochberg(p_values: Floats) -> Floats:
    """Benjamini-Hochberg within one family per row (samples x tests, the tests in the
    mart's tie order: pair, then metric): p m / rank, the running minimum from the largest
    rank down, at most 1; m counts a row's tests that have a p-value, NaN stays NaN."""
    order = np.argsort(p_values, axis=1, kind="stable")  # NaN sorts last
    ranked = np.take_along_axis(p_values, order, axis=1)
    m = (~np.isnan(p_values)).sum(axis=1, keepdims=True)
    ranks = np.arange(1, p_values.shape[1] + 1)[None, :]
    scaled = np.where(np.isnan(ranked), np.inf, ranked * m / ranks)
    running = np.minimum.accumulate(scaled[:, ::-1], axis=1)[:, ::-1]
    adjusted = np.full_like(p_values, np.nan)
    np.put_along_axis(adjusted, order, np.minimum(1.0, running), axis=1)
    return np.where(np.isnan(p_values), np.nan, adjusted)
