"""The pages of a Prisoner's Dilemma run: one match, one condition, all conditions, the
tournament, its evolutionary dynamics, provider calls. Every number comes from a mart row as
it is; the rounds of a match are its raw records (:mod:`pdbench.ui.pd.round_inspector` shows what
was said in one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.column_labels import format_cell
from pdbench.model_text import escaped
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics
from pdbench.storage.schema import RunManifest
from pdbench.ui import overview_page, run_reader
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.formats import number_format
from pdbench.ui.page_parts import Tile, nothing_to_show, show_table, tiles
from pdbench.ui.pd import (
    charts,
    evolution,
    intervals,
    overview_chart,
    reader,
    strategies,
    tournament,
)
from pdbench.ui.pd.charts import with_agent_labels
from pdbench.ui.pd.round_inspector import round_inspector
from pdbench.ui.run_check import ViewableRun

__all__ = [
    "AGENT_COLUMNS",
    "CALL_TILES",
    "CONDITION_BARS",
    "CONDITION_TABLE",
    "CONDITION_TILES",
    "HEADLINE_TILES",
    "PAGES",
    "TIMELINE_WINDOW",
    "render",
]


def _agent_metric(name: str) -> list[tuple[str, str]]:
    """The columns of one agent's metric ``name`` shown in the per-agent table, labelled."""
    metrics = [m for m in pd_metrics().metrics if m.per_agent and m.name == name]
    shown = [m for m in metrics if m.format not in ("flag", "count") and m.condition != "pooled"]
    return [column for metric in shown for column in metric.agent_columns()]


HEADLINE_TILES: list[Tile] = [
    Tile("Cooperation", "cooperation_rate", "Share of C over both agents' actions.", "rate"),
    Tile("Mutual C", "mutual_cooperation_rate", "Share of rounds with (C, C).", "rate"),
    Tile("Mutual D", "mutual_defection_rate", "Share of rounds with (D, D).", "rate"),
    Tile(
        "Collapse at round",
        "time_to_collapse",
        "First round starting a window of k rounds with cooperation <= threshold "
        "(mean over the replicates that collapsed).",
        "round",
    ),
    Tile("Points/round A", "payoff_per_round_a", "Agent A's mean points per round.", "points"),
    Tile("Points/round B", "payoff_per_round_b", "Agent B's mean points per round.", "points"),
    Tile("Rounds", "rounds_played", "Rounds played (mean over replicates).", "mean_count"),
]
"""The metric tiles of a match or condition, from its ``aggregates.parquet`` row."""

CONDITION_TILES: list[Tile] = [
    Tile("Replicates", "n_replicates", "Ok matches behind the means."),
    Tile("Aborted", "n_aborted", "Aborted matches, excluded from every metric."),
    Tile("Incomplete", "n_incomplete", "Matches cut short by a crash, excluded."),
    Tile("Collapsed", "n_collapsed", "Replicates that collapsed (of the ok ones)."),
    Tile("Total rounds", "n_rounds", "Rounds of the ok replicates."),
]
"""Extra tiles of the condition page."""

AGENT_COLUMNS: list[tuple[str, str, str]] = [
    (label, column, number_format(pd_metrics().metric_of(column)))
    for name in pd_metrics().agent_columns
    for column, label in _agent_metric(name)
]
"""The per-agent table: title, ``agent_metrics.parquet`` column (``aggregates.parquet``'s
without its ``_a``/``_b`` suffix), number format; from the metric catalogue, every metric of
one agent but the counts, the flag and the memory-one profile (drawn as a heatmap)."""

CONDITION_TABLE = [
    "condition",
    "agent_a_name",
    "agent_b_name",
    "n_replicates",
    "n_aborted",
    "rounds_played",
    *(column for _, column in intervals.INTERVAL_METRICS),
    "n_collapsed",
]
"""The columns of ``aggregates.parquet`` in the table of every condition."""

CONDITION_BARS: list[tuple[str, str, str, bool]] = [
    ("Cooperation rate", "cooperation_rate", "cooperation rate", True),
    ("Payoff per round", "payoff_per_round", "points per round", False),
]
"""The bar charts of every condition: heading, ``agent_metrics.parquet`` column, axis title,
in percent."""

PAGES = [
    "Overview",
    "Match",
    "Condition",
    "All conditions",
    "Tournament",
    "Strategies",
    "Evolution",
    "Provider calls",
]
TIMELINE_WINDOW = 2000
"""Matches longer than this draw their timeline a window at a time."""


def _headline(row: pd.Series) -> None:
    """The headline tiles in two rows: the pair's cooperation, then the agents' points."""
    tiles(row, HEADLINE_TILES[:4])
    tiles(row, HEADLINE_TILES[4:])


def _agent_table(agents: pd.DataFrame) -> None:
    """The two agents' rows of ``agent_metrics.parquet``, one line each."""
    titles = {column: title for title, column, _ in AGENT_COLUMNS}
    show_table(
        with_agent_labels(agents),
        ["agent", "agent_kind", *titles],
        pinned=("agent",),
        per_agent=True,
        titles=titles,
    )


def _memory_one(profile: pd.DataFrame) -> None:
    st.markdown("**Memory-one profile**")
    labelled = with_agent_labels(profile)
    st.altair_chart(
        charts.memory_one_heatmap(labelled),
        width="stretch",
        alt=chart_alt(
            "Memory-one profile, P(the agent plays C) after each previous round",
            value_marks(
                labelled,
                labelled["agent"].astype(str) + " after " + labelled["previous_round"].astype(str),
                "p_cooperate",
            ),
        ),
    )
    st.caption(
        "P(the agent plays C | the previous round), its own action first (CD: it cooperated, "
        "the other defected). Grey: a state never visited."
    )


def _select_condition(conditions: list[str]) -> str:
    return st.sidebar.selectbox("Condition", conditions, key="condition")


def _select_match(run_dir: Path, conditions: list[str]) -> pd.Series | None:
    """The match chosen in the sidebar (condition, then replicate); None when the condition
    has no recorded match."""
    condition = _select_condition(conditions)
    matches = run_reader.mart(run_dir, PDMart.MATCH_LIST)
    played = matches[matches["condition"] == condition]
    if nothing_to_show(played, f"Condition {escaped(condition)} has no finished match."):
        return None
    replicate = st.sidebar.selectbox(
        "Replicate",
        played["replicate"].tolist(),
        key="replicate",
        help="0-based; all conditions of a replicate play the same number of rounds.",
    )
    return played[played["replicate"] == replicate].iloc[0]


def _timeline(rounds: pd.DataFrame) -> None:
    """Every round's actions, a window at a time for long matches."""
    st.subheader("Actions, round by round")
    last = int(rounds["round_index"].max())
    shown = rounds
    if last > TIMELINE_WINDOW:
        start, end = st.slider(
            "Rounds shown",
            1,
            last,
            (1, TIMELINE_WINDOW),
            key="window",
            help=f"Long matches are drawn {TIMELINE_WINDOW} rounds at a time.",
        )
        shown = rounds[rounds["round_index"].between(start, end)]
    st.altair_chart(
        charts.actions_timeline(shown),
        width="stretch",
        alt=chart_alt(
            f"Both agents' actions round by round, rounds {int(shown['round_index'].min())} to "
            f"{int(shown['round_index'].max())}",
            [
                f"round {index} {side.removeprefix('agent_').upper()} {action}"
                for index, side, action in zip(
                    shown["round_index"], shown["side"], shown["action"], strict=True
                )
            ],
        ),
    )
    st.caption(
        "Each cell is one round: green C (cooperate), red D (defect). A black cross marks a "
        "reply still invalid after every retry (a fallback action was played); a white dot a "
        "noise flip (the executed action differs from the intended one)."
    )


def _page_match(run_dir: Path, conditions: list[str], manifest: RunManifest) -> None:
    match = _select_match(run_dir, conditions)
    if match is None:
        return
    condition, replicate = str(match["condition"]), int(match["replicate"])
    st.header(f"{escaped(condition)} · replicate {replicate}")
    st.caption(
        f"A: {escaped(match['agent_a_name'])} ({escaped(match['agent_a_kind'])}) vs "
        f"B: {escaped(match['agent_b_name'])} ({escaped(match['agent_b_kind'])}) · "
        f"{match['rounds_played']} of {match['planned_rounds']} planned rounds · "
        f"status {escaped(match['match_status'])}"
    )
    scored = reader.replicate_aggregates(run_dir, condition, replicate)
    if match["match_status"] != "ok" or scored.empty:
        reason = f": {escaped(match['abort_reason'])}" if match["abort_reason"] else ""
        st.warning(
            f"This match is {escaped(match['match_status'])}{reason}; it is excluded from every "
            "metric."
        )
    rounds = with_agent_labels(reader.match_rounds(run_dir, str(match["match_id"])))
    if (note := reader.rounds_source(run_dir).note) is not None:
        st.info(escaped(note))
    if nothing_to_show(rounds, "No rounds were recorded for this match."):
        return
    if not scored.empty:
        _headline(scored.iloc[0])
    _timeline(rounds)
    if not scored.empty:
        st.subheader("Per agent")
        _agent_table(reader.agent_rows(run_dir, PDMart.AGENT_METRICS, condition, replicate))
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("Cumulative payoff")
        final = rounds[rounds["round_index"] == rounds["round_index"].max()]
        st.altair_chart(
            charts.cumulative_payoff(rounds),
            width="stretch",
            alt=chart_alt(
                "Each agent's cumulative payoff by round, up to round "
                f"{int(rounds['round_index'].max())}; at the end",
                value_marks(final, final["agent_name"], "agent_a_cum_payoff", values="cum_payoff"),
            ),
        )
    with right:
        if not scored.empty:
            st.subheader("Reactions")
            _memory_one(reader.agent_rows(run_dir, PDMart.MEMORY_ONE, condition, replicate))
    if match["has_llm_agent"]:
        imported_from = manifest.imported.format if manifest.imported is not None else None
        round_inspector(run_dir, str(match["match_id"]), rounds, imported_from=imported_from)


def _page_condition(run_dir: Path, conditions: list[str], rows: pd.DataFrame) -> None:
    condition = _select_condition(conditions)
    row = rows[rows["condition"] == condition].iloc[0]
    st.header(f"{escaped(condition)} · all replicates")
    st.caption(
        f"A: {escaped(row['agent_a_name'])} ({escaped(row['agent_a_kind'])}) vs "
        f"B: {escaped(row['agent_b_name'])} ({escaped(row['agent_b_kind'])}) · means over "
        "replicates, each replicate weighing the same"
    )
    tiles(row, CONDITION_TILES)
    _headline(row)
    st.markdown("**Per agent**")
    _agent_table(reader.agent_rows(run_dir, PDMart.AGENT_METRICS, condition, None))
    _memory_one(reader.agent_rows(run_dir, PDMart.MEMORY_ONE, condition, None))
    intervals.intervals(row)
    intervals.comparisons(run_dir, condition)
    st.subheader("Cooperation over time")
    both, each = reader.cooperation_over_time(run_dir, condition)
    if nothing_to_show(both, "No finished match in this condition."):
        return
    st.altair_chart(
        charts.cooperation_over_time(both, with_agent_labels(each)),
        width="stretch",
        alt=chart_alt(
            "Cooperation of both agents by round, mean over the replicates that reached it",
            value_marks(both, "round " + both["round_index"].astype(str), "cooperation_rate"),
        ),
    )
    st.altair_chart(
        charts.replicates_playing(both),
        width="stretch",
        alt=chart_alt(
            "Replicates still playing by round",
            [
                f"round {r} {n}"
                for r, n in zip(both["round_index"], both["n_replicates"], strict=True)
            ],
        ),
    )
    st.caption(
        "Black: cooperation of both agents, mean over the replicates that reached the round; "
        f"dashed: each agent; shaded: rounds fewer than {charts.FEW_REPLICATES} replicates "
        "reached, where a rate is a handful of moves. Below: the replicates still playing "
        "each round (a random horizon ends them one by one)."
    )


def _page_conditions(run_dir: Path, rows: pd.DataFrame) -> None:
    st.header("All conditions")
    for column, (heading, name, title, percent) in zip(st.columns(2), CONDITION_BARS, strict=True):
        with column:
            st.subheader(heading)
            bars = charts.side_bars(rows, name)
            st.altair_chart(
                charts.condition_bars(bars, title=title, percent=percent),
                width="stretch",
                alt=chart_alt(
                    f"{heading} per condition and seat",
                    [
                        f"{condition} {agent} {format_cell(name, value)}"
                        for condition, agent, value in zip(
                            bars["condition"], bars["agent"], bars["value"], strict=True
                        )
                    ],
                ),
            )
    st.caption("Each bar is the mean over the replicates; the black whiskers its 95% interval.")
    st.subheader("Metrics by condition")
    show_table(rows, CONDITION_TABLE, pinned=("condition",))
    intervals.difference(run_dir, rows["condition"].tolist())
    intervals.comparisons(run_dir)


CALL_TILES: list[Tile] = [
    Tile("Calls", "n_calls", "Provider call attempts."),
    Tile(
        "Invalid attempts",
        "invalid_attempt_share",
        "Share of call attempts whose reply the game could not parse (retries included).",
        "rate",
    ),
    Tile("Errors", "error_rate", "Failed calls.", "rate"),
    Tile("Cache hits", "n_cache_hits", "Calls answered from the cache."),
    Tile("Tokens in", "tokens_in", "Prompt tokens."),
    Tile("Tokens out", "tokens_out", "Completion tokens."),
]
"""The tiles of the provider calls page, from the run row of ``calls_summary.parquet``."""


def _page_calls(run_dir: Path, manifest: RunManifest) -> None:
    st.header("Provider calls")
    if manifest.source == "imported" and manifest.imported is not None:
        st.info(
            f"Not recorded: this run was imported ({manifest.imported.format}); its source "
            "holds no provider calls, prompts, replies or tokens."
        )
        return
    calls = run_reader.mart(run_dir, PDMart.CALLS_SUMMARY)
    run_row = calls[calls["level"] == "run"]
    if not run_row.empty:
        tiles(run_row.iloc[0], CALL_TILES)
        st.metric("Cost", format_cell("cost_usd", run_row.iloc[0]["cost_usd"]))
    agents = calls[calls["level"] == "agent"].drop(columns=["level"])
    if nothing_to_show(agents, "No provider calls: every agent of this run is a policy."):
        return
    show_table(agents, pinned=("condition", "agent"))


def render(run: ViewableRun) -> None:
    """Draw the page chosen in the sidebar for the PD run ``run``."""
    run_dir = run.run_dir
    rows = reader.condition_rows(run_dir, PDMart.AGGREGATES)
    if rows.empty:
        st.info(f"The run has no condition rows in {PDMart.AGGREGATES}. Rebuild its metrics:")
        st.code(f"uv run pdbench aggregate {run_dir}", language="bash")
        return
    conditions = rows["condition"].tolist()
    page = st.sidebar.radio("Page", PAGES, key="pd_page")
    handlers: dict[str, Callable[[], None]] = {
        "Overview": lambda: overview_page.page(
            run_dir,
            page_key="pd_page",
            focus_key="condition",
            chart=lambda: overview_chart.overview_chart(run_dir, run.manifest),
        ),
        "Match": lambda: _page_match(run_dir, conditions, run.manifest),
        "Condition": lambda: _page_condition(run_dir, conditions, rows),
        "All conditions": lambda: _page_conditions(run_dir, rows),
        "Tournament": lambda: tournament.page(run_dir, run.manifest),
        "Strategies": lambda: strategies.page(run_dir),
        "Evolution": lambda: evolution.page(run_dir),
        "Provider calls": lambda: _page_calls(run_dir, run.manifest),
    }
    handlers[page]()
