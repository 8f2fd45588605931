"""The leaderboard ``pdbench aggregate`` prints after building an arena's marts."""

from __future__ import annotations

from pathlib import Path

from pdbench.arena.joint_summary import joint_model_lines
from pdbench.arena.marts import ArenaMart
from pdbench.arena.pairwise_summary import bradley_terry_lines
from pdbench.column_labels import number_spec
from pdbench.number_text import plural
from pdbench.tables import aligned, built_mart_rows, mart_rows

__all__ = ["leaderboard_table"]


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None else f"{_number(low)} .. {_number(high)}"


def _ranks(low: int | None, high: int | None) -> str:
    if low is None:
        return "-"
    return f"{low}" if low == high else f"{low}-{high}"


def leaderboard_table(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """The players by rank: score, its interval, the rank interval, answers judged and the
    valid judgements the score rests on (unreadable ones are not counted). A player
    whose score rests on fewer valid judgements than ``min_judgments`` has no rank and, in
    place of the interval, ``insufficient data (n of min judgements)``; a judge-only
    participant (role ``judge``) has none and ``judge only (not ranked)``."""
    if not tables.get(ArenaMart.LEADERBOARD):
        return [*bradley_terry_lines(run_dir, tables), *joint_model_lines(run_dir, tables)]
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
            "has_enough_data",
            "n_judgments",
            "min_judgments",
            "status",
        ),
        where="player is not null",
        order_by="rank asc nulls last, player asc",
    )
    if tables.get(ArenaMart.BRADLEY_TERRY) and not any(row[11] for row in rows):
        # judged in pairs only: no score
        return [*bradley_terry_lines(run_dir, tables), *joint_model_lines(run_dir, tables)]
    table = [("rank", "player", "score", "95% CI", "rank interval", "answers", "valid judgements")]
    for row in rows:
        rank, player, score, low, high, rank_low, rank_high, n_answers = row[:8]
        enough, n_judgments, min_judgments, status = row[10:]
        if enough:
            interval = _interval(low, high)
        elif status == "judge only":
            interval = "judge only (not ranked)"
        else:
            interval = f"insufficient data ({n_judgments} of {plural(min_judgments, 'judgement')})"
        table.append(
            (
                "-" if rank is None else str(rank),
                str(player),
                _number(score),
                interval,
                _ranks(rank_low, rank_high),
                str(n_answers),
                str(n_judgments),
            )
        )
    normalization, bootstrap_n = (rows[0][8], rows[0][9]) if rows else ("?", "?")
    return [
        f"leaderboard (normalisation {normalization}; 95% intervals from {bootstrap_n} "
        "bootstrap replicates over questions):",
        *aligned(table),
        *_truncation_lines(run_dir),
        *_diversity_lines(run_dir, tables),
        *_audience_line(run_dir, tables),
        *bradley_terry_lines(run_dir, tables),
        *joint_model_lines(run_dir, tables),
    ]


def _truncation_lines(run_dir: Path) -> list[str]:
    """A note per player with scored answers cut at the token limit: they are scored as they
    stand, so the player's score may be the judges' verdict on half answers."""
    rows = mart_rows(
        run_dir / ArenaMart.LEADERBOARD,
        columns=("player", "n_answers_truncated", "n_answers"),
        where="n_answers_truncated > 0",
        order_by="player",
    )
    return [
        f"note: {n_truncated} of {player}'s {n_answers} scored answers were cut at the token "
        "limit and are scored as they stand (is_answer_truncated in answer_scores.parquet)"
        for player, n_truncated, n_answers in rows
    ]


def _diversity_lines(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """With ``diversity``: each player's diversity and the score with the bonus, beside the
    plain score (which the leaderboard above never mixes it into)."""
    rows = built_mart_rows(
        run_dir,
        tables,
        ArenaMart.DIVERSITY,
        columns=(
            "player",
            "score",
            "diversity_score",
            "diversity_z",
            "score_with_bonus",
            "n_near_duplicate_pairs",
            "n_cross_near_duplicates",
            "weight",
        ),
        where="player is not null",
        order_by="rank asc nulls last, player asc",
    )
    if not rows:
        return []
    table = [("player", "score", "diversity", "z", "with bonus", "near duplicates (own, across)")]
    for player, score, diversity, z, bonus, own, across, _ in rows:
        table.append(
            (
                str(player),
                _number(score),
                _number(diversity, "diversity_score"),
                _number(z, "diversity_z"),
                _number(bonus, "score_with_bonus"),
                f"{own}, {across}",
            )
        )
    return [
        "",
        f"diversity of each player's questions (score with bonus = score + {rows[0][7]:g} x z; "
        "the leaderboard is the plain score):",
        *aligned(table),
    ]


def _number(value: float | None, column: str = "score") -> str:
    """``value`` with the decimals the catalogue gives ``column``; ``-`` when missing."""
    return "-" if value is None else format(value, number_spec(column))


def _audience_line(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """One line on the audience's votes (``pdbench audience``), when people voted."""
    rows = built_mart_rows(
        run_dir,
        tables,
        ArenaMart.AUDIENCE_SCORES,
        columns=(
            "n_votes",
            "n_answers_voted",
            "n_answers_compared",
            "agreement_pearson",
            "agreement_spearman",
            "agreement_is_few_data",
            "agreement_null_reason",
        ),
        where="n_votes > 0",
        order_by="player",
    )
    if not rows:
        return []
    votes = sum(row[0] for row in rows)
    answers = sum(row[1] for row in rows)
    compared, pearson, spearman, few, reason = rows[0][2:]
    if reason is not None:
        agreement = f"no agreement with the models over {plural(compared, 'answer')}: {reason}"
    else:
        agreement = (
            f"agreement with the models over {plural(compared, 'answer')}: Pearson "
            f"{_number(pearson, 'agreement_pearson')}, Spearman "
            f"{_number(spearman, 'agreement_spearman')}" + (" (few data)" if few else "")
        )
    return [
        f"audience: {plural(votes, 'vote')} on {plural(answers, 'answer')}; {agreement} "
        "(audience_scores.parquet)"
    ]
