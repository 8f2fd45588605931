"""The joint model of absolute judging on the Judges page (``joint_model.parquet``): every
effect fitted together, with its 95% interval, and what the data could not give."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import streamlit as st

from pdbench.arena.marts import ArenaMart
from pdbench.model_text import escaped
from pdbench.ui import run_reader
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.effect_chart import effect_intervals
from pdbench.ui.page_parts import show_table

__all__ = ["JOINT_COLUMNS", "joint_model_section"]

JOINT_COLUMNS = [
    "effect_label",
    "joint_effect",
    "joint_effect_ci_low",
    "joint_effect_ci_high",
    "effect_unit",
    "n_replicates",
]
"""The table of the effects the data give: columns of ``joint_model.parquet``."""


def joint_model_section(run_dir: Path) -> None:
    """Quality, leniency, each judge's arm effects and the style effects, fitted together: the
    effects in points charted, every effect the data give in the table (a style effect per
    its unit), the others named with why; nothing when the run has no scored judgement."""
    effects = run_reader.mart(run_dir, ArenaMart.JOINT_MODEL)
    if effects.empty:
        return
    st.subheader("One model for the biases")
    st.caption(
        "Every judgement fitted at once: the answerer's quality, the judge's leniency, each "
        "judge's name and position bias (its arms over its plain scores) and the answers' "
        "length and markdown, with the questions' difficulty taken out. Points of 0..10, "
        "quality and leniency against the mean player and judge; 95% bootstrap intervals "
        "over questions (docs/arena_ratings.md, 'One model for the biases')."
    )
    given = effects[effects["is_estimable"].fillna(False).astype(bool)]
    points = given[given["effect_kind"] != "style"]
    st.altair_chart(
        effect_intervals(
            points,
            label="effect_label",
            effect=("joint_effect", "effect"),
            interval=("joint_effect_ci_low", "joint_effect_ci_high"),
            axis_title="effect (points of 0..10), 95% interval",
            extra_tooltip=[alt.Tooltip("effect_unit:N", title="unit")],
            drawn_with="joint_effect",
        ),
        width="stretch",
        alt=chart_alt(
            "Joint model: quality, leniency and arm effects, points, with 95% intervals",
            value_marks(points, points["effect_label"], "joint_effect"),
        ),
    )
    show_table(given, JOINT_COLUMNS, pinned=("effect_label",))
    missing = effects[~effects.index.isin(given.index)]
    if not missing.empty:
        st.caption(
            "Not given by this run's data: "
            + "; ".join(
                escaped(f"{row.effect_label} ({row.joint_note})") for row in missing.itertuples()
            )
            + "."
        )
