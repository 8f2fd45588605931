"""What the terminal shows of a PD config and of its metrics: the plan (``validate``,
``--dry-run``), and the condition table and the comparisons' verdicts ``pdbench run`` and
``pdbench aggregate`` print."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pdbench.column_labels import format_cell, label, number_spec
from pdbench.config.loader import LoadedConfig
from pdbench.number_text import p_value_text, plural, share_text
from pdbench.pd.compare import ALPHA, METRICS, difference_text
from pdbench.pd.marts import PDMart
from pdbench.pd.validity import (
    fallback_counts,
    fallback_warnings,
    is_mostly_fallback,
    standing_name,
)
from pdbench.tables import aligned, built_mart_rows, mart_rows, number

__all__ = [
    "SHOWN_PAIRS",
    "comparison_lines",
    "condition_table",
    "config_lines",
    "standings_table",
]

SHOWN_PAIRS = 5
"""The compared pairs the summary shows, the clearest first; the rest are counted."""

_HEADLINE = "cooperation_rate"
_VERDICTS = {"higher": "real difference, first higher", "lower": "real difference, first lower"}


def _agent_summary(agent: Any) -> str:
    if agent.type == "policy":
        params = f", {agent.params}" if agent.params else ""
        return f"{agent.display_name} (policy{params})"
    detail = f"llm, window {agent.history_window}"
    if agent.provider == "mock":
        detail += f", mock plays {agent.mock.strategy}"
    return f"{agent.display_name} ({detail})"


def config_lines(loaded: LoadedConfig, *, run_dir: Path) -> list[str]:
    """The experiment in a few lines: seed, horizon, payoffs, noise, conditions."""
    config = loaded.config
    payoffs = config.payoffs
    cells = ", ".join(
        f"{name} {a:g}/{b:g}"
        for name, (a, b) in (
            ("CC", payoffs.CC),
            ("CD", payoffs.CD),
            ("DC", payoffs.DC),
            ("DD", payoffs.DD),
        )
    )
    lines = [
        f"run_id {config.run_id}, seed {config.seed}, {plural(config.replicates, 'replicate')}, "
        f"output {run_dir}",
        f"horizon: {config.horizon.describe()}",
        f"payoffs (A/B): {cells}",
        f"noise: {config.noise:g}",
    ]
    if config.actions is not None:
        lines.append(
            f"action labels in the prompts: {config.actions['C']} (C), {config.actions['D']} (D)"
        )
    robin = config.round_robin
    if robin is not None:
        n = len(robin.agents)
        added = len(config.round_robin_conditions)
        lines.append(
            f"round robin: {plural(n, 'agent')}, self-play {'on' if robin.self_play else 'off'} "
            f"-> {added} pairings ({n}x{n - 1}/2{f' + {n}' if robin.self_play else ''})"
        )
    fingerprinted = set()
    if config.fingerprint is not None:
        fingerprinted = {c.name for c in config.fingerprint.conditions()}
        points = len(fingerprinted) // len(config.fingerprint.agents)
        lines.append(
            f"fingerprint: {plural(len(config.fingerprint.agents), 'agent')} x "
            f"{plural(points, 'probe point')} "
            f"(step {config.fingerprint.step:g}) -> {len(fingerprinted)} conditions "
            "named fp_<agent>_x<x>_y<y>"
        )
    lines.append(f"conditions ({len(config.conditions)}):")
    for c in config.conditions:
        if c.name in fingerprinted:
            continue
        noise = "" if c.noise is None else f" [noise {c.noise:g}]"
        lines.append(
            f"  {c.name}: {_agent_summary(c.agent_a)} vs {_agent_summary(c.agent_b)}{noise}"
        )
    return lines


def condition_table(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """One row per condition of ``aggregates.parquet``: replicates, cooperation with its 95%
    interval (none with one replicate) and the LLM agents' fallback moves beside
    it, payoffs, collapse; then the warnings of :func:`pdbench.pd.validity.fallback_warnings`."""
    if not tables.get(PDMart.AGGREGATES):
        return []
    rows = mart_rows(
        run_dir / PDMart.AGGREGATES,
        columns=(
            "condition",
            "n_replicates",
            "n_aborted",
            "cooperation_rate",
            "cooperation_rate_ci_low",
            "cooperation_rate_ci_high",
            "payoff_per_round_a",
            "payoff_per_round_b",
            "time_to_collapse",
            "n_collapsed",
        ),
        where="level = 'condition'",
        order_by="condition",
    )
    header = (
        label("condition"),
        label("n_replicates"),
        f"{label('cooperation_rate')} [95% interval]",
        f"{label('n_fallback_moves_a')}; B's (LLM agents)",
        label("payoff_per_round_a"),
        label("payoff_per_round_b"),
        f"{label('time_to_collapse')} (replicates collapsed)",
    )
    fallbacks = fallback_counts(run_dir)
    table = [header]
    for condition, n_ok, n_aborted, coop, low, high, pay_a, pay_b, collapse, n_collapsed in rows:
        replicates = f"{n_ok}" + (f" (+{n_aborted} aborted)" if n_aborted else "")
        fraction = f"({n_collapsed}/{plural(n_ok, 'replicate')})"
        collapse_text = (
            f"never {fraction}" if collapse is None else f"round {number(collapse)} {fraction}"
        )
        fallback = "; ".join(
            fallbacks[condition, side].text() if (condition, side) in fallbacks else "-"
            for side in "ab"
        )
        table.append(
            (str(condition), replicates, _with_interval(coop, low, high), fallback,
             _cell('payoff_per_round_a', pay_a), _cell('payoff_per_round_b', pay_b),
             collapse_text)
        )  # fmt: skip
    return (
        standings_table(run_dir, tables)
        + aligned(table)
        + fallback_warnings(run_dir, tables)
        + _not_recorded(run_dir)
        + comparison_lines(run_dir, tables)
    )


def standings_table(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """A round robin's standings, first: each agent's mean points per round with its 95%
    interval, and its paired difference from the next place down
    (``tournament_player_comparisons.parquet``) with its interval and verdict. None for a run
    that is not a round robin."""
    if not tables.get(PDMart.TOURNAMENT_STANDINGS) or not _is_round_robin(run_dir):
        return []
    standings = mart_rows(
        run_dir / PDMart.TOURNAMENT_STANDINGS,
        columns=("overall_rank", "agent", "mean_score_per_round", "mean_score_per_round_ci_low",
                 "mean_score_per_round_ci_high", "n_replicates", "agent_fallback_move_share"),
        where="agent is not null",
        order_by="overall_rank, agent",
    )  # fmt: skip
    following = {
        agent_1: (agent_2, mean, low, high, verdict)
        for agent_1, agent_2, mean, low, high, verdict in built_mart_rows(
            run_dir,
            tables,
            PDMart.TOURNAMENT_PLAYER_COMPARISONS,
            columns=("agent_1", "agent_2", "mean_difference", "ci_low", "ci_high", "verdict"),
            where="is_adjacent",
            order_by="rank_1, agent_1",
        )
    }
    table = [("rank", "agent", "points per round [95% interval]", "replicates",
              "minus the next place [95% interval]", "verdict")]  # fmt: skip
    for rank, agent, mean, low, high, n, fallback_share in standings:
        gap, verdict = "-", "-"
        if agent in following:
            other, difference, gap_low, gap_high, verdict = following[agent]
            gap = f"{_points_difference(difference, gap_low, gap_high)} ({other})"
        shown = standing_name(str(agent), fallback_share)
        table.append((str(rank), shown, _points_with_interval(mean, low, high), str(n), gap,
                      str(verdict)))  # fmt: skip
    marked = any(is_mostly_fallback(row[-1]) for row in standings)
    return [
        "standings (mean points per round over each agent's matches, self-play left out; "
        "intervals: Student's t over replicates):",
        *aligned(table),
        *(
            [
                "mostly fallback moves: more than half of the agent's moves were its fallback "
                "after invalid replies, so its place is its fallback's, not the model's play"
            ]
            if marked
            else []
        ),
        "",
    ]


def _cell(column: str, value: object) -> str:
    """``value`` as the catalogue writes ``column``; ``-`` when missing."""
    return "-" if value is None else format_cell(column, value)


def _points_with_interval(mean: float | None, low: float | None, high: float | None) -> str:
    """``2.556 [2.100, 3.000]`` in points per round; the mean alone without an interval,
    ``-`` when none."""
    if mean is None:
        return "-"
    spec = number_spec("mean_score_per_round")
    if low is None or high is None:
        return format(mean, spec)
    return f"{mean:{spec}} [{low:{spec}}, {high:{spec}}]"


def _points_difference(mean: float, low: float | None, high: float | None) -> str:
    """``+0.250 [+0.100, +0.400]`` in points per round, as the standings' means; ``[—]``
    without an interval."""
    spec = number_spec("mean_score_per_round", signed=True)
    if low is None or high is None:
        return f"{mean:{spec}} [—]"
    return f"{mean:{spec}} [{low:{spec}}, {high:{spec}}]"


def _is_round_robin(run_dir: Path) -> bool:
    from pdbench.storage.schema import RunFiles

    try:
        manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    config = manifest.get("config") if isinstance(manifest, dict) else None
    return isinstance(config, dict) and config.get("round_robin") is not None


def comparison_lines(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """The verdicts of ``comparisons.parquet``, answer first and as the mart states them
    (nothing is recomputed here): how many of its differences (pairs x metrics) hold after
    Benjamini-Hochberg, then, for up to :data:`SHOWN_PAIRS` pairs (smallest BH p first), the
    paired difference in cooperation of both agents with its 95% interval, its BH p and the
    mart's verdict, and how many pairs are left to ``pdbench compare``."""
    if not tables.get(PDMart.COMPARISONS):
        return []
    path = run_dir / PDMart.COMPARISONS
    ((n_rows, n_real, n_pairs),) = mart_rows(
        path,
        columns=(
            "count(*)",
            "count(*) filter (where verdict != 'inconclusive')",
            "count(distinct (condition_1, condition_2))",
        ),
        where="true",
        order_by="1",
    )
    shown = mart_rows(
        path,
        columns=("condition_1", "condition_2", "mean_difference", "ci_low", "ci_high",
                 "p_value_bh", "verdict", "is_few_data", "n_pairs"),
        where=f"metric = '{_HEADLINE}'",
        order_by="p_value_bh, condition_1, condition_2",
    )  # fmt: skip
    label, _unit = METRICS[_HEADLINE]
    lines = [
        f"comparisons (first minus second): {n_real} of {n_rows} differences hold after "
        f"Benjamini-Hochberg (BH p <= {ALPHA}, within each family, primary or exploratory)"
    ]
    for first, second, mean, low, high, p_bh, verdict, is_few_data, n in shown[:SHOWN_PAIRS]:
        text = _VERDICTS.get(verdict, "inconclusive")
        if is_few_data:
            text += f" (few data: {n} replicate{'' if n == 1 else 's'})"
        lines.append(
            f"  {first} vs {second}: {label} {difference_text(mean, low, high, _HEADLINE)}, "
            f"BH p {_p_text(p_bh)}: {text}"
        )
    more = n_pairs - min(len(shown), SHOWN_PAIRS)
    every_metric = f"every metric of a pair: pdbench compare {run_dir} FIRST SECOND"
    lines.append(
        f"  and {plural(more, 'more pair')}; {every_metric}" if more else f"  {every_metric}"
    )
    return lines


def _p_text(p: float | None) -> str:
    """A p-value as :func:`~pdbench.number_text.p_value_text` writes it; ``-`` when none."""
    if p is None:
        return "-"
    return p_value_text(p)


def _not_recorded(run_dir: Path) -> list[str]:
    """For an imported run, the line saying what its source never recorded."""
    from pdbench.storage.manifest import read_manifest
    from pdbench.storage.schema import RunFiles

    if not (run_dir / RunFiles.MANIFEST).is_file():  # tables read without their run
        return []
    manifest = read_manifest(run_dir)
    if manifest.source != "imported" or manifest.imported is None:
        return []
    return [
        f"imported ({manifest.imported.format}): provider calls, prompts, replies, tokens, "
        "attempts and LLM reply validity not recorded (fallback moves: not recorded)"
    ]


def _with_interval(mean: float | None, low: float | None, high: float | None) -> str:
    """A share as every view writes it, ``50.0% [40.0%, 60.0%]``; the share alone when there
    is no interval, ``-`` when none."""
    if mean is None:
        return "-"
    if low is None or high is None:
        return share_text(mean)
    return f"{share_text(mean)} [{share_text(low)}, {share_text(high)}]"
