"""Pieces the pages of every game are built from: a row of metric tiles, a note where a
table has nothing to show, and the headers and number formats of table columns (from the
label catalogue, :mod:`pdbench.column_labels`)."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import streamlit as st

from pdbench.column_labels import label_catalogue
from pdbench.ui.formats import ValueKind, format_value

__all__ = [
    "Tile",
    "labelled_columns",
    "nothing_to_show",
    "points_column",
    "share_column",
    "tiles",
]


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


_NUMBER_FORMATS = {
    "percent": "percent",
    "count": "%d",
    "round": "%.1f",
    "usd": "$%.4f",
    "seconds": "%.2f s",
}


def labelled_columns(columns: list[str], *, per_agent: bool = False) -> dict[str, object]:
    """The Streamlit column configs of a table of mart columns: each header the column's
    human label, each number in its format (label catalogue). The data keep their names."""
    config: dict[str, object] = {}
    for column in columns:
        found = label_catalogue().get(column, per_agent=per_agent)
        if found is None:
            continue
        if found.format == "text":
            config[column] = st.column_config.TextColumn(found.label)
        elif found.format == "flag":
            config[column] = st.column_config.CheckboxColumn(found.label)
        else:
            fmt = _NUMBER_FORMATS.get(found.format, f"%.{found.decimals}f")
            config[column] = st.column_config.NumberColumn(found.label, format=fmt)
    return config
