"""How a ranking was counted and how few judgements hold a place, in words: the sentences the
overview, the report, the viewer and ``pdbench aggregate`` write from ``n_to_flip_next`` of
``leaderboard.parquet`` and ``bradley_terry.parquet`` (``docs/arena_ratings.md``, "How few
judgements hold a place") and from its ``tie_model`` and ``tie_parameter``."""

from __future__ import annotations

from pdbench.number_text import plural

__all__ = ["leaderboard_fragility", "pairwise_fragility", "tie_model_text"]


def leaderboard_fragility(leader: str, runner_up: str, n_to_flip: int | None) -> str:
    """``The leader's place rests on 26 valid judgements: ...``, from the leaderboard."""
    if n_to_flip is None:
        return (
            f"No removal of valid judgements (an answer keeping one) puts {runner_up} above "
            f"{leader}."
        )
    return (
        f"The leader's place rests on {plural(n_to_flip, 'valid judgement')}: removing them "
        f"puts {runner_up} above {leader} (the other judgements' normalised scores held)."
    )


def pairwise_fragility(
    player: str, next_player: str, n_to_flip: int | None, *, is_exact: bool | None
) -> str:
    """``Its place rests on at most 27 verdicts: ...``, from the Bradley-Terry ranking (a
    greedy count, so an upper bound unless it is exact)."""
    if n_to_flip is None:
        return f"No removal of verdicts puts {next_player} above {player}."
    bound = "" if is_exact else "at most "
    return (
        f"{player}'s place rests on {bound}{plural(n_to_flip, 'verdict')}: removing them and "
        f"refitting puts {next_player} above it."
    )


def tie_model_text(
    tie_model: str | None, nu: float | None, low: float | None, high: float | None
) -> str:
    """``a tie half a win to each side``, or Davidson's model with its tie parameter and 95%
    interval."""
    if tie_model != "davidson":
        return "a tie half a win to each side"
    if nu is None:
        return "ties by Davidson's model"
    interval = "no interval" if low is None or high is None else f"95% {low:.2f} to {high:.2f}"
    return f"ties by Davidson's model, tie parameter nu = {nu:.2f} ({interval})"
