"""The viewer of a series of arena tournaments (``pdbench leaderboard``'s folder): the
combined ranking and each player's progression. It only reads the series' marts."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import duckdb
import pandas as pd
import streamlit as st

from pdbench.storage.marts import SeriesMart
from pdbench.ui import overview_page

__all__ = ["page", "progression_chart"]


def _read(path: Path) -> pd.DataFrame:
    with duckdb.connect() as con:
        return con.execute(
            "select * from read_parquet(?) where player is not null", [str(path)]
        ).df()


def progression_chart(progression: pd.DataFrame, *, adjusted: bool) -> alt.LayerChart:
    """One line per player across the tournaments, with each tournament's 95% interval."""
    prefix = "adjusted_" if adjusted else ""
    score, low, high = f"{prefix}score", f"{prefix}ci_low", f"{prefix}ci_high"
    base = alt.Chart(progression).encode(
        x=alt.X("tournament_index:O", title="tournament"),
        color=alt.Color("player:N", title="player"),
    )
    lines = base.mark_line(point=True).encode(
        y=alt.Y(f"{score}:Q", title="adjusted score" if adjusted else "score"),
        tooltip=[
            "player:N",
            "model:N",
            "run_id:N",
            alt.Tooltip(f"{score}:Q", format=".2f"),
            alt.Tooltip("offset_score:Q", title="tournament offset", format="+.2f"),
            "rank_in_tournament:Q",
        ],
    )
    bars = base.mark_errorbar().encode(y=alt.Y(f"{low}:Q"), y2=f"{high}:Q")
    return alt.layer(bars, lines)


def page(series_dir: Path) -> None:
    """Everything the viewer shows of the series in ``series_dir``."""
    players = _read(series_dir / SeriesMart.PLAYERS)
    progression = _read(series_dir / SeriesMart.PROGRESSION)
    n = progression["tournament_index"].nunique() if not progression.empty else 0
    st.title("Arena series")
    st.caption(f"{n} tournaments · `{series_dir}`")
    if players.empty:
        st.info("No player was scored on enough judgements in these tournaments.")
        return
    overview_page.page(series_dir, page_key=None)
    st.subheader("Combined ranking")
    st.caption(
        "Mean adjusted score over the tournaments a player was scored in, with a 95% t "
        "interval; trend in points per tournament (from 3 tournaments); consistency as the "
        "spread around the mean and around the trend."
    )
    shown = [
        "overall_rank", "player", "model", "n_tournaments", "mean_score", "ci_low", "ci_high",
        "rank_ci_low", "rank_ci_high", "trend", "trend_ci_low", "trend_ci_high", "score_sd",
        "residual_sd",
    ]  # fmt: skip
    st.dataframe(players[shown], hide_index=True, width="stretch")
    st.subheader("Progression")
    adjusted = st.toggle(
        "Adjust for each tournament's offset",
        value=True,
        key="series_adjusted",
        help="Subtract how much easier the tournament scored its anchors: the players of "
        "every tournament.",
    )
    st.altair_chart(progression_chart(progression, adjusted=adjusted), width="stretch")
    offsets = progression.drop_duplicates("tournament_index")[
        ["tournament_index", "run_id", "offset_score", "n_anchors"]
    ]
    st.dataframe(offsets, hide_index=True, width="stretch")
