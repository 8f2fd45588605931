"""The intervals and paired comparisons of a PD run (docs/metrics.md, "Is the difference
real?"): the 95% interval next to each condition mean (``aggregates.parquet``) and
the comparisons of conditions (``comparisons.parquet``), every number as the mart holds it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.storage.marts import PDMart
from pdbench.ui import run_reader

__all__ = ["COMPARISON_COLUMNS", "INTERVAL_METRICS", "comparisons", "interval_rows", "intervals"]

INTERVAL_METRICS: list[tuple[str, str]] = [
    ("cooperation (both)", "cooperation_rate"),
    ("cooperation A", "cooperation_rate_a"),
    ("cooperation B", "cooperation_rate_b"),
    ("mutual cooperation", "mutual_cooperation_rate"),
    ("mutual defection", "mutual_defection_rate"),
    ("payoff / round A", "payoff_per_round_a"),
    ("payoff / round B", "payoff_per_round_b"),
    ("retaliation A", "retaliation_rate_a"),
    ("retaliation B", "retaliation_rate_b"),
    ("forgiveness A", "forgiveness_rate_a"),
    ("forgiveness B", "forgiveness_rate_b"),
    ("exploitability gap A", "exploitability_payoff_gap_a"),
    ("exploitability gap B", "exploitability_payoff_gap_b"),
    ("cooperation A, valid moves only", "cooperation_rate_valid_a"),
    ("cooperation B, valid moves only", "cooperation_rate_valid_b"),
    ("fallback moves A", "fallback_move_share_a"),
    ("fallback moves B", "fallback_move_share_b"),
    ("collapse at round", "time_to_collapse"),
]
"""The means the condition page shows with their intervals: title, ``aggregates.parquet``
column (its interval: ``<column>_ci_low``, ``<column>_ci_high``)."""

COMPARISON_COLUMNS = [
    "condition_1",
    "condition_2",
    "metric",
    "agent_side",
    "n_pairs",
    "mean_difference",
    "ci_low",
    "ci_high",
    "ci_note",
    "p_value",
    "p_value_bh",
    "verdict",
    "is_few_data",
]
"""The columns of ``comparisons.parquet`` in the comparisons tables."""

_NUMBER = "%.3f"


def interval_rows(row: pd.Series) -> pd.DataFrame:
    """One line per metric of :data:`INTERVAL_METRICS`: mean, interval low and high."""
    return pd.DataFrame(
        {
            "metric": [title for title, _ in INTERVAL_METRICS],
            "mean": [row[column] for _, column in INTERVAL_METRICS],
            "95% low": [row[f"{column}_ci_low"] for _, column in INTERVAL_METRICS],
            "95% high": [row[f"{column}_ci_high"] for _, column in INTERVAL_METRICS],
            "note": [row[f"{column}_ci_note"] for _, column in INTERVAL_METRICS],
        }
    )


def intervals(row: pd.Series) -> None:
    """The condition's means with their 95% intervals."""
    st.subheader("Means and 95% intervals")
    st.dataframe(
        interval_rows(row),
        hide_index=True,
        width="stretch",
        column_config={
            name: st.column_config.NumberColumn(name, format=_NUMBER)
            for name in ("mean", "95% low", "95% high")
        },
    )
    st.caption(
        "Student's t interval over the replicates (a share's clipped to [0, 1], as its note "
        "says); a rate of events is widened, where it is narrower, to its binomial floor (the "
        "Wilson interval on the trials pooled over the replicates), as its note says. No "
        "interval, and the note says why, when fewer than two replicates define the metric, or "
        "every replicate gave the same value of a metric that is no rate."
    )


def comparisons(run_dir: Path, condition: str | None = None) -> None:
    """The paired comparisons of ``condition`` with the others (None: every comparison)."""
    where, params = (
        ("true", ()) if condition is None else ("? in (condition_1, condition_2)", (condition,))
    )
    rows = run_reader.mart(run_dir, PDMart.COMPARISONS, where, *params)
    st.subheader("Paired comparisons")
    if rows.empty:
        st.info("No pair of conditions is compared (comparisons.parquet has no row for it).")
        return
    st.dataframe(
        rows[COMPARISON_COLUMNS],
        hide_index=True,
        width="stretch",
        column_config={
            name: st.column_config.NumberColumn(name, format=_NUMBER)
            for name in ("mean_difference", "ci_low", "ci_high")
        }
        | {
            # a p-value may be as small as 2.2e-308: three significant digits, never 0.000
            name: st.column_config.NumberColumn(name, format="%.3g")
            for name in ("p_value", "p_value_bh")
        },
    )
    st.caption(
        "Difference condition_1 minus condition_2, replicate by replicate (the conditions of a "
        "replicate share its length and seeds); two-sided sign-flip p-value and the interval "
        "of the same test (it excludes 0 exactly when p <= 0.05); p_value_bh: "
        "Benjamini-Hochberg over every comparison of the run; verdict: higher or lower when "
        "p_value_bh <= 0.05, else inconclusive; is_few_data: fewer than 10 replicates."
    )
