"""The leaderboard ``pdbench aggregate`` prints after building an arena's marts."""

from __future__ import annotations

from pathlib import Path

from pdbench.storage.marts import ArenaMart
from pdbench.tables import aligned, mart_rows

__all__ = ["leaderboard_table"]


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None else f"{low:.2f} .. {high:.2f}"


def _ranks(low: int | None, high: int | None) -> str:
    if low is None:
        return "-"
    return f"{low}" if low == high else f"{low}-{high}"


def leaderboard_table(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """The players by rank: score, its interval, the rank interval, answers judged."""
    if not tables.get(ArenaMart.LEADERBOARD):
        return []
    rows = mart_rows(
        run_dir / ArenaMart.LEADERBOARD,
        columns=(
            "rank",
            "player",
            "score",
            "ci_low",
            "ci_high",
            "rank_ci_low",
            "rank_ci_high",
            "n_answers",
            "normalization",
            "bootstrap_n",
        ),
        where="player is not null",
        order_by="rank asc nulls last, player asc",
    )
    table = [("rank", "player", "score", "95% CI", "rank interval", "answers")]
    for rank, player, score, low, high, rank_low, rank_high, n_answers, _, _ in rows:
        table.append(
            (
                "-" if rank is None else str(rank),
                str(player),
                "-" if score is None else f"{score:.2f}",
                _interval(low, high),
                _ranks(rank_low, rank_high),
                str(n_answers),
            )
        )
    normalization, bootstrap_n = (rows[0][8], rows[0][9]) if rows else ("?", "?")
    return [
        f"leaderboard (normalisation {normalization}; 95% intervals from {bootstrap_n} "
        "bootstrap replicates over questions):",
        *aligned(table),
    ]
