"""The arena viewer's Budgets page: each player's score against what it spent answering
(budget_curves.parquet), families of budget variants joined by a line, the cost-efficiency
frontier marked."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import number_spec
from pdbench.ui import run_reader
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.page_parts import nothing_to_show, show_table

__all__ = ["budget_chart", "page"]


def budget_chart(curves: pd.DataFrame) -> alt.LayerChart:
    """Score against answer tokens: a point per player (filled on the frontier), a line
    through each family's variants in order of what they spent."""
    base = alt.Chart(curves).encode(
        x=alt.X("answer_tokens:Q", title="tokens spent answering (in + out)"),
        y=alt.Y("score:Q", title="score"),
        color=alt.Color("family_name:N", title="family"),
    )
    lines = base.mark_line().encode(detail="family_name:N", order="answer_tokens:Q")
    points = base.mark_point(size=90).encode(
        shape=alt.Shape("is_token_frontier:N", title="on the frontier"),
        tooltip=[
            "player:N",
            "budget:N",
            alt.Tooltip("score:Q", format=number_spec("score")),
            "answer_tokens:Q",
            alt.Tooltip("answer_cost_usd:Q", title="answer cost (USD)", format=".4f"),
            alt.Tooltip(
                "score_gain_per_1k_tokens:Q",
                title="gain / 1k tokens",
                format=number_spec("score_gain_per_1k_tokens"),
            ),
        ],
    )
    return alt.LayerChart(layer=[lines, points])


def page(run_dir: Path) -> None:
    """The Budgets page of the arena run in ``run_dir``."""
    st.header("Budgets")
    curves = run_reader.mart(run_dir, ArenaMart.BUDGET_CURVES)
    if nothing_to_show(curves, "No scored player yet."):
        return
    st.caption(
        "Each player's score against the tokens it spent answering, the phase its score "
        "measures. A family is one player entry expanded by `budgets`; the frontier holds the "
        "players no other beat on both score and tokens."
    )
    st.altair_chart(
        budget_chart(curves),
        width="stretch",
        alt=chart_alt(
            "Each player's score against the tokens it spent answering",
            [
                f"{mark} at {tokens} answer tokens"
                for mark, tokens in zip(
                    value_marks(curves, curves["player"], "score"),
                    curves["answer_tokens"],
                    strict=True,
                )
            ],
        ),
    )
    shown = [
        "player", "family_name", "budget", "score", "rank", "answer_tokens", "answer_cost_usd",
        "tokens_total", "cost_usd", "is_token_frontier", "score_gain_per_1k_tokens",
    ]  # fmt: skip
    show_table(curves[shown])
