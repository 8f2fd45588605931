"""Pieces the pages of every game are built from: a row of metric tiles, a note where a
table has nothing to show, and the headers and number formats of table columns (from the
label catalogue, :mod:`pdbench.column_labels`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any, NamedTuple

import pandas as pd
import streamlit as st
from streamlit.elements.lib.column_types import ColumnConfig

from pdbench.column_labels import MISSING, format_cell, label, label_catalogue, number_spec
from pdbench.metric_catalogue import all_catalogues
from pdbench.number_text import share_text
from pdbench.ui.formats import ValueKind, format_value

__all__ = [
    "Tile",
    "chart_as_table",
    "chosen_columns",
    "nothing_to_show",
    "points_column",
    "share_column",
    "show_table",
    "table_view",
    "tiles",
]

ID_COLUMNS = ("match_id", "call_id", "answer_id", "run_id", "schema_version")
"""Identifiers a person rarely reads: last in every table (``schema_version`` never shown)."""
KEY_COLUMNS = (
    "rank",
    "overall_rank",
    "condition",
    "agent",
    "player",
    "judge",
    "answerer",
    "author",
    "mutant",
)
"""The columns that say what a row is: kept in view when a table scrolls sideways, unless a
page pins others."""
WIDE_TABLE = 15
"""A table of more columns shows its chosen columns (:func:`chosen_columns`) and every column
a click away, in an expander, so that it fits the page instead of scrolling sideways."""
FIRST_COLUMNS = 10
"""The columns a wide table of no headline metric shows at first, its keys included."""
STYLED_ROWS = 5000
"""Tables up to this many rows are written cell by cell as the label catalogue says (``—``
for a missing value); longer ones keep Streamlit's number formats."""


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
    return bool(rows.empty)


def points_column(title: str, column: str = "score") -> ColumnConfig:
    """A table column of scores or points, with the decimals the catalogue gives ``column``."""
    return st.column_config.NumberColumn(title, format="%" + number_spec(column))


def share_column(title: str) -> ColumnConfig:
    """A table column of a share (0..1), in percent."""
    return st.column_config.NumberColumn(title, format="percent")


NAMED_VALUES = ("metric",)
"""Columns whose values are column names (a comparison's metric): written as their labels."""


def _cell(column: str, per_agent: bool, fmt: str | None = None) -> Any:
    def written(value: object) -> str:
        if value is None or (not isinstance(value, list | tuple | dict) and pd.isna(value)):
            return MISSING
        if fmt == "flag":
            return "yes" if bool(value) else "no"
        if fmt == "share":
            return share_text(float(value))  # type: ignore[arg-type]
        if fmt is not None:
            return fmt.format(value)
        if column in NAMED_VALUES:
            return label(str(value))
        return format_cell(column, value, per_agent=per_agent)

    return written


def table_view(
    rows: pd.DataFrame, columns: Sequence[str] | None = None, *, titled: Sequence[str] = ()
) -> tuple[pd.DataFrame, list[str]]:
    """``rows`` with only ``columns`` (default: all), identifiers last and ``schema_version``
    and the catalogue's never-shown columns left out unless ``titled`` by the page; and the
    kept column names."""
    hidden = {"schema_version", *label_catalogue().never_shown} - set(titled)
    wanted = [c for c in (columns or list(rows.columns)) if c not in hidden]
    ordered = [c for c in wanted if c not in ID_COLUMNS] + [c for c in wanted if c in ID_COLUMNS]
    return rows[ordered], ordered


_PRINTF = re.compile(r"^(.*?)%([+0-9.]*)([dfge])(.*)$")


def _python_format(printf: str | None) -> str | None:
    """A Streamlit number format (``"%.2f"``, ``"$%.4f"``, ``"percent"``) as a Python one."""
    if printf == "percent":
        return "share"
    found = _PRINTF.match(printf or "")
    if found is None:
        return None
    before, spec, kind, after = found.groups()
    if kind == "d":
        spec, kind = f"{spec}.0", "f"
    return f"{before}{{:{spec}{kind}}}{after}"


def _from_config(config: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """The headers and cell formats a page gave as Streamlit column configs."""
    titles: dict[str, str] = {}
    formats: dict[str, str] = {}
    for column, given in config.items():
        if isinstance(given, str):
            titles[column] = given
            continue
        if given.get("label"):
            titles[column] = given["label"]
        kind = given.get("type_config", {})
        if kind.get("type") == "checkbox":
            formats[column] = "flag"
        elif (fmt := _python_format(kind.get("format"))) is not None:
            formats[column] = fmt
    return titles, formats


def show_table(
    rows: pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    pinned: Sequence[str] | None = None,
    per_agent: bool = False,
    titles: dict[str, str] | None = None,
    formats: dict[str, str] | None = None,
    column_config: dict[str, Any] | None = None,
    **options: Any,
) -> None:
    """``rows`` as a table a person reads: every header the column's label, every cell in its
    format with ``—`` for a missing value, the ``pinned`` key columns (default
    :data:`KEY_COLUMNS`) kept in view when the table scrolls sideways, identifiers last
    (:func:`table_view`). ``titles`` overrides a header and ``formats`` a cell's format
    (``"{:.3g}"``; ``"flag"``: yes/no; ``"share"``: a share in percent), as Streamlit
    ``column_config`` entries do; ``options`` go to ``st.dataframe``. The data keep their
    names and values."""
    given_titles, given_formats = _from_config(column_config or {})
    titles = given_titles | (titles or {})
    shown, names = table_view(rows, columns, titled=list(titles))
    pinned = KEY_COLUMNS if pinned is None else pinned
    fmts = given_formats | (formats or {})
    config: dict[str, Any] = {
        column: st.column_config.Column(
            titles.get(column) or label(column, per_agent=per_agent),
            pinned=True if column in pinned else None,
        )
        for column in names
    }
    options.setdefault("hide_index", True)
    options.setdefault("width", "stretch")
    options.setdefault("placeholder", MISSING)

    def draw(columns: list[str]) -> None:
        data: Any = shown[columns]
        if len(shown) <= STYLED_ROWS:
            data = data.style.format({c: _cell(c, per_agent, fmts.get(c)) for c in columns})
        st.dataframe(data, column_config={c: config[c] for c in columns}, **options)

    chosen = chosen_columns(names, pinned)
    draw(chosen)
    if len(chosen) < len(names):
        with st.expander(f"All {len(names)} columns"):
            draw(names)


def chosen_columns(names: Sequence[str], pinned: Sequence[str] = ()) -> list[str]:
    """The columns a table shows at first: all of them up to :data:`WIDE_TABLE`; past it its
    keys (``pinned``, :data:`KEY_COLUMNS`, the agents' names) and the metric catalogue's
    headline columns, or, for a table of no headline metric, its keys and its first columns
    up to :data:`FIRST_COLUMNS`, in the table's order. The rest are a click away."""
    if len(names) <= WIDE_TABLE:
        return list(names)
    keys = {*pinned, *KEY_COLUMNS}
    headline = _headline_columns()
    if any(name in headline for name in names):
        return [c for c in names if c in keys or c.endswith("_name") or c in headline]
    first = [c for c in names if c in keys]
    first += [c for c in names if c not in first][: max(FIRST_COLUMNS - len(first), 0)]
    return [c for c in names if c in first]


@cache
def _headline_columns() -> frozenset[str]:
    """Every column of the catalogues' headline metrics: both sides' and one agent's."""
    return frozenset(
        column
        for catalogue in all_catalogues()
        for metric in catalogue.metrics
        if metric.headline
        for column in [*metric.columns(), *(name for name, _ in metric.agent_columns())]
    )


def chart_as_table(
    rows: pd.DataFrame,
    columns: list[str],
    *,
    titles: dict[str, str] | None = None,
    formats: dict[str, str] | None = None,
) -> None:
    """A chart's numbers as a table a click away, its text alternative (a chart has no alt
    text): ``columns`` of ``rows``, the first kept in view, as :func:`show_table` writes them."""
    with st.expander("The chart as a table"):
        show_table(rows, columns, titles=titles, formats=formats, pinned=(columns[0],))
