"""The standings of a round robin as overview sentences (:mod:`pdbench.pd.overview`): who wins,
with its interval, only when the paired comparisons of players put it ahead of every other
agent; ties said as ties; whether each next place beats the one after it. Every number is a
value of ``tournament_standings.parquet`` or ``tournament_player_comparisons.parquet``."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

from pdbench.column_labels import MISSING, number_spec
from pdbench.findings import Finding, interval_text, read_rows
from pdbench.number_text import plural, share_text
from pdbench.pd.marts import PDMart
from pdbench.pd.validity import is_mostly_fallback, standing_name

__all__ = ["SHOWN_STANDINGS", "standings"]

SHOWN_STANDINGS = 3
"""The places after the first a sentence names, and the unseparated agents it lists."""

_STANDING_COLUMNS = (
    "overall_rank", "agent", "mean_score_per_round", "mean_score_per_round_ci_low",
    "mean_score_per_round_ci_high", "mean_score_per_round_ci_note", "n_replicates", "n_wins",
    "median_rank", "n_matches", "agent_fallback_move_share",
)  # fmt: skip
_PLAYER_COLUMNS = (
    "agent_1", "agent_2", "rank_1", "rank_2", "n_replicates", "mean_difference", "ci_low",
    "ci_high", "ci_note", "verdict", "is_adjacent",
)  # fmt: skip
_SCORE = "mean_score_per_round"
_POINTS = "points/round"


def _score_text(row: dict[str, Any]) -> str:
    return interval_text(
        _SCORE,
        row[_SCORE],
        row[f"{_SCORE}_ci_low"],
        row[f"{_SCORE}_ci_high"],
        unit=_POINTS,
        note=row[f"{_SCORE}_ci_note"],
    )


def _gap_text(pair: dict[str, Any]) -> str:
    """A paired difference of two players: ``+0.120 points/round (95% interval +0.050 to
    +0.190, 5 replicates)``; without an interval, why."""

    def signed(value: float) -> str:
        return format(value, number_spec(_SCORE, signed=True))

    replicates = f"{pair['n_replicates']} replicate{'' if pair['n_replicates'] == 1 else 's'}"
    shown = f"{signed(pair['mean_difference'])} {_POINTS}"
    if pair["ci_low"] is None or pair["ci_high"] is None:
        return f"{shown} (no interval: {pair['ci_note'] or MISSING}; {replicates})"
    return (
        f"{shown} (95% interval {signed(pair['ci_low'])} to {signed(pair['ci_high'])}, "
        f"{replicates})"
    )


def _pair_of(pairs: list[dict[str, Any]], first: str, second: str) -> dict[str, Any] | None:
    return next(
        (pair for pair in pairs if {pair["agent_1"], pair["agent_2"]} == {first, second}), None
    )


def standings(run_dir: Path) -> list[Finding]:
    """The round robin's answer: who wins, with its interval, and whether its lead holds
    against each other agent in the paired comparisons of players
    (``tournament_player_comparisons.parquet``); ties said as ties; then whether each of the
    next places beats the one after it."""
    rows = read_rows(
        run_dir / PDMart.TOURNAMENT_STANDINGS,
        _STANDING_COLUMNS,
        where="agent is not null",
        order_by="overall_rank, agent",
    )
    if not rows:
        return []
    for row in rows:
        row["shown"] = standing_name(row["agent"], row["agent_fallback_move_share"])
    pairs = read_rows(
        run_dir / PDMart.TOURNAMENT_PLAYER_COMPARISONS,
        _PLAYER_COLUMNS,
        where="agent_1 is not null",
        order_by="rank_1, agent_1, rank_2, agent_2",
    )
    first = rows[0]
    over = (
        f" over {plural(first['n_matches'], 'match', 'matches')} in "
        f"{plural(first['n_replicates'], 'replicate')}"
        f" (round robin of {plural(len(rows), 'agent')})"
    )
    tied = [row for row in rows if row["overall_rank"] == first["overall_rank"]]
    if len(tied) > 1:
        names = ", ".join(row["shown"] for row in tied[:-1]) + f" and {tied[-1]['shown']}"
        text = f"{names} tie for first place at {_score_text(first)} each{over}."
    elif len(rows) == 1:
        text = f"{first['shown']} is the only agent: {_score_text(first)}{over}."
    else:
        text = _winner_text(first, rows, pairs, over)
    text += _next_places(rows, pairs) + _fallback_note(rows)
    return [Finding("standings", text, "Tournament")]


def _fallback_note(rows: list[dict[str, Any]]) -> str:
    """The agents whose moves were mostly fallbacks after invalid replies: their places are
    their fallbacks', not the models' play."""
    marked = [
        f"{row['agent']} ({share_text(row['agent_fallback_move_share'])} of its moves)"
        for row in rows
        if is_mostly_fallback(row["agent_fallback_move_share"])
    ]
    if not marked:
        return ""
    return f" Mostly fallback moves after invalid replies: {', '.join(marked)}; " + (
        "its place is its fallback's, not the model's play."
        if len(marked) == 1
        else "their places are their fallbacks', not the models' play."
    )


def _winner_text(
    first: dict[str, Any], rows: list[dict[str, Any]], pairs: list[dict[str, Any]], over: str
) -> str:
    """The first place's sentence: a winner only when its lead over every other agent holds
    (a paired difference whose interval excludes 0, or the same in every replicate)."""
    second = rows[1]
    runner_up = f"#{second['overall_rank']} {second['shown']}"
    lead = _pair_of(pairs, first["agent"], second["agent"])
    if not pairs or lead is None:
        return (
            f"{first['shown']} leads with {_score_text(first)}{over}; no paired comparison of "
            "players says whether the lead holds."
        )
    unseparated = [
        row["shown"]
        for row in rows[1:]
        if (pair := _pair_of(pairs, first["agent"], row["agent"])) is None
        or pair["verdict"] != "first ahead"
    ]
    if not unseparated:
        return (
            f"{first['shown']} wins with {_score_text(first)}{over}, ahead of every other agent "
            f"in paired comparisons over replicates; ahead of {runner_up} by "
            f"{_gap_text(lead)}."
        )
    shown = ", ".join(unseparated[:SHOWN_STANDINGS])
    more = len(unseparated) - SHOWN_STANDINGS
    if more > 0:
        shown += f" and {more} more"
    return (
        f"{first['shown']} leads with {_score_text(first)}{over}, but is not separated from "
        f"{shown} in paired comparisons over replicates (over {runner_up}: "
        f"{_gap_text(lead)}): no single winner at this run's size."
    )


def _next_places(rows: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> str:
    """Whether #2 beats #3, #3 beats #4 (the places after the first, up to
    :data:`SHOWN_STANDINGS`; each agent named with its rank, which ties share)."""
    parts = []
    for place, (upper, lower) in enumerate(pairwise(rows[1:]), start=2):
        if place > SHOWN_STANDINGS:
            break
        pair = _pair_of(pairs, upper["agent"], lower["agent"])
        if pair is None:
            continue
        first, second = (
            f"#{upper['overall_rank']} {upper['shown']}",
            f"#{lower['overall_rank']} {lower['shown']}",
        )
        names = f"{first} and {second}"
        gap = _gap_text(pair)
        verdict = pair["verdict"]
        if verdict == "tied":
            parts.append(f"{names} tie ({gap})")
        elif verdict == "first ahead":
            parts.append(f"{first} beats {second} by {gap}")
        elif verdict == "first behind":  # over the replicates both played, not all matches
            parts.append(f"{second} beats {first} in the replicates both played ({gap})")
        else:
            parts.append(f"{names} are not separated ({gap})")
    if not parts:
        return ""
    return " Next: " + "; ".join(parts) + "."
