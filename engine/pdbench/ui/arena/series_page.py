"""The viewer of a series of arena tournaments (``pdbench leaderboard``'s folder): the
combined ranking and each player's progression. It only reads the series' marts."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import duckdb
import pandas as pd
import streamlit as st

from pdbench.arena.marts import SeriesMart
from pdbench.column_labels import number_spec
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.ui import overview_page
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.page_parts import show_table
from pdbench.ui.palette import name_scale

__all__ = ["page", "progression_chart"]


def _read(path: Path) -> pd.DataFrame:
    with duckdb.connect() as con:
        return con.execute(
            "select * from read_parquet(?) where player is not null", [duckdb_path(path)]
        ).df()


def progression_chart(progression: pd.DataFrame, *, adjusted: bool) -> alt.LayerChart:
    """One line per player across the tournaments, with each tournament's 95% interval."""
    prefix = "adjusted_" if adjusted else ""
    score, low, high = f"{prefix}score", f"{prefix}ci_low", f"{prefix}ci_high"
    base = alt.Chart(progression).encode(
        x=alt.X("tournament_index:O", title="tournament"),
        color=alt.Color(
            "player:N", title="player", scale=name_scale(progression["player"].dropna())
        ),
    )
    title = "adjusted score (points, 0-10)" if adjusted else "score (points, 0-10)"
    lines = base.mark_line(point=True).encode(
        y=alt.Y(f"{score}:Q", title=title),
        tooltip=[
            alt.Tooltip("player:N", title="player"),
            alt.Tooltip("model:N", title="model"),
            alt.Tooltip("run_id:N", title="tournament run"),
            alt.Tooltip(f"{score}:Q", title=title, format=number_spec(score)),
            alt.Tooltip(f"{low}:Q", title="95% low", format=number_spec(score)),
            alt.Tooltip(f"{high}:Q", title="95% high", format=number_spec(score)),
            alt.Tooltip(
                "offset_score:Q",
                title="tournament offset",
                format=number_spec("offset_score", signed=True),
            ),
            alt.Tooltip("rank_in_tournament:Q", title="rank in the tournament"),
        ],
    )
    bars = base.mark_errorbar(ticks=True).encode(y=alt.Y(f"{low}:Q", title=title), y2=f"{high}:Q")
    return alt.LayerChart(layer=[bars, lines])


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
    show_table(
        players,
        shown,
        pinned=("overall_rank", "player"),
        titles={
            "mean_score": "mean adjusted score (points)",
            "ci_low": "mean, 95% low",
            "ci_high": "mean, 95% high",
            "score_sd": "spread around the mean (sd, points)",
        },
    )
    st.subheader("Progression")
    adjusted = st.toggle(
        "Adjust for each tournament's offset",
        value=True,
        key="series_adjusted",
        help="Subtract how much easier the tournament scored its anchors: the players of "
        "every tournament.",
    )
    score = "adjusted_score" if adjusted else "score"
    st.altair_chart(
        progression_chart(progression, adjusted=adjusted),
        width="stretch",
        alt=chart_alt(
            f"Each player's {'adjusted ' if adjusted else ''}score by tournament, with its 95% "
            "interval",
            value_marks(
                progression,
                progression["player"].astype(str)
                + " in tournament "
                + progression["tournament_index"].astype(str),
                score,
            ),
        ),
    )
    offsets = progression.drop_duplicates("tournament_index")[
        ["tournament_index", "run_id", "offset_score", "n_anchors"]
    ]
    show_table(offsets, pinned=("tournament_index",))
