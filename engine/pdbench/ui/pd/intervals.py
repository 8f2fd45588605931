"""The intervals and paired comparisons of a PD run (docs/metrics.md, "Is the difference
real?"): the 95% interval next to each condition mean (``aggregates.parquet``) and
the comparisons of conditions (``comparisons.parquet``), every number as the mart holds it."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.column_labels import format_cell, label
from pdbench.model_text import escaped
from pdbench.pd.compare import difference_text
from pdbench.pd.detectable import detectable_text
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics
from pdbench.ui import run_reader
from pdbench.ui.chart_text import chart_alt
from pdbench.ui.effect_chart import effect_intervals
from pdbench.ui.page_parts import nothing_to_show, show_table

__all__ = [
    "BH_LEVEL",
    "COMPARISON_COLUMNS",
    "INTERVAL_METRICS",
    "comparisons",
    "difference",
    "interval_rows",
    "intervals",
]

BH_LEVEL = 0.05
"""The p after Benjamini-Hochberg at or under which a difference holds."""

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
    "family",
    "verdict",
    "is_few_data",
    "minimum_detectable_difference",
]
"""The columns of ``comparisons.parquet`` in the comparisons tables."""
DIFFERENCE_COLUMNS = [
    "metric",
    "mean_difference",
    "ci_low",
    "ci_high",
    "p_value",
    "p_value_bh",
    "family",
    "verdict",
    "n_pairs",
    "minimum_detectable_difference",
    "ci_note",
]
"""The columns of ``comparisons.parquet`` under the difference of two conditions."""


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
    show_table(
        interval_rows(row),
        pinned=("metric",),
        formats=dict.fromkeys(("mean", "95% low", "95% high"), "{:.3f}"),
    )
    st.caption(
        "Student's t interval over the replicates (a share's clipped to [0, 1], as its note "
        "says); a rate of events is widened, where it is narrower, to its binomial floor (the "
        "Wilson interval on the trials pooled over the replicates), as its note says. No "
        "interval, and the note says why, when fewer than two replicates define the metric, or "
        "every replicate gave the same value of a metric that is no rate."
    )


def with_detectable(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` of ``comparisons.parquet`` whose inconclusive verdicts say what the run could
    have detected (:func:`pdbench.pd.detectable.detectable_text`)."""
    needed = {"minimum_detectable_difference", "replicates_for_interval"}
    if rows.empty or not needed <= set(rows.columns):
        return rows
    verdicts = []
    for row in rows.itertuples(index=False):
        text = ""
        if row.verdict == "inconclusive":
            text = detectable_text(
                metric=row.metric,
                n_pairs=int(row.n_pairs),
                detectable=None
                if pd.isna(row.minimum_detectable_difference)
                else float(row.minimum_detectable_difference),
                replicates_for_interval=None
                if pd.isna(row.replicates_for_interval)
                else int(row.replicates_for_interval),
            )
        verdicts.append(f"{row.verdict}: {text}" if text else row.verdict)
    return rows.assign(verdict=verdicts)


def _filtered(rows: pd.DataFrame, key: str) -> pd.DataFrame:
    """``rows`` of ``comparisons.parquet`` as the filters above the table keep them: only the
    differences that hold after Benjamini-Hochberg, only some metrics, only some conditions."""
    left, middle, right = st.columns(3)
    significant = left.toggle(
        "Only differences that hold after Benjamini-Hochberg (p, BH ≤ 0.05)",
        key=f"{key}_bh",
    )
    metrics = middle.multiselect(
        "Metrics",
        sorted(rows["metric"].unique()),
        format_func=label,
        key=f"{key}_metrics",
        placeholder="every metric",
    )
    conditions = right.multiselect(
        "Conditions",
        sorted({*rows["condition_1"], *rows["condition_2"]}),
        key=f"{key}_conditions",
        placeholder="every condition",
    )
    kept = rows
    if significant:
        kept = kept[kept["p_value_bh"].le(BH_LEVEL)]
    if metrics:
        kept = kept[kept["metric"].isin(metrics)]
    if conditions:
        kept = kept[kept["condition_1"].isin(conditions) | kept["condition_2"].isin(conditions)]
    return kept


def comparisons(run_dir: Path, condition: str | None = None) -> None:
    """The paired comparisons of ``condition`` with the others (None: every comparison), with
    filters."""
    where, params = (
        ("true", ()) if condition is None else ("? in (condition_1, condition_2)", (condition,))
    )
    rows = run_reader.mart(run_dir, PDMart.COMPARISONS, where, *params)
    st.subheader("Paired comparisons")
    if rows.empty:
        st.info("No pair of conditions is compared (comparisons.parquet has no row for it).")
        return
    shown = _filtered(rows, f"comparisons_{condition or 'all'}")
    st.caption(f"{len(shown)} of {len(rows)} comparisons.")
    show_table(
        with_detectable(shown),
        COMPARISON_COLUMNS,
        pinned=("condition_1", "condition_2", "metric"),
    )
    st.caption(
        "Difference first condition minus second, replicate by replicate (the conditions of a "
        "replicate share its length and seeds); two-sided sign-flip p-value and the interval "
        "of the same test (it excludes 0 exactly when p <= 0.05); p, Benjamini-Hochberg: "
        "within the family, primary (the config's analysis.primary; by default the "
        "cooperation of each seat) or exploratory (every other metric); verdict: higher or "
        "lower when that p <= 0.05, else inconclusive, with the smallest difference the run "
        "could detect (80% power at p <= 0.05, given its own variation); few data: fewer than "
        "10 replicates."
    )


def difference_panel(column: str) -> str:
    """The chart a metric's difference is drawn in, by its unit: every share in one
    (``share``), every other unit in its own (``points``, ``rounds``)."""
    metric = pd_metrics().metric_of(column)
    return "share" if metric.is_rate else metric.unit


def compared_pairs(run_dir: Path, conditions: list[str]) -> list[tuple[str, str]]:
    """The pairs of ``conditions`` that ``comparisons.parquet`` compares, in its order."""
    rows = run_reader.mart(run_dir, PDMart.COMPARISONS)
    shown = set(conditions)
    pairs = zip(rows["condition_1"], rows["condition_2"], strict=True) if not rows.empty else []
    return list(dict.fromkeys((a, b) for a, b in pairs if a in shown and b in shown))


def difference(run_dir: Path, conditions: list[str]) -> None:
    """Two conditions picked on the page: every metric's paired difference with its 95%
    interval, p and p after Benjamini-Hochberg, as ``comparisons.parquet`` holds them. The
    page opens on the first pair the run compared, and a first condition picked brings the
    first condition it was compared with."""
    st.subheader("Two conditions side by side")
    if len(conditions) < 2:
        st.info("One condition only: there is nothing to compare it with.")
        return
    pairs = compared_pairs(run_dir, conditions)
    left, right = st.columns(2)
    opening = conditions.index(pairs[0][0]) if pairs else 0
    first = left.selectbox("First condition", conditions, index=opening, key="difference_first")
    others = [c for c in conditions if c != first]
    partners = [b if a == first else a for a, b in pairs if first in (a, b)]
    second = right.selectbox(
        "Second condition",
        others,
        index=others.index(partners[0]) if partners else 0,
        key="difference_second",
    )
    one, two = sorted((first, second))
    rows = run_reader.mart(
        run_dir, PDMart.COMPARISONS, "condition_1 = ? and condition_2 = ?", one, two
    )
    if nothing_to_show(
        rows, f"{escaped(one)} and {escaped(two)} are not compared in comparisons.parquet."
    ):
        return
    drawn = rows.assign(
        metric_label=rows["metric"].map(label),
        panel=rows["metric"].map(difference_panel),
        p_text=[format_cell("p_value", p) for p in rows["p_value"]],
        p_bh_text=[format_cell("p_value_bh", p) for p in rows["p_value_bh"]],
    )
    # one panel per unit: a difference of shares (-1 to 1) and one of points (hundreds) on
    # one axis would put every share on the zero line
    for panel, panel_rows in drawn.groupby("panel", sort=False):
        st.altair_chart(
            effect_intervals(
                panel_rows,
                label="metric_label",
                effect=("mean_difference", "difference"),
                interval=("ci_low", "ci_high"),
                axis_title=f"{panel}: first condition minus second (paired), 95% interval",
                extra_tooltip=[
                    alt.Tooltip("p_text:N", title="p"),
                    alt.Tooltip("p_bh_text:N", title="p, BH"),
                    alt.Tooltip("verdict:N", title="verdict"),
                    alt.Tooltip("n_pairs:Q", title="paired replicates"),
                ],
                drawn_with="mean_difference",
            ),
            width="stretch",
            alt=chart_alt(
                f"{panel}: first condition minus second, paired, with 95% intervals",
                [
                    f"{name} {difference_text(mean, low, high, metric)}"
                    for name, metric, mean, low, high in zip(
                        panel_rows["metric_label"],
                        panel_rows["metric"],
                        panel_rows["mean_difference"],
                        panel_rows["ci_low"],
                        panel_rows["ci_high"],
                        strict=True,
                    )
                ],
            ),
        )
    st.caption(
        f"Each metric of {escaped(one)} minus {escaped(two)}, one chart per unit: the point the "
        "mean paired difference, the bar its 95% interval (none when the note says why). The "
        "table gives p and p after Benjamini-Hochberg within the row's family (primary or "
        "exploratory), and what an inconclusive difference could have been."
    )
    show_table(
        with_detectable(rows),
        DIFFERENCE_COLUMNS,
        pinned=("metric",),
    )
