"""The comparisons' verdicts in the PD summary, answer first, read from a comparisons mart
written by hand: the counts and verdicts are the mart's, never recomputed."""

from pathlib import Path

import duckdb
import pytest
from pdbench.pd import summary
from pdbench.pd.marts import PDMart
from pdbench.pd.summary import comparison_lines

# (condition_1, condition_2, metric, mean, ci_low, ci_high, p_value_bh, verdict,
# is_few_data, n_pairs)
ROWS = [
    ("tft_vs_alld", "allc_vs_alld", "cooperation_rate", 0.62, 0.55, 0.69, 0.002, "higher",
     False, 20),
    ("tft_vs_alld", "allc_vs_alld", "payoff_per_round_a", 1.5, 1.0, 2.0, 0.001, "higher",
     False, 20),
    ("grim_vs_alld", "allc_vs_alld", "cooperation_rate", -0.1, -0.3, 0.05, 0.4, "inconclusive",
     False, 20),
    # below 0.05, yet the mart says inconclusive: the summary reports the mart's verdict
    ("grim_vs_alld", "allc_vs_alld", "payoff_per_round_a", 0.2, 0.1, 0.3, 0.01, "inconclusive",
     False, 20),
    ("wsls_vs_alld", "allc_vs_alld", "cooperation_rate", -0.25, None, None, 0.0004, "lower",
     True, 6),
]  # fmt: skip


def _tables(run_dir: Path) -> dict[str, int]:
    def sql(value: object) -> str:
        if value is None:
            return "null"
        return f"'{value}'" if isinstance(value, str) else str(value).lower()

    values = ", ".join("(" + ", ".join(sql(value) for value in row) + ")" for row in ROWS)
    columns = (
        "condition_1, condition_2, metric, mean_difference, ci_low, ci_high, p_value_bh, "
        "verdict, is_few_data, n_pairs"
    )
    with duckdb.connect() as con:
        con.execute(
            f"copy (select * from (values {values}) t({columns})) "
            f"to '{run_dir / PDMart.COMPARISONS}' (format parquet)"
        )
    return {PDMart.COMPARISONS: len(ROWS)}


def test_verdicts_come_first_clearest_pair_first(tmp_path: Path) -> None:
    assert comparison_lines(tmp_path, _tables(tmp_path)) == [
        "comparisons (first minus second): 3 of 5 differences hold after Benjamini-Hochberg "
        "(BH p <= 0.05, within each family, primary or exploratory)",
        "  wsls_vs_alld vs allc_vs_alld: cooperation, both agents -25.0 pp [—], BH p < 0.001: "
        "real difference, first lower (few data: 6 replicates)",
        "  tft_vs_alld vs allc_vs_alld: cooperation, both agents +62.0 pp [+55.0, +69.0], "
        "BH p 0.002: real difference, first higher",
        "  grim_vs_alld vs allc_vs_alld: cooperation, both agents -10.0 pp [-30.0, +5.0], "
        "BH p 0.400: inconclusive",
        f"  every metric of a pair: pdbench compare {tmp_path} FIRST SECOND",
    ]


def test_pairs_beyond_the_shown_ones_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(summary, "SHOWN_PAIRS", 2)
    lines = comparison_lines(tmp_path, _tables(tmp_path))
    assert [line.split(":")[0] for line in lines[1:3]] == [
        "  wsls_vs_alld vs allc_vs_alld",
        "  tft_vs_alld vs allc_vs_alld",
    ]
    assert lines[3] == (
        f"  and 1 more pair; every metric of a pair: pdbench compare {tmp_path} FIRST SECOND"
    )
    assert len(lines) == 4


def test_no_comparisons_no_lines(tmp_path: Path) -> None:
    assert comparison_lines(tmp_path, {PDMart.COMPARISONS: 0}) == []
    assert comparison_lines(tmp_path, {}) == []
