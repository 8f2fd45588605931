"""The audience's part of an arena run's leaderboard page: the players' public-opinion
scores (``audience_scores.parquet``, voted on ``pdbench audience``) next to the models'."""

from __future__ import annotations

import shlex
from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import format_cell
from pdbench.model_text import escaped
from pdbench.number_text import plural
from pdbench.ui import run_reader
from pdbench.ui.arena.verdicts import few_data_column, few_data_warning
from pdbench.ui.page_parts import points_column, show_table

__all__ = ["AUDIENCE_COLUMNS", "agreement_text", "audience_section"]

AUDIENCE_COLUMNS = [
    "audience_rank",
    "player",
    "audience_score",
    "audience_ci_low",
    "audience_ci_high",
    "is_audience_ci_clipped",
    "is_few_data",
    "model_score",
    "model_rank",
    "n_answers_voted",
    "n_votes",
]
"""The audience table: columns of ``audience_scores.parquet``."""


def audience_section(run_dir: Path) -> None:
    """The public-opinion scores of the players next to the models', when people voted."""
    scores = run_reader.mart(run_dir, ArenaMart.AUDIENCE_SCORES, "n_votes > 0")
    st.subheader("Audience")
    if scores.empty:
        serve = shlex.join(["pdbench", "audience", str(run_dir)])
        st.caption(
            "Nobody has scored this run's answers yet. The audience page collects votes from "
            f"the people invited: {escaped(serve + ' --invite N')} prints N invite links, "
            f"{escaped(serve)} serves the page."
        )
        return
    first = scores.iloc[0]
    st.caption(
        f"People's scores (0..10) of the players' answers, shown blind; 95% t intervals over "
        f"answers, cut to 0..10 where they reach past it. {agreement_text(first)}"
    )
    few_data_warning(scores, name="player", what="voted answers")
    show_table(
        scores[AUDIENCE_COLUMNS],
        column_config={
            "audience_score": points_column("public score"),
            "audience_ci_low": points_column("95% low"),
            "audience_ci_high": points_column("95% high"),
            "is_audience_ci_clipped": st.column_config.CheckboxColumn(
                "cut to 0..10", help="the t interval reached past the 0..10 scale"
            ),
            "is_few_data": few_data_column("voted answers"),
            "audience_rank": st.column_config.NumberColumn("public rank"),
            "model_score": points_column("models' score"),
            "model_rank": st.column_config.NumberColumn("models' rank"),
            "n_answers_voted": st.column_config.NumberColumn("answers voted"),
            "n_votes": st.column_config.NumberColumn("votes"),
        },
    )


def agreement_text(row: pd.Series) -> str:
    """The audience-models agreement of a row of ``audience_scores.parquet`` in words: the
    correlations, with a few-data warning, or why there are none."""
    n = int(row["n_answers_compared"])
    reason = row.get("agreement_null_reason")
    if isinstance(reason, str):
        return f"No agreement with the models over {plural(n, 'answer')}: {reason}."
    text = (
        f"Agreement with the models over {plural(n, 'answer')}: Pearson "
        f"{format_cell('agreement_pearson', row['agreement_pearson'])}, Spearman "
        f"{format_cell('agreement_spearman', row['agreement_spearman'])}"
    )
    if bool(row.get("agreement_is_few_data")):
        text += " (few data: a correlation over so few answers is mostly noise)"
    return text + "."
