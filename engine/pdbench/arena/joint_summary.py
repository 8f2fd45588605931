"""The joint models in the run summary (``joint_model.parquet``): for absolute judging the
judges' leniency at both ends, the name and position biases whose interval is clear of 0 and
the style effects; for pairwise judging the position, self and name biases clear of 0 and the
style effects; each with its 95% interval."""

from __future__ import annotations

from pathlib import Path

from pdbench.arena.marts import ArenaMart
from pdbench.findings import interval_text, read_rows

__all__ = ["joint_model_lines"]

_COLUMNS = ("judging", "effect_kind", "effect_label", "joint_effect", "joint_effect_ci_low",
            "joint_effect_ci_high", "effect_unit", "is_clear_of_zero")  # fmt: skip


_SHOWN_BIASES = 3
"""The pairwise biases the summary names, the largest first."""


def _effect(row: dict[str, object], unit: str = "points") -> str:
    """An effect with its interval: points of 0..10 as the catalogue writes joint_effect, Elo
    points whole as it writes an Elo."""
    column = "elo" if row["judging"] == "pairwise" else "joint_effect"
    text = interval_text(
        column,
        row["joint_effect"],
        row["joint_effect_ci_low"],
        row["joint_effect_ci_high"],
        unit=unit,
    )
    return f"{row['effect_label']} {text}"


def joint_model_lines(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """A few lines on each joint model the run has (a biases' line only when the run played
    an arm); none when it has none."""
    if not tables.get(ArenaMart.JOINT_MODEL):
        return []
    rows = read_rows(
        run_dir / ArenaMart.JOINT_MODEL,
        _COLUMNS,
        where="effect_label is not null and is_estimable",
        order_by="joint_effect, effect_label",
    )
    absolute = [row for row in rows if row["judging"] == "absolute"]
    pairwise = [row for row in rows if row["judging"] == "pairwise"]
    held = _style_held_line(run_dir) if absolute else []
    return [*_absolute_lines(absolute), *held, *_pairwise_lines(pairwise)]


def _style_held_line(run_dir: Path) -> list[str]:
    """Each player's score with the answers' style held (leaderboard.parquet), best first."""
    rows = read_rows(
        run_dir / ArenaMart.LEADERBOARD,
        (
            "player",
            "score_style_controlled",
            "score_style_controlled_ci_low",
            "score_style_controlled_ci_high",
        ),
        where="score_style_controlled is not null",
        order_by="score_style_controlled desc, player",
    )
    if not rows:
        return []
    held = "; ".join(
        f"{row['player']} "
        + interval_text(
            "score_style_controlled",
            row["score_style_controlled"],
            row["score_style_controlled_ci_low"],
            row["score_style_controlled_ci_high"],
            unit="points",
        )
        for row in rows
    )
    return [f"  score with style held (leaderboard.parquet, score_style_controlled): {held}"]


def _style_line(rows: list[dict[str, object]]) -> list[str]:
    """The style effects, each in its own unit (points or Elo points per 100 words, ...)."""
    styles = [row for row in rows if row["effect_kind"] == "style"]
    if not styles:
        return []
    return ["  style: " + "; ".join(_effect(row, unit=str(row["effect_unit"])) for row in styles)]


def _absolute_lines(rows: list[dict[str, object]]) -> list[str]:
    if not rows:
        return []
    lenient = [row for row in rows if row["effect_kind"] == "leniency"]
    biased = [
        row
        for row in rows
        if row["effect_kind"] in ("named", "fixed_order") and row["is_clear_of_zero"]
    ]
    lines = [
        "",
        "joint model of the judgements (joint_model.parquet: quality, leniency, name and "
        "position bias and style fitted at once; points of 0..10, 95% intervals over questions):",
    ]
    if len(lenient) >= 2:
        lines.append(f"  leniency: {_effect(lenient[0])} to {_effect(lenient[-1])}")
    if any(row["effect_kind"] in ("named", "fixed_order") for row in rows):
        lines.append(
            "  name and position biases clear of 0: "
            + ("; ".join(_effect(row) for row in biased) if biased else "none")
        )
    return lines + _style_line(rows)


def _pairwise_lines(rows: list[dict[str, object]]) -> list[str]:
    """The position, self and name biases clear of 0, the largest three by size (a field of
    twenty judges has dozens), and the style effects."""
    if not rows:
        return []
    biases = ("position", "self", "name")
    estimated = [row for row in rows if row["effect_kind"] in biases]
    biased = sorted(
        (row for row in estimated if row["is_clear_of_zero"]),
        key=lambda row: -abs(float(row["joint_effect"])),  # type: ignore[arg-type]
    )
    shown = "; ".join(_effect(row, unit="Elo points") for row in biased[:_SHOWN_BIASES])
    more = len(biased) - _SHOWN_BIASES
    lines = [
        "",
        "joint model of the pairwise verdicts (joint_model.parquet: strengths, position, self "
        "and name bias and style fitted at once, every arm's verdicts; Elo points, 95% "
        "intervals over questions):",
        f"  position, self and name biases clear of 0: {len(biased)} of the "
        f"{len(estimated)} estimated"
        + (f"; the largest: {shown}" if biased else "")
        + (f"; {more} more in joint_model.parquet" if more > 0 else ""),
    ]
    return lines + _style_line(rows)
