"""``pdbench compare`` of a pair the run did not compare (:mod:`pdbench.pd.paired_query`), and
the note that says why the means beside a paired difference need not add up to it, on
aggregates written here by hand."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from pdbench.pd.compare import _pooling_note
from pdbench.pd.paired_query import paired_differences


def _aggregates(path: Path) -> Path:
    """x cooperates 0.5, 0.7, 0.9 in replicates 0-2 and 1.0 in replicate 3; y 0.4 in
    replicates 0-2 (replicate 3 aborted): 4 and 3 replicates, 3 in common."""
    rows = [("x", 0, 0.5), ("x", 1, 0.7), ("x", 2, 0.9), ("x", 3, 1.0),
            ("y", 0, 0.4), ("y", 1, 0.4), ("y", 2, 0.4)]  # fmt: skip
    values = ", ".join(f"('replicate', '{c}', {r}, {v}, null::bigint)" for c, r, v in rows)
    values += ", ('condition', 'x', null, 0.775, 4), ('condition', 'y', null, 0.4, 3)"
    with duckdb.connect() as con:
        con.execute(
            f"copy (select * from (values {values}) t(level, condition, replicate, "
            f"cooperation_rate, n_replicates)) to '{path}' (format parquet)"
        )
    return path


def test_an_uncompared_pair_gets_the_exact_sign_flip_test(tmp_path: Path) -> None:
    # differences 0.1, 0.3, 0.5 (replicate 3 unpaired): mean 0.3; of the 8 flips one negates
    # nothing (u = 1) and the other 7 have subset means >= 0 (0.1 ... 0.5), none <= 0:
    # p = 2 x min(1 + 0, 1 + 7) / 8 = 0.25; c = 8 // 40 - 1 < 0, so no interval
    (row,) = paired_differences(
        _aggregates(tmp_path / "aggregates.parquet"), "x", "y", ["cooperation_rate"]
    )
    assert row["metric"] == "cooperation_rate"
    assert row["n_pairs"] == 3
    assert row["mean_difference"] == pytest.approx(0.3)
    assert row["p_value"] == pytest.approx(0.25)
    assert (row["ci_low"], row["ci_high"]) == (None, None)
    assert row["ci_note"] == "too few replicates for a 95% interval of the sign-flip test"


def test_means_over_more_replicates_than_the_difference_are_explained(tmp_path: Path) -> None:
    path = _aggregates(tmp_path / "aggregates.parquet")
    assert _pooling_note(path, "x", "y", 3) == [
        "means: over every finished replicate (4 of x, 3 of y) where the metric is defined; "
        "difference: over the replicates both finished and define it (as few as 3 paired of "
        "4: the replicates column), so it need not equal the difference of the means"
    ]
    assert _pooling_note(path, "y", "y", 3) == []


def test_an_uncompared_pair_states_its_minimum_detectable_difference(tmp_path: Path) -> None:
    # differences 0.1, 0.3, 0.5: SD 0.2 over 3 pairs; the mart's macro gives
    # (t(0.975, 2) + t(0.80, 2)) x 0.2 / sqrt(3) = (4.303 + 1.061) x 0.2 / 1.7321 = 0.61937
    (row,) = paired_differences(
        _aggregates(tmp_path / "aggregates.parquet"), "x", "y", ["cooperation_rate"]
    )
    assert row["minimum_detectable_difference"] == pytest.approx(5.364 * 0.2 / 3**0.5)
