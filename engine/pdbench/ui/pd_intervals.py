"""The intervals and paired comparisons of a PD run (docs/metrics.md, "Is the difference
real?"): the 95% interval next to each condition mean (``aggregates.parquet``) and
the comparisons of conditions (``comparisons.parquet``), every number as the mart holds it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.column_labels import label
from pdbench.pd.metrics import pd_metrics
from pdbench.storage.marts import PDMart
from pdbench.ui import run_reader
from pdbench.ui.page_parts import labelled_columns

__all__ = ["COMPARISON_COLUMNS", "INTERVAL_METRICS", "comparisons", "interval_rows", "intervals"]

INTERVAL_METRICS: list[tuple[str, str]] = [
    (label, column)
    for metric in pd_metrics().where(interval=("t",))
    for column, label in metric.labelled_columns()
]
"""The means the condition page shows with their t intervals (the memory-one shares have their
own chart), from the metric catalogue: title, ``aggregates.parquet`` column (its interval:
``<column>_ci_low``, ``<column>_ci_high``)."""

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
        column_config=labelled_columns(COMPARISON_COLUMNS)
        | {
            # a p-value may be as small as 2.2e-308: three significant digits, never 0.000
            name: st.column_config.NumberColumn(label(name), format="%.3g")
            for name in ("p_value", "p_value_bh")
        },
    )
    st.caption(
        "Difference first condition minus second, replicate by replicate (the conditions of a "
        "replicate share its length and seeds); two-sided sign-flip p-value and the interval "
        "of the same test (it excludes 0 exactly when p <= 0.05); p, Benjamini-Hochberg: "
        "over every comparison of the run; verdict: higher or lower when that p <= 0.05, "
        "else inconclusive; few data: fewer than 10 replicates."
    )
