"""The one chart of an arena run's Overview, under its sentences: the leaderboard (each ranked
player's score with its 95% interval, its rank interval beside its name, from
``leaderboard.parquet``), or for a run judged in pairs only (an import such as the Language
Model Council) the Bradley-Terry ranking (``bradley_terry.parquet``). Each has a caption
saying what the marks are, and the same numbers as a table a click away."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import format_cell
from pdbench.ui import run_reader
from pdbench.ui.arena import charts
from pdbench.ui.effect_chart import FIT_WIDTH, effect_intervals
from pdbench.ui.page_parts import chart_as_table

__all__ = ["overview_chart", "with_rank_intervals"]


def _rank_range(low: object, high: object) -> str:
    if pd.isna(low) or pd.isna(high):
        return "rank interval —"
    low, high = int(low), int(high)  # type: ignore[call-overload]
    return f"rank {low}" if low == high else f"ranks {low}–{high}"


def with_rank_intervals(board: pd.DataFrame) -> pd.DataFrame:
    """``board`` (rows of leaderboard.parquet or bradley_terry.parquet) with ``place``: the
    player and the ranks its 95% interval holds, ``p0 · ranks 1–2``."""
    return board.assign(
        place=[
            f"{player} · {_rank_range(low, high)}"
            for player, low, high in zip(
                board["player"], board["rank_ci_low"], board["rank_ci_high"], strict=True
            )
        ]
    )


def _alt_text(title: str, board: pd.DataFrame, column: str) -> str:
    """The chart in one sentence: each place and its value, best first."""
    placed = with_rank_intervals(board)
    values = (
        f"{place} {format_cell(column, value)}"
        for place, value in zip(placed["place"], placed[column], strict=True)
    )
    return f"{title}, best first: {', '.join(values)}."


def _leaderboard(board: pd.DataFrame) -> None:
    st.subheader("Leaderboard")
    st.altair_chart(
        charts.leaderboard_intervals(with_rank_intervals(board).assign(player=lambda b: b.place)),
        width="stretch",
        alt=_alt_text("Leaderboard, mean normalised score (0 to 10)", board, "score"),
    )
    st.caption(
        "Players best first, each name with the ranks its 95% interval holds. Point: the mean "
        "normalised score of the player's answers (points, 0 to 10; every judge's mean is 5); "
        "bar: its 95% bootstrap interval over questions."
    )
    chart_as_table(
        board, ["rank", "player", "score", "ci_low", "ci_high", "rank_ci_low", "rank_ci_high"]
    )


def _bradley_terry(board: pd.DataFrame) -> None:
    st.subheader("Bradley-Terry ranking from pairwise verdicts")
    st.altair_chart(
        effect_intervals(
            with_rank_intervals(board),
            label="place",
            effect=("elo", "Elo-style strength"),
            interval=("elo_ci_low", "elo_ci_high"),
            axis_title="strength (Elo-style points; 100 more = preferred in 64% of verdicts)",
            drawn_with="elo",
            zero_rule=False,
        ).properties(autosize=FIT_WIDTH),
        width="stretch",
        alt=_alt_text("Bradley-Terry ranking, Elo-style strength", board, "elo"),
    )
    st.caption(
        "Players best first, each name with the ranks its 95% interval holds. Point: the "
        "player's Bradley-Terry strength fitted to the pairwise verdicts (Elo-style points, "
        "anchored at 1000); bar: its 95% bootstrap interval over questions."
    )
    chart_as_table(
        board,
        ["rank", "player", "elo", "elo_ci_low", "elo_ci_high", "rank_ci_low", "rank_ci_high"],
    )


def overview_chart(run_dir: Path) -> None:
    """The Overview's chart of the arena run in ``run_dir``: its leaderboard, or its
    Bradley-Terry ranking when no player has a scored answer; a note saying why when both
    marts are empty."""
    board = run_reader.mart(run_dir, ArenaMart.LEADERBOARD)
    if not board.empty:
        ranked = board.dropna(subset=["score"])
        if not ranked.empty:
            _leaderboard(ranked)
            return
    pairwise = run_reader.mart(run_dir, ArenaMart.BRADLEY_TERRY)
    if not pairwise.empty:
        _bradley_terry(pairwise)
        return
    st.info(
        f"No leaderboard chart: {ArenaMart.LEADERBOARD} holds no scored answer and "
        f"{ArenaMart.BRADLEY_TERRY} no pairwise verdict."
    )
