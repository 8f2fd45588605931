"""The overview of a Humanity's Last Arena run, and of a series of them
(:mod:`pdbench.overview`): the top of the leaderboard with its intervals, the ranks that are
not settled and why, how far the Bradley-Terry ranking agrees, the flagged judges. Every
number is a value of ``leaderboard.parquet``, ``bradley_terry.parquet``,
``score_agreement.parquet``, ``judge_player_bias.parquet`` or the series' marts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.arena.pairwise_summary import ESTIMATE_NOTE_COLUMNS, estimate_notes
from pdbench.findings import Finding, interval_text, read_rows, value_text

__all__ = ["SHOWN_PLAYERS", "arena_findings", "series_findings"]

SHOWN_PLAYERS = 3
"""The places of the leaderboard a sentence names."""
_POINTS = "points"


def _rank_range(row: dict[str, Any]) -> str:
    low, high = row["rank_ci_low"], row["rank_ci_high"]
    if low is None or high is None:
        return "rank interval —"
    return f"rank {low} at 95%" if low == high else f"rank {low} to {high} at 95%"


def _unsettled_rank(row: dict[str, Any]) -> bool:
    return row["rank_ci_low"] is not None and row["rank_ci_low"] != row["rank_ci_high"]


def _excludes_zero(low: float | None, high: float | None) -> bool:
    return low is not None and high is not None and (low > 0 or high < 0)


def _with_interval(row: dict[str, Any], column: str, prefix: str, unit: str) -> str:
    """``row[column]`` with ``row[prefix + "ci_low"]`` and ``..._high``, in ``unit``."""
    low, high = row[f"{prefix}ci_low"], row[f"{prefix}ci_high"]
    return interval_text(column, row[column], low, high, unit=unit)


def _leaderboard(run_dir: Path) -> list[Finding]:
    rows = read_rows(
        run_dir / ArenaMart.LEADERBOARD,
        ("rank", "player", "role", "score", "ci_low", "ci_high", "rank_ci_low", "rank_ci_high",
         "has_enough_data", "n_judgments", "min_judgments"),
        where="player is not null",
        order_by="rank asc nulls last, player",
    )  # fmt: skip
    ranked = [row for row in rows if row["has_enough_data"]]
    if not ranked:
        return []
    places = "; ".join(
        f"{row['rank']}. {row['player']}, "
        f"{interval_text('score', row['score'], row['ci_low'], row['ci_high'], unit=_POINTS)}, "
        f"{_rank_range(row)}"
        for row in ranked[:SHOWN_PLAYERS]
    )
    findings = [
        Finding(
            "leaderboard",
            f"Leaderboard of {len(ranked)} ranked players (mean normalised score of their "
            f"answers, 0 to 10): {places}.",
            "Leaderboard",
        )
    ]
    return findings + _unsettled(ranked, rows)


def _unsettled(ranked: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[Finding]:
    """Ranks whose 95% interval spans more than one place, and players without a rank."""
    parts = []
    open_ranks = [r for r in ranked if _unsettled_rank(r)]
    if open_ranks:
        parts.append(
            "not settled at 95%: "
            + ", ".join(f"{r['player']} ({_rank_range(r)})" for r in open_ranks)
            + " (their score intervals overlap a neighbour's)"
        )
    short = [r for r in rows if not r["has_enough_data"] and r["role"] != "judge"]
    if short:
        parts.append(
            "not ranked, too few valid judgements: "
            + ", ".join(
                f"{r['player']} ({r['n_judgments']} of {r['min_judgments']})" for r in short
            )
        )
    if not parts:
        return [Finding("inconclusive", "Every rank is settled at 95%.", "Leaderboard")]
    return [Finding("inconclusive", "Ranks " + "; ".join(parts) + ".", "Leaderboard")]


def _bradley_terry(run_dir: Path) -> list[Finding]:
    rows = read_rows(
        run_dir / ArenaMart.BRADLEY_TERRY,
        ("rank", "elo", "elo_ci_low", "elo_ci_high", *ESTIMATE_NOTE_COLUMNS),
        where="player is not null",
        order_by="rank, player",
    )
    if not rows:
        return []
    separated, convergence = estimate_notes(rows)
    estimated = [row for row in rows if not row["is_separated"]]
    parts = [f"Pairwise verdicts (Bradley-Terry){':' if separated else ''}", *separated]
    if estimated:
        top = estimated[0]
        elo = interval_text("elo", top["elo"], top["elo_ci_low"], top["elo_ci_high"], unit="Elo")
        first = "Of the others, {} comes first" if separated else "put {} first"
        parts.append(f"{first.format(top['player'])}: {elo}.")
    text = " ".join([*parts, *convergence])
    agreement = read_rows(
        run_dir / ArenaMart.SCORE_AGREEMENT,
        ("n_players", "spearman", "kendall_tau"),
        where="n_players > 0",
        order_by="n_players",
    )
    if agreement:
        row = agreement[0]
        text += (
            f" Its ranking agrees with the scores' over {row['n_players']} players: Spearman "
            f"{value_text('spearman', row['spearman'])}, Kendall's tau "
            f"{value_text('kendall_tau', row['kendall_tau'])} (no interval)."
        )
    return [Finding("agreement", text, "Pairwise")]


def _judges(run_dir: Path) -> list[Finding]:
    rows = read_rows(
        run_dir / ArenaMart.JUDGE_PLAYER_BIAS,
        ("judge", "player", "flag_kind", "relative_deviation", "q_value", "n_answers"),
        where="judge is not null and is_flagged",
        order_by="anomaly_rank, judge, player",
    )
    if not rows:
        return [
            Finding(
                "judges",
                "No judge is flagged: no judge x player bias passes the permutation test "
                "after Benjamini-Hochberg.",
                "Judges",
            )
        ]
    named = "; ".join(
        f"{row['judge']} on {row['player']} ({row['flag_kind']}, "
        f"{value_text('relative_deviation', row['relative_deviation'], _POINTS)} from the other "
        f"judges on {row['n_answers']} answers, q {value_text('q_value', row['q_value'])})"
        for row in rows
    )
    return [Finding("judges", f"{len(rows)} flagged judge x player pair(s): {named}.", "Judges")]


def arena_findings(run_dir: Path, manifest: dict[str, Any]) -> list[Finding]:
    """The sentences of an arena run's overview, answer first."""
    del manifest
    return [*_leaderboard(run_dir), *_bradley_terry(run_dir), *_judges(run_dir)]


def series_findings(series_dir: Path) -> list[Finding]:
    """The sentences of a series' overview: the combined ranking's top, the trends that are
    real (their interval excludes 0), the ranks not settled."""
    rows = read_rows(
        series_dir / SeriesMart.PLAYERS,
        ("overall_rank", "player", "n_tournaments", "mean_score", "ci_low", "ci_high",
         "rank_ci_low", "rank_ci_high", "trend", "trend_ci_low", "trend_ci_high"),
        where="player is not null",
        order_by="overall_rank, player",
    )  # fmt: skip
    if not rows:
        return []
    places = "; ".join(
        f"{row['overall_rank']}. {row['player']}, "
        f"{_with_interval(row, 'mean_score', '', _POINTS)} over {row['n_tournaments']} "
        f"tournaments, {_rank_range(row)}"
        for row in rows[:SHOWN_PLAYERS]
    )
    findings = [
        Finding("leaderboard", f"Combined ranking of {len(rows)} players: {places}.", "Series")
    ]
    trends = [r for r in rows if _excludes_zero(r["trend_ci_low"], r["trend_ci_high"])]
    if trends:
        named = "; ".join(
            f"{r['player']} {_with_interval(r, 'trend', 'trend_', 'points per tournament')}"
            for r in trends
        )
        findings.append(Finding("trend", f"Real trends: {named}.", "Series"))
    else:
        findings.append(
            Finding(
                "trend",
                "No player's trend excludes 0 at 95% (or fewer than 3 tournaments).",
                "Series",
            )
        )
    open_ranks = [r for r in rows if _unsettled_rank(r)]
    if open_ranks:
        findings.append(
            Finding(
                "inconclusive",
                "Ranks not settled at 95%: "
                + ", ".join(f"{r['player']} ({_rank_range(r)})" for r in open_ranks)
                + ".",
                "Series",
            )
        )
    return findings
