"""The charts an arena run, or a series of them, adds to ``pdbench report``
(:mod:`pdbench.report`): the leaderboard as a forest plot of scores with their 95% bootstrap
intervals, the Bradley-Terry ranking with its intervals when the run judged in pairs, and a
series' combined ranking. Values of the marts only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.column_labels import format_cell, label
from pdbench.findings import bracket_text, read_rows
from pdbench.report_svg import ForestRow, Section, forest_plot, table_html

__all__ = ["arena_sections", "series_sections"]


def _ranks(row: dict[str, Any]) -> str:
    low, high = row["rank_ci_low"], row["rank_ci_high"]
    if low is None:
        return "—"
    return str(low) if low == high else f"{low}–{high}"


def _interval(row: dict[str, Any], column: str, prefix: str, unit: str) -> str:
    low, high = row[f"{prefix}ci_low"], row[f"{prefix}ci_high"]
    return bracket_text(column, row[column], low, high, unit=unit)


def _forest(rows: list[dict[str, Any]], column: str, prefix: str, unit: str) -> list[ForestRow]:
    return [
        ForestRow(
            label=f"{row['rank']}. {row['player']}",
            value=row[column],
            low=row[f"{prefix}ci_low"],
            high=row[f"{prefix}ci_high"],
            text=f"{_interval(row, column, prefix, unit)}, rank {_ranks(row)}",
            is_real=row[f"{prefix}ci_low"] is not None,
        )
        for row in rows
    ]


def _leaderboard(run_dir: Path) -> Section | None:
    rows = read_rows(
        run_dir / ArenaMart.LEADERBOARD,
        ("rank", "player", "score", "ci_low", "ci_high", "rank_ci_low", "rank_ci_high"),
        where="player is not null and has_enough_data",
        order_by="rank, player",
    )
    if not rows:
        return None
    return Section(
        "Leaderboard",
        "Each player's mean normalised score (0 to 10) with its 95% bootstrap interval over "
        "questions, and the 95% interval of its rank. Players without enough valid judgements "
        "are left out.",
        forest_plot(
            _forest(rows, "score", "", "points"),
            title="score of each player",
            axis="mean normalised score (points, 0 to 10)",
        ),
    )


def _bradley_terry(run_dir: Path) -> Section | None:
    rows = read_rows(
        run_dir / ArenaMart.BRADLEY_TERRY,
        ("rank", "player", "elo", "elo_ci_low", "elo_ci_high", "rank_ci_low", "rank_ci_high"),
        where="player is not null",
        order_by="rank, player",
    )
    if not rows:
        return None
    return Section(
        "Bradley-Terry ranking (pairwise verdicts)",
        "Strength in Elo points with its 95% bootstrap interval over questions.",
        forest_plot(
            _forest(rows, "elo", "elo_", "Elo"), title="Elo of each player", axis="Elo points"
        ),
    )


def _flagged(run_dir: Path) -> Section | None:
    columns = ("judge", "player", "flag_kind", "relative_deviation", "q_value", "n_answers")
    rows = read_rows(
        run_dir / ArenaMart.JUDGE_PLAYER_BIAS,
        columns,
        where="judge is not null and is_flagged",
        order_by="anomaly_rank, judge, player",
    )
    if not rows:
        return None
    return Section(
        "Flagged judges",
        "Judge x player pairs whose bias passes the permutation test after Benjamini-Hochberg.",
        table_html(
            [label(column) for column in columns],
            [[format_cell(column, row[column]) for column in columns] for row in rows],
        ),
    )


def arena_sections(run_dir: Path) -> list[Section]:
    """The arena's sections of the report, in order."""
    sections = [_leaderboard(run_dir), _bradley_terry(run_dir), _flagged(run_dir)]
    return [section for section in sections if section is not None]


def series_sections(series_dir: Path) -> list[Section]:
    """A series' section: the combined ranking with its intervals."""
    rows = read_rows(
        series_dir / SeriesMart.PLAYERS,
        ("overall_rank", "player", "mean_score", "ci_low", "ci_high", "rank_ci_low",
         "rank_ci_high"),
        where="player is not null",
        order_by="overall_rank, player",
    )  # fmt: skip
    if not rows:
        return []
    ranked = [{**row, "rank": row["overall_rank"]} for row in rows]
    return [
        Section(
            "Combined ranking",
            "Mean adjusted score over the tournaments a player was scored in, with its 95% t "
            "interval, and the 95% interval of its rank.",
            forest_plot(
                _forest(ranked, "mean_score", "", "points"),
                title="adjusted score of each player",
                axis="mean adjusted score (points)",
            ),
        )
    ]
