"""Pieces the pages of every game are built from: a row of metric tiles, a note where a
table has nothing to show, and the number formats of table columns."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import streamlit as st

from pdbench.ui.formats import ValueKind, format_value

__all__ = ["Tile", "nothing_to_show", "points_column", "share_column", "tiles"]


class Tile(NamedTuple):
    """A metric tile: one column of a row, written as ``kind`` says."""

    label: str
    column: str
    help_text: str
    kind: ValueKind = "count"


def tiles(row: pd.Series, shown: list[Tile]) -> None:
    """One row of tiles, each a column of ``row`` written as its format says."""
    for place, tile in zip(st.columns(len(shown)), shown, strict=True):
        value = format_value(row[tile.column], tile.kind)
        place.metric(tile.label, value, help=tile.help_text, border=True)


def nothing_to_show(rows: pd.DataFrame, note: str) -> bool:
    """Whether ``rows`` is empty; if so ``note`` says on the page why."""
    if rows.empty:
        st.info(note)
    return rows.empty


def points_column(title: str) -> st.column_config.NumberColumn:
    """A table column of scores or points, two decimals."""
    return st.column_config.NumberColumn(title, format="%.2f")


def share_column(title: str) -> st.column_config.NumberColumn:
    """A table column of a share (0..1), in percent."""
    return st.column_config.NumberColumn(title, format="percent")
