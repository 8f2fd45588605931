"""The pages of a Prisoner's Dilemma run: one match, one condition, all conditions, the
tournament, provider calls. Every number comes from a mart row or a raw record as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from pdbench.ui import charts, run_reader
from pdbench.ui.formats import ValueKind, format_value
from pdbench.ui.run_check import ViewableRun

__all__ = [
    "AGENT_COLUMNS",
    "CONDITION_TILES",
    "HEADLINE_TILES",
    "PAGES",
    "TIMELINE_WINDOW",
    "render",
]

HEADLINE_TILES: list[tuple[str, str, ValueKind, str]] = [
    ("Cooperation", "cooperation_rate", "rate", "Share of C over both agents' actions."),
    ("Mutual C", "mutual_cooperation_rate", "rate", "Share of rounds with (C, C)."),
    ("Mutual D", "mutual_defection_rate", "rate", "Share of rounds with (D, D)."),
    (
        "Collapse at round",
        "time_to_collapse",
        "round",
        "First round starting a window of k rounds with cooperation <= threshold "
        "(mean over the replicates that collapsed).",
    ),
    ("Points/round A", "payoff_per_round_a", "points", "Agent A's mean points per round."),
    ("Points/round B", "payoff_per_round_b", "points", "Agent B's mean points per round."),
    ("Rounds", "rounds_played", "mean_count", "Rounds played (mean over replicates)."),
]
"""The metric tiles of a match or condition: label, ``aggregates.parquet`` column, format,
help."""

CONDITION_TILES: list[tuple[str, str, ValueKind, str]] = [
    ("Replicates", "n_replicates", "count", "Ok matches behind the means."),
    ("Aborted", "n_aborted", "count", "Aborted matches, excluded from every metric."),
    ("Incomplete", "n_incomplete", "count", "Matches cut short by a crash, excluded."),
    ("Collapsed", "n_collapsed", "count", "Replicates that collapsed (of the ok ones)."),
    ("Total rounds", "n_rounds", "count", "Rounds of the ok replicates."),
]
"""Extra tiles of the condition page."""

AGENT_COLUMNS: list[tuple[str, str, str]] = [
    ("cooperation", "cooperation_rate", "percent"),
    ("payoff / round", "payoff_per_round", "%.3f"),
    ("total payoff", "total_payoff", "%.1f"),
    ("retaliation", "retaliation_rate", "percent"),
    ("forgiveness", "forgiveness_rate", "percent"),
    ("exploitability gap", "exploitability_payoff_gap", "%.1f"),
    ("invalid replies", "invalid_rate", "percent"),
    ("first defection", "first_defection_round", "%.1f"),
    ("nice (share of replicates)", "nice_rate", "percent"),
]
"""The per-agent table: title, ``aggregates.parquet`` column without its ``_a``/``_b``
suffix, number format."""

PAGES = ["Match", "Condition", "All conditions", "Tournament", "Provider calls"]
TIMELINE_WINDOW = 2000
"""Matches longer than this draw their timeline a window at a time."""


def _label(row: pd.Series | dict[str, Any], side: str) -> str:
    return f"{side.upper()} · {row[f'agent_{side}_name']}"


def _tiles(row: pd.Series, tiles: list[tuple[str, str, ValueKind, str]]) -> None:
    columns = st.columns(len(tiles))
    for column, (label, name, kind, help_text) in zip(columns, tiles, strict=True):
        column.metric(label, format_value(row[name], kind), help=help_text, border=True)


def _headline(row: pd.Series) -> None:
    """The headline tiles in two rows: the pair's cooperation, then the agents' points."""
    _tiles(row, HEADLINE_TILES[:4])
    _tiles(row, HEADLINE_TILES[4:])


def _agent_table(row: pd.Series) -> None:
    records = []
    for side in ("a", "b"):
        record: dict[str, Any] = {
            "agent": _label(row, side),
            "kind": row[f"agent_{side}_kind"],
        }
        for title, column, _ in AGENT_COLUMNS:
            record[title] = row[f"{column}_{side}"]
        records.append(record)
    config = {
        title: st.column_config.NumberColumn(title, format=fmt) for title, _, fmt in AGENT_COLUMNS
    }
    st.dataframe(
        pd.DataFrame.from_records(records),
        hide_index=True,
        column_config=config,
        width="stretch",
    )


def _memory_one(row: pd.Series) -> None:
    profile = pd.DataFrame.from_records(
        [
            {
                "agent": f"{side.upper()} · {row[f'agent_{side}_name']}",
                "previous": state.upper(),
                "p_cooperate": row[f"p_c_after_{state}_{side}"],
            }
            for side in ("a", "b")
            for state in ("cc", "cd", "dc", "dd")
        ]
    )
    st.markdown("**Memory-one profile**")
    st.altair_chart(charts.memory_one_heatmap(profile), width="stretch")
    st.caption(
        "P(the agent plays C | the previous round), its own action first (CD: it cooperated, "
        "the other defected). Grey: a state never visited."
    )


def _metrics_panel(row: pd.Series) -> None:
    _headline(row)
    st.markdown("**Per agent**")
    _agent_table(row)
    _memory_one(row)


def _select_condition(conditions: list[str]) -> str:
    return st.sidebar.selectbox("Condition", conditions, key="condition")


def _page_match(run_dir: Path, conditions: list[str]) -> None:
    condition = _select_condition(conditions)
    all_matches = run_reader.matches(run_dir)
    played = all_matches[all_matches["condition"] == condition]
    if played.empty:
        st.info(f"Condition `{condition}` has no finished match.")
        return
    replicate = st.sidebar.selectbox(
        "Replicate",
        played["replicate"].tolist(),
        key="replicate",
        help="0-based; all conditions of a replicate play the same number of rounds.",
    )
    match = played[played["replicate"] == replicate].iloc[0]
    st.header(f"{condition} · replicate {replicate}")
    st.caption(
        f"A: {match['agent_a_name']} ({match['agent_a_kind']}) vs "
        f"B: {match['agent_b_name']} ({match['agent_b_kind']}) · "
        f"{match['rounds_played']} of {match['planned_rounds']} planned rounds · "
        f"status {match['status']}"
    )
    replicate_rows = run_reader.replicate_aggregates(run_dir, condition)
    row = replicate_rows[replicate_rows["replicate"] == replicate]
    if match["status"] != "ok" or row.empty:
        st.warning(
            f"This match is {match['status']}"
            f"{': ' + str(match['abort_reason']) if match['abort_reason'] else ''}; "
            "it is excluded from every metric."
        )
    rounds = run_reader.match_rounds(run_dir, str(match["match_id"]))
    if rounds.empty:
        st.info("No rounds were recorded for this match.")
        return
    label_a, label_b = _label(match, "a"), _label(match, "b")
    if not row.empty:
        _headline(row.iloc[0])
    st.subheader("Actions, round by round")
    shown = rounds
    if len(rounds) > TIMELINE_WINDOW:
        last = int(rounds["round_index"].max())
        start, end = st.slider(
            "Rounds shown",
            1,
            last,
            (1, TIMELINE_WINDOW),
            key="window",
            help=f"Long matches are drawn {TIMELINE_WINDOW} rounds at a time.",
        )
        shown = rounds[(rounds["round_index"] >= start) & (rounds["round_index"] <= end)]
    st.altair_chart(
        charts.actions_timeline(shown, label_a=label_a, label_b=label_b),
        width="stretch",
    )
    st.caption(
        "Each cell is one round: green C (cooperate), red D (defect). A black cross marks a "
        "reply still invalid after every retry (a fallback action was played); a white dot a "
        "noise flip (the executed action differs from the intended one)."
    )
    if not row.empty:
        st.subheader("Per agent")
        _agent_table(row.iloc[0])
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("Cumulative payoff")
        st.altair_chart(
            charts.cumulative_payoff(rounds, label_a=label_a, label_b=label_b),
            width="stretch",
        )
    with right:
        if not row.empty:
            st.subheader("Reactions")
            _memory_one(row.iloc[0])
    if "llm" in (match["agent_a_kind"], match["agent_b_kind"]):
        _round_inspector(run_dir, match, rounds)


def _round_inspector(run_dir: Path, match: pd.Series, rounds: pd.DataFrame) -> None:
    st.subheader("Round inspector")
    last = int(rounds["round_index"].max())
    round_index = int(
        st.number_input("Round", min_value=1, max_value=last, value=1, step=1, key="round")
    )
    detail = run_reader.round_detail(run_dir, str(match["match_id"]), round_index)
    calls = run_reader.match_calls(run_dir, str(match["match_id"]), round_index)
    this_round = rounds[rounds["round_index"] == round_index].iloc[0]
    llm_sides = [side for side in ("a", "b") if match[f"agent_{side}_kind"] == "llm"]
    columns = st.columns(len(llm_sides))
    for column, side in zip(columns, llm_sides, strict=True):
        key = f"agent_{side}"
        with column:
            valid = bool(this_round[f"{key}_valid"])
            st.markdown(
                f"**{_label(match, side)}** played **{this_round[f'{key}_action']}** "
                f"after {int(this_round[f'{key}_attempts'])} attempt(s) · "
                + ("valid reply" if valid else ":red[invalid: fallback played]")
            )
            prompts = detail["prompts"].get(key)
            replies = detail["raw_responses"].get(key)
            if prompts is None and replies is None:
                st.info("This run did not store prompts and replies (`store_prompts: false`).")
            if prompts is not None:
                with st.expander("System prompt"):
                    st.text(prompts.get("system", ""))
                st.markdown("Round prompt")
                st.code(prompts.get("round", ""), language=None, wrap_lines=True)
            agent_calls = calls[calls["agent"] == key]
            rules = dict(zip(agent_calls["attempt"], agent_calls["parse_rule"], strict=True))
            intended = this_round.get(f"{key}_intended_action", this_round[f"{key}_action"])
            for attempt, reply in enumerate(replies or [], 1):
                st.markdown(f"Reply, attempt {attempt}")
                st.code(reply, language=None, wrap_lines=True)
                st.markdown(_reading(rules.get(attempt), intended))
            if not agent_calls.empty:
                st.dataframe(
                    agent_calls.drop(columns=["agent"]),
                    hide_index=True,
                    width="stretch",
                )


def _reading(rule: object, action: object) -> str:
    """What the extraction rules made of one reply: the move and the rule, or nothing."""
    if isinstance(rule, str) and rule:
        return f"→ read as **{action}** (rule `{rule}`)"
    return "→ :red[not read as a move (invalid)]"


def _page_condition(run_dir: Path, conditions: list[str], rows: pd.DataFrame) -> None:
    condition = _select_condition(conditions)
    row = rows[rows["condition"] == condition].iloc[0]
    st.header(f"{condition} · all replicates")
    st.caption(
        f"A: {row['agent_a_name']} ({row['agent_a_kind']}) vs B: {row['agent_b_name']} "
        f"({row['agent_b_kind']}) · means over replicates, each replicate weighing the same"
    )
    _tiles(row, CONDITION_TILES)
    _metrics_panel(row)
    st.subheader("Cooperation over time")
    over_time = run_reader.cooperation_over_time(run_dir, condition)
    if over_time.empty:
        st.info("No finished match in this condition.")
        return
    st.altair_chart(
        charts.cooperation_over_time(over_time, label_a=_label(row, "a"), label_b=_label(row, "b")),
        width="stretch",
    )
    st.caption(
        "Black: cooperation of both agents, mean over the replicates that reached the round; "
        "grey band: ± one standard deviation across replicates; dashed: each agent."
    )


def _page_conditions(rows: pd.DataFrame) -> None:
    st.header("All conditions")
    long_rows = []
    for _, row in rows.iterrows():
        for side in ("a", "b"):
            long_rows.append(
                {
                    "condition": row["condition"],
                    "side": f"agent {side.upper()}",
                    "agent": row[f"agent_{side}_name"],
                    "cooperation": row[f"cooperation_rate_{side}"],
                    "payoff": row[f"payoff_per_round_{side}"],
                }
            )
    frame = pd.DataFrame.from_records(long_rows)
    left, right = st.columns(2)
    with left:
        st.subheader("Cooperation rate")
        st.altair_chart(
            charts.condition_bars(
                frame.rename(columns={"cooperation": "value"}),
                value_title="cooperation rate",
                percent=True,
            ),
            width="stretch",
        )
    with right:
        st.subheader("Payoff per round")
        st.altair_chart(
            charts.condition_bars(
                frame.rename(columns={"payoff": "value"}),
                value_title="points per round",
                percent=False,
            ),
            width="stretch",
        )
    st.subheader("Metrics by condition")
    shown = [
        "condition",
        "agent_a_name",
        "agent_b_name",
        "n_replicates",
        "n_aborted",
        "rounds_played",
        "cooperation_rate",
        "mutual_cooperation_rate",
        "mutual_defection_rate",
        "payoff_per_round_a",
        "payoff_per_round_b",
        "retaliation_rate_a",
        "retaliation_rate_b",
        "forgiveness_rate_a",
        "forgiveness_rate_b",
        "exploitability_payoff_gap_a",
        "exploitability_payoff_gap_b",
        "invalid_rate_a",
        "invalid_rate_b",
        "time_to_collapse",
        "n_collapsed",
    ]
    percent = {name for name in shown if name.endswith("_rate") or "_rate_" in name}
    config = {
        name: st.column_config.ProgressColumn(name, format="percent", min_value=0, max_value=1)
        for name in percent
    }
    config |= {
        name: st.column_config.NumberColumn(name, format="%.3f")
        for name in shown
        if name.startswith(("payoff", "exploitability"))
    }
    st.dataframe(rows[shown], hide_index=True, column_config=config, width="stretch")


def _page_tournament(run_dir: Path) -> None:
    st.header("Tournament")
    needed = ["tournament_standings", "tournament_payoff_matrix"]
    if any(not (run_dir / f"{name}.parquet").is_file() for name in needed):
        st.warning("This run has no tournament tables yet. Build them with:")
        st.code(f"uv run pdbench aggregate {run_dir}", language="bash")
        return
    table = run_reader.standings(run_dir)
    if table.empty:
        st.info("No finished match between different agents.")
        return
    st.subheader("Standings")
    st.caption(
        "Mean score per round over all an agent's matches except self-play (each match weighs "
        "the same), wins, median rank across replicates."
    )
    st.dataframe(
        height=35 * (len(table) + 1) + 3,
        data=table[
            [
                "overall_rank",
                "agent",
                "mean_score_per_round",
                "n_wins",
                "median_rank",
                "cooperation_rate",
                "n_matches",
            ]
        ],
        hide_index=True,
        width="stretch",
        column_config={
            "overall_rank": st.column_config.NumberColumn("rank"),
            "mean_score_per_round": st.column_config.NumberColumn("score / round", format="%.3f"),
            "n_wins": st.column_config.NumberColumn("wins", format="%d"),
            "median_rank": st.column_config.NumberColumn("median rank", format="%.1f"),
            "cooperation_rate": st.column_config.ProgressColumn(
                "cooperation", format="percent", min_value=0, max_value=1
            ),
            "n_matches": st.column_config.NumberColumn("matches"),
        },
    )
    st.subheader("Payoff matrix")
    st.caption("Mean score per round of the row agent against the column opponent.")
    matrix = run_reader.payoff_matrix(run_dir)
    st.altair_chart(charts.payoff_heatmap(matrix, table["agent"].tolist()), width="content")
    if (run_dir / "tournament_noise_responses.parquet").is_file():
        noise = run_reader.noise_responses(run_dir)
        if not noise.empty:
            st.subheader("Responses to noise")
            st.caption(
                "After a flip of its own action or of its opponent's, how often the agent meant "
                "to cooperate in the next round."
            )
            st.dataframe(noise, hide_index=True, width="stretch")


def _page_calls(run_dir: Path) -> None:
    st.header("Provider calls")
    calls = run_reader.calls_summary(run_dir)
    run_row = calls[calls["level"] == "run"]
    if not run_row.empty:
        row = run_row.iloc[0]
        tiles: list[tuple[str, str, ValueKind, str]] = [
            ("Calls", "n_calls", "count", "Provider call attempts."),
            ("Invalid replies", "invalid_rate", "rate", "Replies the game could not parse."),
            ("Errors", "error_rate", "rate", "Failed calls."),
            ("Cache hits", "n_cache_hits", "count", "Calls answered from the cache."),
            ("Tokens in", "tokens_in", "count", "Prompt tokens."),
            ("Tokens out", "tokens_out", "count", "Completion tokens."),
        ]
        _tiles(row, tiles)
        st.metric("Cost (USD)", format_value(row["cost_usd"], "points"))
    agents = calls[calls["level"] == "agent"].drop(columns=["level"])
    if agents.empty:
        st.info("No provider calls: every agent of this run is a policy.")
        return
    st.dataframe(agents, hide_index=True, width="stretch")


def render(run: ViewableRun) -> None:
    """Draw the page chosen in the sidebar for the PD run ``run``."""
    run_dir = run.run_dir
    rows = run_reader.condition_aggregates(run_dir)
    if rows.empty:
        st.info("The run has no condition rows in aggregates.parquet. Rebuild its metrics:")
        st.code(f"uv run pdbench aggregate {run_dir}", language="bash")
        return
    conditions = rows["condition"].tolist()
    page = st.sidebar.radio("Page", PAGES, key="pd_page")
    handlers: dict[str, Callable[[], None]] = {
        "Match": lambda: _page_match(run_dir, conditions),
        "Condition": lambda: _page_condition(run_dir, conditions, rows),
        "All conditions": lambda: _page_conditions(rows),
        "Tournament": lambda: _page_tournament(run_dir),
        "Provider calls": lambda: _page_calls(run_dir),
    }
    handlers[page]()
