"""The charts and tables a PD run adds to ``pdbench report`` (:mod:`pdbench.report`): its
setup (payoff table, horizon, noise, agents: :mod:`pdbench.pd.report_methods`), cooperation by
condition with its 95% intervals, the paired differences in cooperation with theirs, the
condition table, the LLM agents' invalid replies and fallback moves, the standings and payoff
matrix of a round robin, the agents' strategy shares (SFEM), and the methods. Values of the
marts and the manifest only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pdbench.column_labels import MISSING, format_cell, label
from pdbench.findings import bracket_text, read_rows
from pdbench.metric_catalogue import INTERVAL_METHODS
from pdbench.number_text import plural
from pdbench.pd.compare import ALPHA, METRICS, difference_text
from pdbench.pd.detectable import detectable_text
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics
from pdbench.pd.report_methods import fallback_section, methods_section, setup_sections
from pdbench.pd.report_strategies import strategy_sections
from pdbench.pd.validity import standing_name
from pdbench.report_svg import (
    ForestRow,
    Section,
    forest_plot,
    mart_table_html,
    p_value_text,
    table_html,
    table_section,
)

__all__ = ["SHOWN_COMPARISONS", "pd_sections"]

SHOWN_COMPARISONS = 40
"""The paired differences drawn (smallest BH p first); a bigger run points to the viewer."""
_COOPERATION = "cooperation_rate"


def _fallback_note(share: float | None) -> str:
    """``, 3.1% fallback moves`` beside a value a fallback move changed; empty without one."""
    if not share:
        return ""
    return f", {format_cell('fallback_move_share', share)} fallback moves"


def _cooperation(run_dir: Path) -> Section:
    rows = read_rows(
        run_dir / PDMart.AGGREGATES,
        ("condition", "n_replicates", _COOPERATION, f"{_COOPERATION}_ci_low",
         f"{_COOPERATION}_ci_high", f"{_COOPERATION}_ci_note", "fallback_move_share"),
        where="level = 'condition'",
        order_by="condition",
    )  # fmt: skip
    forest = [
        ForestRow(
            label=row["condition"],
            value=row[_COOPERATION],
            low=row[f"{_COOPERATION}_ci_low"],
            high=row[f"{_COOPERATION}_ci_high"],
            text=bracket_text(
                _COOPERATION,
                row[_COOPERATION],
                row[f"{_COOPERATION}_ci_low"],
                row[f"{_COOPERATION}_ci_high"],
            )
            + _fallback_note(row["fallback_move_share"]),
            is_real=row[f"{_COOPERATION}_ci_low"] is not None,
        )
        for row in rows
    ]
    metric = pd_metrics().metric_of(_COOPERATION)
    with_fallbacks = any(row["fallback_move_share"] for row in rows)
    return Section(
        f"{label(_COOPERATION).capitalize()} by condition",
        f"Mean over replicates with its 95% interval ({INTERVAL_METHODS[metric.interval]} "
        "over replicates; see Methods); grey: no interval."
        + (
            " Beside a condition whose LLM agents played fallback moves, their share of all "
            "moves: the cooperation counts them."
            if with_fallbacks
            else ""
        ),
        forest_plot(
            forest,
            title=label(_COOPERATION),
            axis=f"{label(_COOPERATION)} ({metric.unit})",
            percent=True,
            bounds=(0.0, 1.0),
        ),
    )


def _comparisons(run_dir: Path) -> Section | None:
    rows = read_rows(
        run_dir / PDMart.COMPARISONS,
        ("condition_1", "condition_2", "mean_difference", "ci_low", "ci_high", "p_value_bh",
         "verdict", "n_pairs", "family", "minimum_detectable_difference",
         "replicates_for_interval"),
        where=f"metric = '{_COOPERATION}'",
        order_by="p_value_bh, condition_1, condition_2",
    )  # fmt: skip
    if not rows:
        return None
    name, _unit = METRICS[_COOPERATION]
    forest = [
        ForestRow(
            label=f"{row['condition_1']} − {row['condition_2']}",
            value=row["mean_difference"],
            low=row["ci_low"],
            high=row["ci_high"],
            text=difference_text(
                row["mean_difference"], row["ci_low"], row["ci_high"], _COOPERATION
            )
            + f", BH p {p_value_text(row['p_value_bh'])} ({row['family']})"
            + _detectable_note(row),
            is_real=row["verdict"] in ("higher", "lower"),
        )
        for row in rows[:SHOWN_COMPARISONS]
    ]
    more = len(rows) - len(forest)
    return Section(
        f"Paired differences in {name}",
        "First condition minus second, replicate by replicate, with the 95% interval of the "
        f"sign-flip test; blue: real after Benjamini-Hochberg within its family, primary or "
        f"exploratory (BH p ≤ {ALPHA:g}; see Methods), grey: inconclusive, with the smallest "
        "difference the run could have detected."
        + (
            f" The {plural(more, 'pair')} with the largest BH p {'is' if more == 1 else 'are'} "
            "left out."
            if more
            else ""
        ),
        forest_plot(
            forest,
            title=f"{name}: first minus second",
            axis=f"difference in {name} (percentage points)",
            percent=True,
            zero=True,
        ),
    )


def _detectable_note(row: dict[str, Any]) -> str:
    """``: this run could detect ...`` after an inconclusive difference; empty otherwise."""
    if row["verdict"] != "inconclusive":
        return ""
    text = detectable_text(
        metric=_COOPERATION,
        n_pairs=int(row["n_pairs"]),
        detectable=row["minimum_detectable_difference"],
        replicates_for_interval=row["replicates_for_interval"],
    )
    return f": {text}" if text else ""


_TABLE = ("condition", "agent_a_name", "agent_b_name", "n_replicates", "n_aborted",
          "cooperation_rate", "payoff_per_round_a", "payoff_per_round_b")  # fmt: skip


def _condition_table(run_dir: Path) -> Section:
    columns = (*_TABLE, "fallback_move_share")
    rows = read_rows(
        run_dir / PDMart.AGGREGATES, columns, where="level = 'condition'", order_by="condition"
    )
    with_fallbacks = any(row["fallback_move_share"] is not None for row in rows)
    shown = columns if with_fallbacks else _TABLE
    return Section(
        "Metrics by condition",
        "Means over replicates, each replicate weighing the same."
        + (
            " The last column: both agents' fallback moves over all moves (— without an LLM "
            "agent), counted in the cooperation and the payoffs beside it."
            if with_fallbacks
            else ""
        ),
        mart_table_html(shown, rows),
    )


def _headline_metrics() -> list[str]:
    """The metrics of each agent in the per-agent table, each with its interval: those the
    catalogue marks ``headline``."""
    return [metric.name for metric in pd_metrics().metrics if metric.per_agent and metric.headline]


def _per_agent(run_dir: Path) -> Section | None:
    """Each agent in each condition: its cooperation, payoff per round, retaliation and
    forgiveness with their 95% intervals, and its fallback moves' share."""
    headline = _headline_metrics()
    columns = ["condition", "agent_a_name", "agent_b_name"]
    for side in ("a", "b"):
        for metric in headline:
            columns += [f"{metric}_{side}", f"{metric}_{side}_ci_low", f"{metric}_{side}_ci_high"]
        columns.append(f"fallback_move_share_{side}")
    rows = read_rows(
        run_dir / PDMart.AGGREGATES,
        tuple(columns),
        where="level = 'condition'",
        order_by="condition",
    )
    if not rows:
        return None
    table = []
    for row in rows:
        for side in ("a", "b"):
            cells = [str(row[f"agent_{side}_name"]), row["condition"], side.upper()]
            for metric in headline:
                column = f"{metric}_{side}"
                low, high = row[f"{column}_ci_low"], row[f"{column}_ci_high"]
                cells.append(
                    MISSING if row[column] is None else bracket_text(column, row[column], low, high)
                )
            cells.append(
                format_cell(f"fallback_move_share_{side}", row[f"fallback_move_share_{side}"])
            )
            table.append(cells)
    table.sort(key=lambda cells: (cells[0], cells[1], cells[2]))
    return Section(
        "Per agent",
        "Each agent in each condition and seat: means over replicates with their 95% "
        "intervals in brackets ([—]: none), and the share of its moves that were fallbacks "
        "(— for a policy, or a source that did not record it).",
        table_html(
            [
                "agent",
                "condition",
                "seat",
                *(label(metric, per_agent=True) for metric in headline),
                label("fallback_move_share", per_agent=True),
            ],
            table,
        ),
    )


def _standings(run_dir: Path) -> Section | None:
    columns = ("overall_rank", "agent", "mean_score_per_round", "mean_score_per_round_ci_low",
               "mean_score_per_round_ci_high", "mean_score_per_round_ci_note", "n_wins",
               "median_rank", "cooperation_rate", "agent_fallback_move_share", "n_matches",
               "n_replicates")  # fmt: skip
    rows = read_rows(
        run_dir / PDMart.TOURNAMENT_STANDINGS,
        columns,
        where="agent is not null",
        order_by="overall_rank, agent",
    )
    for row in rows:
        row["agent"] = standing_name(row["agent"], row["agent_fallback_move_share"])
    return table_section(
        "Round-robin standings",
        "Mean score per round over an agent's matches except self-play, with its 95% "
        "interval (Student's t over the replicates' mean scores: each replicate replays the "
        "whole round robin); wins; median rank across replicates. An agent marked mostly "
        "fallback moves played its fallback after invalid replies in more than half its "
        "moves: its place is its fallback's, not the model's play.",
        columns,
        rows,
        per_agent=True,
    )


def _standings_chart(run_dir: Path) -> Section | None:
    """Who wins the round robin: each agent's mean score per round with its 95% interval,
    in the order of the standings."""
    column = "mean_score_per_round"
    rows = read_rows(
        run_dir / PDMart.TOURNAMENT_STANDINGS,
        ("overall_rank", "agent", column, f"{column}_ci_low", f"{column}_ci_high"),
        where="agent is not null",
        order_by="overall_rank, agent",
    )
    if not rows:
        return None
    forest = [
        ForestRow(
            label=f"{row['overall_rank']}. {row['agent']}",
            value=row[column],
            low=row[f"{column}_ci_low"],
            high=row[f"{column}_ci_high"],
            text=bracket_text(
                column, row[column], row[f"{column}_ci_low"], row[f"{column}_ci_high"]
            ),
            is_real=row[f"{column}_ci_low"] is not None,
        )
        for row in rows
    ]
    return Section(
        "Who wins the round robin",
        "Each agent's mean points per round over its matches except self-play, in the order "
        "of the standings, with its 95% interval (Student's t over the replicates' mean "
        "scores); where two intervals overlap, the run does not settle which of the two "
        "scores more.",
        forest_plot(forest, title=label(column), axis=f"{label(column)} (points per round)"),
    )


def _payoff_matrix(run_dir: Path) -> Section | None:
    """The round robin's payoff matrix: each agent's mean points per round (rows) against
    each opponent (columns)."""
    rows = read_rows(
        run_dir / PDMart.TOURNAMENT_PAYOFF_MATRIX,
        ("agent", "opponent", "mean_score_per_round", "n_matches"),
        where="agent is not null",
        order_by="agent, opponent",
    )
    if not rows:
        return None
    agents = sorted({row["agent"] for row in rows})
    opponents = sorted({row["opponent"] for row in rows})
    cell = {(row["agent"], row["opponent"]): row["mean_score_per_round"] for row in rows}
    matches = sorted({int(row["n_matches"]) for row in rows})
    return Section(
        "Payoff matrix of the round robin",
        "Mean points per round of the row's agent against the column's opponent, over "
        + (
            f"{plural(matches[0], 'match', 'matches')} each"
            if len(matches) == 1
            else f"{matches[0]} to {matches[-1]} matches"
        )
        + " (a self-play match counted once); — where the two never met.",
        table_html(
            ["agent ↓ opponent →", *opponents],
            [
                [
                    agent,
                    *(
                        format_cell("mean_score_per_round", cell[(agent, opponent)])
                        if (agent, opponent) in cell
                        else MISSING
                        for opponent in opponents
                    ),
                ]
                for agent in agents
            ],
            row_headers=True,
        ),
    )


def pd_sections(run_dir: Path) -> list[Section]:
    """The PD's sections of the report, in order: setup, results, methods."""
    from pdbench.overview import manifest_of

    manifest = manifest_of(run_dir)
    round_robin = (manifest.get("config") or {}).get("round_robin") is not None
    sections = [
        *setup_sections(run_dir, manifest),
        # a round robin answers who wins first
        *(
            [_standings_chart(run_dir), _standings(run_dir), _payoff_matrix(run_dir)]
            if round_robin
            else []
        ),
        _cooperation(run_dir),
        fallback_section(run_dir),
        _comparisons(run_dir),
        _condition_table(run_dir),
        _per_agent(run_dir),
        *strategy_sections(run_dir),
        methods_section(run_dir, manifest),
    ]
    return [section for section in sections if section is not None]
