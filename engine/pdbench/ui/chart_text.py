"""The text alternative of a viewer chart, its accessible name (``st.altair_chart(...,
alt=...)``), as the Overview's charts write theirs: what the chart draws, then each mark's
label and value in the catalogue's format, up to :data:`MOST_MARKS` of them (the rest
counted). A screen reader reads it in place of the picture."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from pdbench.column_labels import format_cell

__all__ = ["MOST_MARKS", "chart_alt", "value_marks"]

MOST_MARKS = 40
"""The marks a text alternative names; past them, how many more."""


def chart_alt(what: str, marks: Iterable[str] = ()) -> str:
    """``what`` the chart draws, then its marks: ``Leaderboard ...: ada 6.250; bob 5.125.``"""
    shown = list(marks)
    if not shown:
        return f"{what}."
    more = len(shown) - MOST_MARKS
    tail = f"; and {more} more" if more > 0 else ""
    return f"{what}: {'; '.join(shown[:MOST_MARKS])}{tail}."


def value_marks(
    rows: pd.DataFrame, labels: Iterable[str], column: str, *, values: str | None = None
) -> list[str]:
    """Each row's label and its ``column`` (its ``values`` column when the data name it
    otherwise) in the catalogue's format of ``column`` (``—`` when missing)."""
    return [
        f"{name} {format_cell(column, None if pd.isna(value) else value)}"
        for name, value in zip(labels, rows[values or column], strict=True)
    ]
