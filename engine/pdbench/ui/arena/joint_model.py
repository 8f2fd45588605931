"""The joint models of the judgements on the Judges page (``joint_model.parquet``): for
absolute and for pairwise judging, every effect fitted together, with its 95% interval, and
what the data could not give."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd
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


_JUDGINGS = {
    "absolute": (
        "Absolute judging: every 0..10 judgement fitted at once: the answerer's quality, the "
        "judge's leniency, each judge's name and position bias (its arms over its plain "
        "scores) and the answers' length and markdown, with the questions' difficulty taken "
        "out. Points of 0..10, quality and leniency against the mean player and judge.",
        "points of 0..10",
    ),
    "pairwise": (
        "Pairwise judging: every verdict fitted at once, the self and name arms' too: the "
        "players' strengths, each judge's pull to the answer shown first and to its own "
        "answer, each player's pull when its name is shown, and the answers' length and "
        "markdown. Elo points (173.7 per unit of log-odds), strengths and name pulls against "
        "the mean player.",
        "Elo points",
    ),
}
"""Per kind of judging: what the model holds, and the unit of its effects."""


def joint_model_section(run_dir: Path) -> None:
    """For each kind of judging the run holds, its effects fitted together: the effects in
    the model's unit charted (style per unit in the table), every effect the data give in the
    table, the others named with why; nothing when the run has no judgement to fit."""
    effects = run_reader.mart(run_dir, ArenaMart.JOINT_MODEL)
    if effects.empty:
        return
    st.subheader("One model for the biases")
    st.caption(
        "Each effect is fitted together with every other, with its 95% bootstrap interval "
        "over questions (docs/arena_ratings.md, 'One model for the biases')."
    )
    for judging, (caption, unit) in _JUDGINGS.items():
        rows = effects[effects["judging"] == judging]
        if not rows.empty:
            _judging_effects(rows, caption, unit)


def _judging_effects(effects: pd.DataFrame, caption: str, unit: str) -> None:
    st.caption(caption)
    given = effects[effects["is_estimable"].fillna(False).astype(bool)]
    charted = given[given["effect_kind"] != "style"]
    if not charted.empty:
        st.altair_chart(
            effect_intervals(
                charted,
                label="effect_label",
                effect=("joint_effect", "effect"),
                interval=("joint_effect_ci_low", "joint_effect_ci_high"),
                axis_title=f"effect ({unit}), 95% interval",
                extra_tooltip=[alt.Tooltip("effect_unit:N", title="unit")],
                drawn_with="joint_effect",
            ),
            width="stretch",
            alt=chart_alt(
                f"Joint model: effects in {unit}, with 95% intervals",
                value_marks(charted, charted["effect_label"], "joint_effect"),
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
