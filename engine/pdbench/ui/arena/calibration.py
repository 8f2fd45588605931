"""The Calibration page of an arena run: how well each player predicts the score of its own
answers (``calibration.parquet``, played with ``self_assessment: true``)."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import number_spec
from pdbench.ui import run_reader
from pdbench.ui.arena.verdicts import few_data_column, few_data_warning
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.effect_chart import effect_intervals
from pdbench.ui.page_parts import nothing_to_show, points_column, show_table
from pdbench.ui.palette import name_scale

__all__ = [
    "CALIBRATION_COLUMNS",
    "page_calibration",
    "predicted_vs_actual",
    "signed_error_intervals",
]

CALIBRATION_COLUMNS = [
    "player",
    "confidence",
    "is_few_data",
    "n",
    "mean_predicted",
    "mean_actual",
    "mean_signed_error",
    "signed_error_ci_low",
    "signed_error_ci_high",
    "mean_absolute_error",
    "absolute_error_ci_low",
    "absolute_error_ci_high",
    "is_absolute_error_ci_clipped",
    "pearson_r",
    "pearson_r_ci_low",
    "pearson_r_ci_high",
    "mean_actual_normalized",
    "mean_signed_error_normalized",
    "n_assessments",
    "n_assessments_invalid",
]
"""The calibration table: columns of ``calibration.parquet``, as they are."""


def signed_error_intervals(rows: pd.DataFrame) -> alt.LayerChart:
    """Each player's mean signed error (point) and its 95% interval (bar), with a rule at 0:
    right of it, the player expects more than its answers get."""
    return effect_intervals(
        rows,
        label="player",
        effect=("mean_signed_error", "mean signed error"),
        interval=("signed_error_ci_low", "signed_error_ci_high"),
        axis_title="predicted − actual score (points, 0-10 scale)",
        extra_tooltip=[alt.Tooltip("n:Q", title="answers")],
        drawn_with="mean_signed_error",
    )


_ACTUAL = "actual score (mean of the judgements)"
_PREDICTED = "predicted score"


def predicted_vs_actual(pairs: pd.DataFrame) -> alt.LayerChart:
    """One point per answer counted (predicted against actual score), a colour per player,
    and the diagonal of perfect calibration: above it, the player expected more."""
    shown = pairs[pairs["is_paired"].fillna(False).astype(bool)]
    tooltip = [
        alt.Tooltip("player:N"),
        alt.Tooltip("answer_id:N"),
        alt.Tooltip("predicted_score:Q", title="predicted"),
        alt.Tooltip("actual_score:Q", title="actual", format=number_spec("actual_score")),
    ]
    scale = alt.Scale(domain=[0, 10])
    points = (
        alt.Chart(shown)
        .mark_circle(size=60, opacity=0.6)
        .encode(
            x=alt.X("actual_score:Q", title=_ACTUAL, scale=scale),
            y=alt.Y("predicted_score:Q", title=_PREDICTED, scale=scale),
            color=alt.Color("player:N", title="player", scale=name_scale(shown["player"].dropna())),
            tooltip=tooltip,
        )
    )
    diagonal = (
        alt.Chart(pd.DataFrame({"x": [0.0, 10.0], "y": [0.0, 10.0]}))
        .mark_line(strokeDash=[4, 4], color="grey")
        .encode(x=alt.X("x:Q", title=_ACTUAL), y=alt.Y("y:Q", title=_PREDICTED))
    )
    return alt.LayerChart(layer=[diagonal, points]).properties(height=360)


def page_calibration(run_dir: Path) -> None:
    """The calibration table and the signed-error intervals."""
    rows = run_reader.mart(run_dir, ArenaMart.CALIBRATION)
    st.header("Calibration")
    if nothing_to_show(
        rows, "No self-assessments: this run was played without `self_assessment: true`."
    ):
        return
    st.caption(
        "After answering, each player predicted the 0-10 score the judges would give each of "
        "its answers. Actual: the raw mean of the answer's valid judgements. Signed error: "
        "predicted − actual (above 0: overconfident). 95% t-intervals over answers; Pearson r "
        "with Fisher's z interval (none under 3 answers). Verdict: *overconfident* when the "
        "signed error's interval lies above 0, *underconfident* below, *calibrated* only "
        "when it lies within ±1 point, *inconclusive* otherwise."
    )
    few_data_warning(rows, name="player", what="answers with a prediction and a score")
    st.altair_chart(
        signed_error_intervals(rows),
        width="stretch",
        alt=chart_alt(
            "Each player's mean signed error (predicted minus actual score) with its 95% interval",
            value_marks(rows, rows["player"], "mean_signed_error"),
        ),
    )
    pairs = run_reader.mart(run_dir, ArenaMart.SELF_ASSESSMENT_DETAIL)
    if not pairs.empty:
        st.altair_chart(
            predicted_vs_actual(pairs),
            width="stretch",
            alt=chart_alt(
                f"Predicted against actual score, one point per answer ({len(pairs)} answers), "
                "and the diagonal of perfect calibration"
            ),
        )
    show_table(
        rows[CALIBRATION_COLUMNS],
        column_config={
            "is_few_data": few_data_column("answers"),
            "n": st.column_config.NumberColumn("answers"),
            "mean_predicted": points_column("mean predicted"),
            "mean_actual": points_column("mean actual"),
            "mean_signed_error": points_column("mean signed error"),
            "signed_error_ci_low": points_column("95% low"),
            "signed_error_ci_high": points_column("95% high"),
            "mean_absolute_error": points_column("mean absolute error"),
            "absolute_error_ci_low": points_column("MAE 95% low"),
            "absolute_error_ci_high": points_column("MAE 95% high"),
            "is_absolute_error_ci_clipped": st.column_config.CheckboxColumn(
                "MAE low cut at 0", help="the interval reached below 0 and was cut there"
            ),
            "pearson_r": points_column("Pearson r"),
            "pearson_r_ci_low": points_column("r 95% low"),
            "pearson_r_ci_high": points_column("r 95% high"),
            "mean_actual_normalized": points_column("mean actual (normalised)"),
            "mean_signed_error_normalized": points_column("signed error (normalised)"),
            "n_assessments": st.column_config.NumberColumn("self-assessments"),
            "n_assessments_invalid": st.column_config.NumberColumn("invalid"),
        },
    )
