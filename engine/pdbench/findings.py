"""The words of an overview (:mod:`pdbench.overview`): a finding, and how a mart's value is
written in one, with its unit and its 95% interval, as the label catalogue says
(:mod:`pdbench.column_labels`); ``—`` for a missing value. Each game's sentences are built
from these (``pd/overview.py``, ``arena/overview.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.column_labels import MISSING, format_cell
from pdbench.tables import mart_rows

__all__ = ["Finding", "bracket_text", "interval_text", "read_rows", "value_text"]


@dataclass(frozen=True)
class Finding:
    """One sentence of an overview: what it answers, the sentence, where to read more."""

    topic: str
    """What question it answers: ``cooperation``, ``score``, ``differences``,
    ``standings``, ``inconclusive``, ``leaderboard``, ``agreement``, ``judges``, ..."""
    text: str
    page: str
    """The viewer page that holds the detail (``All conditions``, ``Leaderboard``, ...)."""
    focus: str | None = None
    """What the page should open on, when the page shows one thing at a time (the PD's
    ``Condition`` page: the condition the sentence names first); None: the page as it is."""


def value_text(column: str, value: Any, unit: str = "") -> str:
    """``value`` of ``column`` as the label catalogue writes it, its ``unit`` after it
    (none after a percentage); ``—`` when missing."""
    text = format_cell(column, value)
    if text == MISSING or not unit or text.endswith("%"):
        return text
    return f"{text} {unit}"


def interval_text(
    column: str, value: Any, low: Any, high: Any, *, unit: str = "", note: str | None = None
) -> str:
    """``50.0% (95% interval 37.5% to 62.5%)``; without an interval, the value and why
    (``note``, the mart's ``_ci_note``) or ``no interval``."""
    shown = value_text(column, value, unit)
    if low is None or high is None or shown == MISSING:
        return f"{shown} (no interval: {note})" if note else f"{shown} (no interval)"
    return f"{shown} (95% interval {format_cell(column, low)} to {format_cell(column, high)})"


def bracket_text(column: str, value: Any, low: Any, high: Any, *, unit: str = "") -> str:
    """The short form for a chart's side: ``50.0% [37.5%, 62.5%]``; ``[—]`` without an
    interval."""
    shown = value_text(column, value, unit)
    if low is None or high is None:
        return f"{shown} [{MISSING}]"
    return f"{shown} [{format_cell(column, low)}, {format_cell(column, high)}]"


def read_rows(
    path: Path, columns: tuple[str, ...], *, where: str, order_by: str
) -> list[dict[str, Any]]:
    """The rows of the mart at ``path`` as dicts (none when the file is missing); the all-NULL
    row an empty model writes is left out by ``where``."""
    if not path.is_file():
        return []
    rows = mart_rows(path, columns=columns, where=where, order_by=order_by)
    return [dict(zip(columns, row, strict=True)) for row in rows]
