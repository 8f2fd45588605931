"""The Tricks page of an arena run: how each player answers trick questions against ordinary
ones (``robustness.parquet``), and how many answerers each trick and each author's tricks
caught (``trick_outcomes.parquet``, ``trick_authors.parquet``; played with ``tricks``)."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.arena.marts import ArenaMart
from pdbench.model_text import escaped
from pdbench.ui import run_reader
from pdbench.ui.arena import reader
from pdbench.ui.arena.verdicts import few_data_column, few_data_warning
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.effect_chart import effect_intervals
from pdbench.ui.page_parts import nothing_to_show, points_column, share_column, show_table

__all__ = [
    "AUTHOR_COLUMNS",
    "OUTCOME_COLUMNS",
    "ROBUSTNESS_COLUMNS",
    "gap_intervals",
    "page_tricks",
    "trick_note",
]

ROBUSTNESS_COLUMNS = [
    "answerer",
    "robustness",
    "is_few_data",
    "robustness_gap",
    "gap_ci_low",
    "gap_ci_high",
    "mean_trick_score",
    "mean_ordinary_score",
    "n_trick_answers",
    "n_ordinary_answers",
    "n_fell",
    "share_fell",
]
"""The robustness table: columns of ``robustness.parquet``."""
AUTHOR_COLUMNS = [
    "author",
    "share_fell",
    "n_fell",
    "n_trick_answers",
    "n_tricks",
    "n_nobody_fell",
    "n_everybody_fell",
    "n_discriminating",
]
"""The trick authors table: columns of ``trick_authors.parquet``."""
OUTCOME_COLUMNS = [
    "author",
    "trick_kind",
    "outcome",
    "n_fell",
    "n_answerers",
    "mean_score",
    "question_text",
    "trick_note",
    "question_id",
]
"""The trick outcomes table: columns of ``trick_outcomes.parquet``."""


def gap_intervals(rows: pd.DataFrame) -> alt.LayerChart:
    """Each answerer's robustness gap (point) and its 95% Welch interval (bar), with a rule
    at 0: left of it, tricks catch the player."""
    return effect_intervals(
        rows,
        label="answerer",
        effect=("robustness_gap", "gap"),
        interval=("gap_ci_low", "gap_ci_high"),
        axis_title="score on tricks − on ordinary questions (normalised)",
    )


def trick_note(run_dir: Path, question_id: str) -> None:
    """Above a trick question's answers: its kind, its author's note and how many fell."""
    trick = reader.of_question(run_dir, ArenaMart.TRICK_OUTCOMES, question_id)
    if trick.empty:
        return
    row = trick.iloc[0]
    note = escaped(row["trick_note"]) if isinstance(row["trick_note"], str) else "(no note written)"
    kind = escaped(str(row["trick_kind"]).replace("_", " "))
    st.info(
        f"**Trick question** ({kind}), not told to the answerers. Author's note: {note}  \n"
        f"{int(row['n_fell'])} of {int(row['n_answerers'])} answerers fell for it: "
        f"{escaped(row['outcome'])}."
    )


def page_tricks(run_dir: Path) -> None:
    """The robustness intervals and table, the authors' and the tricks' outcomes."""
    rows = run_reader.mart(run_dir, ArenaMart.ROBUSTNESS)
    outcomes = run_reader.mart(run_dir, ArenaMart.TRICK_OUTCOMES)
    st.header("Tricks")
    if nothing_to_show(outcomes, "No trick questions: this run was played without `tricks`."):
        return
    st.caption(
        "A share of every player's questions were tricks (false premise, unanswerable, "
        "ambiguous, misleading) with a private note of the correct handling, shown to raters "
        "and judges, never to answerers. Gap: mean normalised score on other players' tricks "
        "minus on their ordinary questions, with a 95% Welch interval; an answer fell for a "
        "trick when scored below the run's `fell_below`."
    )
    st.subheader("Robustness per answerer")
    margin = rows["label_margin"].dropna()
    margin_text = f"{margin.iloc[0]:g}" if not margin.empty else "1"
    st.caption(
        "Verdict: *caught by tricks* when the interval lies below 0, *better on tricks* above "
        f"0, *robust* only when its low end is at or above −{margin_text} point (tricks cost it "
        "at most that), *inconclusive* otherwise; *insufficient data* under 2 answers a side."
    )
    few_data_warning(rows, name="answerer", what="answers on tricks or on ordinary questions")
    st.altair_chart(
        gap_intervals(rows),
        width="stretch",
        alt=chart_alt(
            "Each answerer's robustness gap (score on tricks minus on ordinary questions) with "
            "its 95% interval",
            value_marks(rows, rows["answerer"], "robustness_gap"),
        ),
    )
    show_table(
        rows[ROBUSTNESS_COLUMNS],
        column_config={
            "is_few_data": few_data_column("answers on a side"),
            "robustness_gap": points_column("gap"),
            "gap_ci_low": points_column("95% low"),
            "gap_ci_high": points_column("95% high"),
            "mean_trick_score": points_column("on tricks"),
            "mean_ordinary_score": points_column("on ordinary"),
            "share_fell": share_column("fell"),
        },
    )
    st.subheader("Whose tricks bite")
    authors = run_reader.mart(run_dir, ArenaMart.TRICK_AUTHORS)
    show_table(
        authors[AUTHOR_COLUMNS], column_config={"share_fell": share_column("answers that fell")}
    )
    st.subheader("Every trick")
    st.caption(
        "A trick nobody fell for may be too easy; one everybody failed may be unfair or "
        "unanswerable as written; a discriminating one separates the answerers."
    )
    show_table(
        outcomes[OUTCOME_COLUMNS],
        column_config={"mean_score": points_column("mean score")},
        titles={"question_id": "question"},
    )
