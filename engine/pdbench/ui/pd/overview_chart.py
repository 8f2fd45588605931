"""The one chart of a PD run's Overview, under its sentences: a round robin's standings (each
agent's mean points per round with its 95% interval, in rank order, from
``tournament_standings.parquet``), otherwise cooperation per condition and seat with its 95%
interval (the condition rows of ``aggregates.parquet``). Each has a caption saying what the
marks are, and the same numbers as a table a click away."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.column_labels import format_cell
from pdbench.pd.marts import PDMart
from pdbench.storage.schema import RunManifest
from pdbench.ui import run_reader
from pdbench.ui.effect_chart import FIT_WIDTH, effect_intervals
from pdbench.ui.page_parts import chart_as_table
from pdbench.ui.pd import charts, reader
from pdbench.ui.pd.tournament import is_round_robin

__all__ = ["overview_chart"]

_LOW, _HIGH = "mean_score_per_round_ci_low", "mean_score_per_round_ci_high"


def _standings(run_dir: Path) -> None:
    standings = run_reader.mart(run_dir, PDMart.TOURNAMENT_STANDINGS)
    if standings.empty:
        st.info(
            f"No standings chart: {PDMart.TOURNAMENT_STANDINGS} has no row (no finished "
            "match between different agents)."
        )
        return
    if _LOW not in standings.columns:  # built by an older pdbench: no interval to draw
        standings = standings.assign(**{_LOW: None, _HIGH: None})
    placed = standings.assign(
        place=[
            f"{'—' if pd.isna(rank) else int(rank)} · {agent}"
            for rank, agent in zip(standings["overall_rank"], standings["agent"], strict=True)
        ]
    )
    st.subheader("Standings")
    st.altair_chart(
        effect_intervals(
            placed,
            label="place",
            effect=("mean_score_per_round", "mean points per round"),
            interval=(_LOW, _HIGH),
            axis_title="mean points per round (points)",
            drawn_with="mean_score_per_round",
            zero_rule=False,
        ).properties(autosize=FIT_WIDTH),
        width="stretch",
        alt="Standings, mean points per round in rank order: "
        + ", ".join(
            f"{place} {format_cell('mean_score_per_round', mean)}"
            for place, mean in zip(placed["place"], placed["mean_score_per_round"], strict=True)
        )
        + ".",
    )
    st.caption(
        "Agents in rank order, best on top. Point: the agent's mean points per round over its "
        "matches (self-play left out); whisker: its 95% interval over replicates (Student's "
        "t; none where a replicate alone gives no interval). Points per round, as the payoff "
        "matrix pays them."
    )
    chart_as_table(
        standings, ["overall_rank", "agent", "mean_score_per_round", _LOW, _HIGH, "n_replicates"]
    )


def _cooperation(run_dir: Path) -> None:
    rows = reader.condition_rows(run_dir, PDMart.AGGREGATES)
    if rows.empty:
        st.info(f"No cooperation chart: {PDMart.AGGREGATES} has no condition row.")
        return
    bars = charts.side_bars(rows, "cooperation_rate")
    st.subheader("Cooperation by condition and seat")
    st.altair_chart(
        charts.condition_bars(bars, title="cooperation rate", percent=True),
        width="stretch",
        alt="Cooperation rate per condition and seat: "
        + "; ".join(
            f"{condition} {agent} {format_cell('cooperation_rate', value)}"
            for condition, agent, value in zip(
                bars["condition"], bars["agent"], bars["value"], strict=True
            )
        )
        + ".",
    )
    st.caption(
        "Bar: the share of a seat's moves that were C (cooperate), in percent, mean over the "
        "condition's replicates (agent A blue, agent B orange); black whisker: its 95% "
        "interval (none where every replicate gave the same value)."
    )
    chart_as_table(
        bars,
        ["condition", "agent", "value", "ci_low", "ci_high"],
        titles={"value": "cooperation rate", "ci_low": "95% low", "ci_high": "95% high"},
        formats={"value": "share", "ci_low": "share", "ci_high": "share"},
    )


def overview_chart(run_dir: Path, manifest: RunManifest) -> None:
    """The Overview's chart of the PD run in ``run_dir``: the standings of a round robin,
    otherwise cooperation per condition and seat; a note saying why when the mart is empty."""
    if is_round_robin(manifest):
        _standings(run_dir)
    else:
        _cooperation(run_dir)
