"""The Tournament page of a PD run: the standings with every match's score beside the mean,
the payoff matrix and the responses to noise. Only a round robin (every agent meets every
other) ranks its agents: elsewhere the agents met different opponents, and the page says so
instead of ranking them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.pd.marts import PDMart
from pdbench.pd.validity import is_mostly_fallback, standing_name
from pdbench.storage.schema import RunManifest
from pdbench.ui import run_reader
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.page_parts import nothing_to_show, show_table
from pdbench.ui.pd import charts, standings_chart

__all__ = ["STANDINGS_COLUMNS", "is_round_robin", "page"]

STANDINGS_COLUMNS = [
    "overall_rank",
    "agent",
    "mean_score_per_round",
    "mean_score_per_round_ci_low",
    "mean_score_per_round_ci_high",
    "n_wins",
    "median_rank",
    "cooperation_rate",
    "agent_fallback_move_share",
    "n_matches",
    "n_replicates",
    "mean_score_per_round_ci_note",
]
"""The columns of ``tournament_standings.parquet`` in the standings table (a run that is no
round robin: without the ranks)."""


def is_round_robin(manifest: RunManifest) -> bool:
    """Whether the run's conditions are a round robin (its config's ``round_robin``)."""
    return bool(manifest.config.get("round_robin"))


def _marked(table: pd.DataFrame) -> pd.DataFrame:
    """The standings with each agent whose moves were mostly fallbacks marked so in its name
    (:func:`pdbench.pd.validity.standing_name`), and a warning naming them: their places are
    their fallbacks', not the models' play."""
    if "agent_fallback_move_share" not in table.columns:  # built by an older pdbench
        return table
    shares = [
        None if pd.isna(share) else float(share) for share in table["agent_fallback_move_share"]
    ]
    if any(is_mostly_fallback(share) for share in shares):
        st.warning(
            "Some agents' moves were mostly fallbacks after invalid replies (marked in the "
            "table): their places rank their fallback action, not the model's play."
        )
    return table.assign(
        agent=[
            standing_name(str(agent), share)
            for agent, share in zip(table["agent"], shares, strict=True)
        ]
    )


def page(run_dir: Path, manifest: RunManifest) -> None:
    """The Tournament page of the PD run in ``run_dir``."""
    st.header("Tournament")
    table = run_reader.mart(run_dir, PDMart.TOURNAMENT_STANDINGS)
    if nothing_to_show(table, "No finished match between different agents."):
        return
    ranked = is_round_robin(manifest)
    st.subheader("Standings" if ranked else "Scores by agent")
    if ranked:
        st.caption(
            "Mean score per round over all an agent's matches except self-play (each match "
            "weighs the same) with its 95% interval: Student's t over the agent's mean score "
            "in each replicate (a replicate replays the whole round robin with its own seeds; "
            "its matches differ by opponent on purpose). Wins, median rank across replicates."
        )
    else:
        st.info(
            "Not a round robin: the agents met different opponents, so their scores are not "
            "ranked against each other. Give the config a `round_robin` section to rank them."
        )
    # a mart built by an older pdbench lacks the interval columns: shown without them
    columns = [
        column
        for column in STANDINGS_COLUMNS
        if column in table.columns and (ranked or "rank" not in column)
    ]
    show_table(
        _marked(table), columns, pinned=("overall_rank", "agent"), height=35 * (len(table) + 1) + 3
    )
    scores = run_reader.mart(run_dir, PDMart.TOURNAMENT_MATCH_SCORES, "not is_self_play")
    if not scores.empty:
        st.altair_chart(
            standings_chart.standings_spread(scores, table),
            width="stretch",
            alt=chart_alt(
                "Each agent's score per round across its matches and replicates, with its mean "
                "and 95% interval; means",
                value_marks(table, table["agent"], "mean_score_per_round"),
            ),
        )
        spread = (
            "A box per agent (self-play left out; more than "
            f"{standings_chart.MOST_POINTS_PER_AGENT} matches an agent): the quartiles of its "
            "score per round across its matches and replicates, the whiskers its lowest and "
            "highest"
            if standings_chart.spread_as_boxes(scores)
            else "A point per match (self-play left out): the spread of an agent's score per "
            "round across its matches and replicates"
        )
        st.caption(
            f"{spread}; the black tick its mean, the number above, and the black bar its 95% "
            "interval over replicates (none where the table says why)."
        )
    st.subheader("Payoff matrix")
    st.caption("Mean score per round of the row agent against the column opponent.")
    matrix = run_reader.mart(run_dir, PDMart.TOURNAMENT_PAYOFF_MATRIX)
    st.altair_chart(
        charts.payoff_heatmap(matrix, table["agent"].tolist()),
        width="content",
        alt=chart_alt(
            "Payoff matrix, mean score per round of each agent against each opponent",
            value_marks(
                matrix,
                matrix["agent"].astype(str) + " against " + matrix["opponent"].astype(str),
                "mean_score_per_round",
            ),
        ),
    )
    noise = run_reader.mart(run_dir, PDMart.TOURNAMENT_NOISE_RESPONSES)
    if not noise.empty:
        st.subheader("Responses to noise")
        st.caption(
            "After a flip of its own action or of its opponent's, how often the agent meant "
            "to cooperate in the next round."
        )
        show_table(noise, pinned=("agent",))
