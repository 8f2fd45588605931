"""The PD viewer's Strategies page: which known strategy each agent plays (strategy_fit.parquet),
the shares of strategies among its matches (strategy_shares.parquet, SFEM), what the
agents asked for their strategy said against what they played (stated_vs_played.parquet)
and the Ashlock fingerprints of the agents a run probed (fingerprints.parquet)."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.column_labels import number_spec
from pdbench.findings import bracket_text
from pdbench.model_text import escaped
from pdbench.pd.marts import PDMart
from pdbench.ui import run_reader
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.page_parts import nothing_to_show, show_table

__all__ = ["fingerprint_heatmap", "page"]

_FIT_COLUMNS = {
    "agent_name": st.column_config.TextColumn("agent"),
    "reference": st.column_config.TextColumn("closest strategy"),
    "distance": st.column_config.ProgressColumn(
        "distance", format="percent", min_value=0, max_value=1
    ),
    "posterior": st.column_config.ProgressColumn(
        "confidence", format="percent", min_value=0, max_value=1
    ),
    "n_rounds": st.column_config.NumberColumn("rounds"),
}


def fingerprint_heatmap(points: pd.DataFrame) -> alt.LayerChart:
    """One agent's fingerprint: its mean score per round against the probe at (x, y), y
    upwards as in Ashlock's figures."""
    base = alt.Chart(points).encode(
        x=alt.X("probe_x:O", title="x (probe cooperates)"),
        y=alt.Y("probe_y:O", title="y (probe defects)", sort="descending"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(
            "mean_score_per_round:Q", title="score / round", scale=alt.Scale(scheme="viridis")
        ),
        tooltip=[
            alt.Tooltip("probe_x:Q", title="x"),
            alt.Tooltip("probe_y:Q", title="y"),
            alt.Tooltip(
                "mean_score_per_round:Q",
                title="score / round",
                format=number_spec("mean_score_per_round"),
            ),
            alt.Tooltip("score_se:Q", title="standard error", format=".3f"),
            alt.Tooltip("cooperation_rate:Q", title="cooperation", format=".1%"),
            alt.Tooltip("n_matches:Q", title="matches"),
        ],
    )
    if points["probe_x"].nunique() > 11:
        return alt.LayerChart(layer=[cells])
    text = base.mark_text(fontSize=11).encode(
        text=alt.Text("mean_score_per_round:Q", format=number_spec("mean_score_per_round")),
        color=alt.condition(
            "datum.mean_score_per_round > 2.5", alt.value("black"), alt.value("white")
        ),
    )
    return alt.LayerChart(layer=[cells, text]).properties(width=alt.Step(44), height=alt.Step(30))


def _closest(fit: pd.DataFrame) -> pd.DataFrame:
    """One row per agent row of the mart: its closest strategies (ties joined by ' = ')."""
    closest = fit[fit["is_closest"]]
    keys = ["agent_name", "condition", "side"]
    return (
        closest.groupby(keys, dropna=False, sort=False)
        .agg(
            reference=("reference", " = ".join),
            distance=("distance", "first"),
            posterior=("posterior", "sum"),
            n_rounds=("n_rounds", "first"),
        )
        .reset_index()
    )


def _strategy_fit(run_dir: Path) -> None:
    fit = run_reader.mart(run_dir, PDMart.STRATEGY_FIT)
    if nothing_to_show(fit, "No finished match."):
        return
    st.subheader("Closest known strategy")
    st.caption(
        "Each agent's own choices (before noise; fallback moves left out) against the six "
        "classic policies and the other policies of the run, in the contexts it met. Distance: "
        "the share of its rounds in which the strategy would have chosen otherwise. "
        "Confidence: the strategy's posterior probability (uniform prior, 5% tremble); "
        "strategies that play identically in what was met share it."
    )
    agents = _closest(fit[fit["level"] == "agent"])
    show_table(agents[list(_FIT_COLUMNS)], column_config=_FIT_COLUMNS)
    with st.expander("By condition and side"):
        per_condition = _closest(fit[fit["level"] == "condition"])
        shown = ["condition", "side", *_FIT_COLUMNS]
        show_table(per_condition[shown], column_config=_FIT_COLUMNS)
    agent = st.selectbox("All strategies for", agents["agent_name"].tolist(), key="fit_agent")
    rows = fit[(fit["level"] == "agent") & (fit["agent_name"] == agent)]
    show_table(
        rows[["fit_rank", "reference", "reference_kind", "distance", "posterior"]],
        column_config={k: v for k, v in _FIT_COLUMNS.items() if k != "reference"}
        | {"reference": st.column_config.TextColumn("strategy")},
    )


def _share_rows(shares: pd.DataFrame) -> pd.DataFrame:
    """One row per agent and strategy with a share of at least 0.5% or an interval reaching
    5%: the share and the tremble as texts with their 95% intervals."""
    shown = shares[(shares["share"] >= 0.005) | (shares["share_ci_high"].fillna(0) >= 0.05)]
    return pd.DataFrame(
        {
            "agent_name": shown["agent_name"],
            "strategy": shown["strategy"],
            "share_with_interval": [
                bracket_text("share", row.share, row.share_ci_low, row.share_ci_high)
                for row in shown.itertuples()
            ],
            "tremble_with_interval": [
                bracket_text("tremble", row.tremble, row.tremble_ci_low, row.tremble_ci_high)
                for row in shown.itertuples()
            ],
            "n_matches": shown["n_matches"],
            "log_likelihood": shown["log_likelihood"],
        }
    )


def _strategy_shares(run_dir: Path) -> None:
    shares = run_reader.mart(run_dir, PDMart.STRATEGY_SHARES)
    if shares.empty:
        return
    st.subheader("Strategy shares (SFEM)")
    st.caption(
        "Each agent name's matches, pooled over conditions and sides, as a mixture of nine "
        "strategies (ALLC, ALLD, TFT, STFT, GRIM, WSLS, GTFT, TF2T, ALT) that each tremble to "
        "the other move with one fitted probability: the share of matches each strategy "
        "explains (Dal Bó and Fréchette's Strategy Frequency Estimation Method), in percent "
        "of the agent's matches, with 95% intervals from the fit's observed information. "
        "Strategies that prescribe the same in everything an agent met split its "
        "share equally. Shares under 0.5% whose interval stays under 5% are left out."
    )
    show_table(
        _share_rows(shares),
        column_config={
            "agent_name": st.column_config.TextColumn("agent"),
            "strategy": st.column_config.TextColumn("strategy"),
            "share_with_interval": st.column_config.TextColumn("share of matches [95%]"),
            "tremble_with_interval": st.column_config.TextColumn("tremble [95%]"),
            "n_matches": st.column_config.NumberColumn("matches"),
            "log_likelihood": st.column_config.NumberColumn("log-likelihood", format="%.2f"),
        },
    )


def _stated_vs_played(run_dir: Path) -> None:
    rows = run_reader.mart(run_dir, PDMart.STATED_VS_PLAYED)
    if rows.empty:
        return
    st.subheader("Stated against played")
    st.caption(
        "Each agent asked for its strategy (elicit_strategy) stated, before its first move of "
        "every match, the probability that it cooperates first and after each outcome of the "
        "round before (its own action first). Against it: the share of its rounds in that "
        "state in which it cooperated. The difference is stated minus played, with a 95% "
        "interval over the matches; 'says one thing and plays another' only where the "
        "interval excludes 0."
    )
    caught = rows[rows["is_inconsistent"]]
    for agent, states in caught.groupby("agent_name", sort=True):
        st.warning(
            f"{escaped(agent)} plays otherwise than it states in "
            + ", ".join(sorted(set(states["state"])))
        )
    show_table(
        rows,
        [
            "agent_name",
            "condition",
            "state",
            "stated_p",
            "played_p",
            "difference",
            "ci_low",
            "ci_high",
            "ci_note",
            "is_inconsistent",
            "n_matches",
        ],
    )
    earned = rows.dropna(subset=["stated_points_per_round"]).drop_duplicates(
        ["agent_name", "condition"]
    )
    if not earned.empty:
        st.caption(
            "What the stated table earns when pdbench plays it against a copy of each opponent "
            "(same draws, rounds and noise; opponents that are policies only), beside what the "
            "agent earned in the same matches."
        )
        show_table(
            earned,
            ["agent_name", "condition", "stated_points_per_round", "played_points_per_round"],
        )


def _fingerprints(run_dir: Path) -> None:
    points = run_reader.mart(run_dir, PDMart.FINGERPRINTS)
    st.subheader("Fingerprints")
    if nothing_to_show(
        points, "No fingerprint: add a `fingerprint: {agents: [...]}` section to the config."
    ):
        return
    st.caption(
        "Mean score per round of the agent against Ashlock's probe at (x, y): tit-for-tat "
        "that cooperates with probability x and defects with probability y (above the "
        "anti-diagonal, the dual probe). Corners: (0, 0) TFT, (1, 0) ALLC, (0, 1) ALLD, "
        "(1, 1) Psycho."
    )
    for agent, rows in points.groupby("agent_name", sort=True):
        st.markdown(f"**{escaped(agent)}**")
        st.altair_chart(
            fingerprint_heatmap(rows),
            width="content",
            alt=chart_alt(
                f"{agent}'s fingerprint, mean score per round against each probe (x, y)",
                value_marks(
                    rows,
                    [
                        f"({x:g}, {y:g})"
                        for x, y in zip(rows["probe_x"], rows["probe_y"], strict=True)
                    ],
                    "mean_score_per_round",
                ),
            ),
        )


def page(run_dir: Path) -> None:
    """The Strategies page of the PD run in ``run_dir``."""
    st.header("Strategies")
    _strategy_fit(run_dir)
    _strategy_shares(run_dir)
    _stated_vs_played(run_dir)
    _fingerprints(run_dir)
