"""The power planner's sign-flip test and Benjamini-Hochberg (:mod:`pdbench.power.sign_flip`)
give the p-values of the project's own SQL: the macro ``paired_sign_flip_test`` run by DuckDB
on the same samples and the same flips, and the mart's BH on hand-computed values."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from pdbench.pd.paired_query import _statistics
from pdbench.power.sign_flip import (
    benjamini_hochberg,
    flip_signs,
    normal_limit_p,
    random_flip_count,
    sign_flip_p,
    uses_normal_limit,
)


def _sql_p_values(samples: np.ndarray, signs: np.ndarray, *, exact: bool, normal: bool) -> list:
    """p of every row of ``samples`` (one condition pair each) by the SQL macro, the flips
    ``signs`` given as the relation the macro reads."""
    n_samples, n_pairs = samples.shape
    paired = [
        (f"s{row:03d}", "x", "m", slot, slot, n_pairs,
         None if np.isnan(samples[row, slot - 1]) else float(samples[row, slot - 1]), normal)
        for row in range(n_samples)
        for slot in range(1, n_pairs + 1)
    ]  # fmt: skip
    flips = [
        (n_pairs, flip, slot, int(signs[flip, slot - 1]), exact)
        for flip in range(signs.shape[0])
        for slot in range(1, n_pairs + 1)
    ]
    with duckdb.connect() as con:
        con.execute(_statistics())
        con.execute(
            "create table paired_rows (condition_1 varchar, condition_2 varchar, metric "
            "varchar, replicate integer, pair_position integer, n_common integer, difference "
            "double, is_normal_limit boolean)"
        )
        con.executemany("insert into paired_rows values (?, ?, ?, ?, ?, ?, ?, ?)", paired)
        con.execute(
            "create table signs (sample_size integer, flip bigint, slot integer, sign integer, "
            "is_exact boolean)"
        )
        con.executemany("insert into signs values (?, ?, ?, ?, ?)", flips)
        rows = con.execute(
            "select condition_1, p_value from paired_sign_flip_test(paired_rows, signs) "
            "order by condition_1"
        ).fetchall()
    return [p for _, p in rows]


def _samples(n_samples: int, n_pairs: int, *, seed: int) -> np.ndarray:
    """Differences of two rates over 20 rounds (steps of 0.05, ties and zeros frequent)."""
    rng = np.random.default_rng(seed)
    values = rng.binomial(20, 0.6, (n_samples, n_pairs)) - rng.binomial(
        20, 0.5, (n_samples, n_pairs)
    )
    return values / 20


def test_exact_flips_give_the_macro_p_values() -> None:
    samples = _samples(30, 7, seed=1)
    samples[0] = 0.0  # every difference 0: p = 1
    samples[1, :3] = np.nan  # undefined differences are left out, as the macro's NULLs
    signs, exact = flip_signs(7, n_random=0, rng=np.random.default_rng(0))
    assert exact and signs.shape == (128, 7)
    ours = sign_flip_p(samples, signs, exact=True)
    assert ours == pytest.approx(_sql_p_values(samples, signs, exact=True, normal=False), abs=1e-12)
    assert ours[0] == 1.0


def test_random_flips_give_the_macro_p_values() -> None:
    samples = _samples(12, 15, seed=2)
    signs, exact = flip_signs(15, n_random=300, rng=np.random.default_rng(3))
    assert not exact and signs.shape == (300, 15)
    ours = sign_flip_p(samples, signs, exact=False)
    assert ours == pytest.approx(
        _sql_p_values(samples, signs, exact=False, normal=False), abs=1e-12
    )


def test_the_normal_limit_gives_the_macro_p_values() -> None:
    samples = _samples(10, 30, seed=4)
    samples[0] = 0.0
    signs = np.ones((1, 30))
    expected = _sql_p_values(samples, signs, exact=False, normal=True)
    assert normal_limit_p(samples) == pytest.approx(expected, rel=1e-9)
    assert normal_limit_p(samples)[0] == 1.0


def test_the_size_settings_are_the_marts() -> None:
    # 28 tests of one pair: max(1000, 400 x 28) = 11,200 flips; 60 tests would ask 24,000,
    # capped at 20,000; more than 1,000 tests, and past 200 pairs, the normal limit
    assert random_flip_count(bootstrap_n=1000, n_tests=28) == 11_200
    assert random_flip_count(bootstrap_n=1000, n_tests=60) == 20_000
    assert not uses_normal_limit(200, n_tests=28)
    assert uses_normal_limit(201, n_tests=28)
    assert uses_normal_limit(13, n_tests=1001)
    assert not uses_normal_limit(12, n_tests=1001)


def test_benjamini_hochberg_by_hand() -> None:
    # p = 0.01, 0.04, 0.03, NaN: m = 3; ranked 0.01, 0.03, 0.04 -> 0.03, 0.045, 0.04; running
    # minimum from the largest rank: 0.03, 0.04, 0.04; the NaN stays NaN
    adjusted = benjamini_hochberg(np.array([[0.01, 0.04, 0.03, np.nan]]))
    assert adjusted[0, :3] == pytest.approx([0.03, 0.04, 0.04])
    assert np.isnan(adjusted[0, 3])
    # a tie keeps the family's order: p 0.02, 0.02 (m 2) -> both 0.02 x 2 / 2 = 0.02
    assert benjamini_hochberg(np.array([[0.02, 0.02]]))[0] == pytest.approx([0.02, 0.02])
