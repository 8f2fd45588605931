"""The parts of ``pdbench report``: its sections, its tables, and its charts as inline SVG,
written here in Python: no script, no font or style sheet from any host. One chart serves
every game: a forest plot, one row per item, a dot at its value and a line across its 95%
interval; its ``<title>`` and ``<desc>`` say in words what it draws (every row's value and
interval), for a screen reader and for a reader of the HTML source."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, Literal

from pdbench.column_labels import MISSING, format_cell, label

__all__ = [
    "ForestRow",
    "Section",
    "cell_text",
    "chart_description",
    "fact_list_html",
    "forest_plot",
    "mart_table_html",
    "p_value_text",
    "table_html",
    "table_section",
]

ROW_HEIGHT = 22
LABEL_WIDTH = 250
PLOT_WIDTH = 380
VALUE_WIDTH = 250
TOP = 28
BOTTOM = 42
COLOURS = {"real": "#0072b2", "open": "#7f7f7f"}
"""Okabe-Ito blue for what holds (an interval, a real difference), grey for the rest."""


@dataclass(frozen=True)
class ForestRow:
    """One row of a forest plot."""

    label: str
    value: float | None
    low: float | None
    high: float | None
    text: str
    """The value as written beside the plot (with its interval)."""
    is_real: bool = True
    """Drawn in blue (an interval that holds, a real difference); grey otherwise."""


def _ticks(low: float, high: float) -> list[float]:
    """About five round ticks between ``low`` and ``high``."""
    span = high - low
    raw = span / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = min((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw), default=raw)
    first = math.ceil(low / step) * step
    count = math.floor((high - first) / step + 1e-9) + 1
    return [round(first + i * step, 10) for i in range(count)]


def _tick_text(tick: float, *, percent: bool, difference: bool) -> str:
    """A tick: a share in percent, a difference of shares in signed percentage points."""
    if percent and difference:
        return f"{100 * tick:+g} pp" if tick else "0"
    return f"{100 * tick:g}%" if percent else f"{tick:g}"


def _domain(
    rows: list[ForestRow], *, zero: bool, bounds: tuple[float, float] | None
) -> tuple[float, float]:
    if bounds is not None:
        return bounds
    values = [v for row in rows for v in (row.value, row.low, row.high) if v is not None]
    if zero:
        values.append(0.0)
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.05
    return low - pad, high + pad


def forest_plot(
    rows: list[ForestRow],
    *,
    title: str,
    axis: str,
    percent: bool = False,
    zero: bool = False,
    bounds: tuple[float, float] | None = None,
) -> str:
    """An SVG forest plot of ``rows``: ``axis`` titles the x axis, ``percent`` writes its
    ticks as percentages (the values are shares), ``zero`` draws the line of no difference,
    ``bounds`` fixes the axis (else it spans every value and interval)."""
    low, high = _domain(rows, zero=zero, bounds=bounds)
    width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH
    height = TOP + ROW_HEIGHT * max(len(rows), 1) + BOTTOM

    def x(value: float) -> float:
        return LABEL_WIDTH + (value - low) / (high - low) * PLOT_WIDTH

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(chart_description(rows, axis=axis))}</desc>",
        f'<text x="0" y="16" font-weight="bold">{escape(title)}</text>',
    ]
    bottom = TOP + ROW_HEIGHT * max(len(rows), 1)
    for tick in _ticks(low, high):
        shown = _tick_text(tick, percent=percent, difference=zero)
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{TOP}" x2="{x(tick):.1f}" y2="{bottom}" '
            'stroke="#e0e0e0"/>'
            f'<text x="{x(tick):.1f}" y="{bottom + 14}" text-anchor="middle">{shown}</text>'
        )
    if zero and low < 0 < high:
        parts.append(
            f'<line x1="{x(0):.1f}" y1="{TOP}" x2="{x(0):.1f}" y2="{bottom}" stroke="#000" '
            'stroke-dasharray="4 3"/>'
        )
    for index, row in enumerate(rows):
        parts.append(_row(row, TOP + ROW_HEIGHT * index + ROW_HEIGHT / 2, x))
    parts.append(
        f'<text x="{LABEL_WIDTH + PLOT_WIDTH / 2}" y="{bottom + 32}" '
        f'text-anchor="middle">{escape(axis)}</text></svg>'
    )
    return "".join(parts)


def chart_description(rows: Sequence[ForestRow], *, axis: str) -> str:
    """The chart in words: its axis, then each row's label and its value as written beside
    the plot (with its interval)."""
    if not rows:
        return f"{axis}: no rows."
    return f"{axis}: " + "; ".join(f"{row.label}, {row.text}" for row in rows) + "."


def _row(row: ForestRow, y: float, place: Callable[[float], float]) -> str:
    """One row: its label, its interval and dot at ``place`` (value -> pixel), its text."""
    colour = COLOURS["real" if row.is_real else "open"]
    parts = [
        f'<text x="{LABEL_WIDTH - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(row.label)}</text>'
    ]
    if row.low is not None and row.high is not None:
        parts.append(
            f'<line x1="{place(row.low):.1f}" y1="{y:.1f}" x2="{place(row.high):.1f}" '
            f'y2="{y:.1f}" stroke="{colour}" stroke-width="2"/>'
        )
    if row.value is not None:
        parts.append(f'<circle cx="{place(row.value):.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>')
    parts.append(
        f'<text x="{LABEL_WIDTH + PLOT_WIDTH + 8}" y="{y + 4:.1f}">{escape(row.text)}</text>'
    )
    return "".join(parts)


Place = Literal["setup", "results", "methods"]


@dataclass(frozen=True)
class Section:
    """A part of the report: a heading, a caption, an SVG chart or a table (already HTML).
    ``setup`` sections (what the run played) come before the overview, ``results`` after it,
    ``methods`` (how its numbers were computed) last."""

    heading: str
    caption: str
    body: str
    place: Place = "results"


def p_value_text(value: float | None) -> str:
    """A p-value (or a q-value) as every table of the report writes it: three decimals, and
    ``< 0.001`` below 0.001; ``—`` when missing."""
    if value is None or math.isnan(value):
        return MISSING
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def fact_list_html(facts: Sequence[tuple[str, str]]) -> str:
    """A definition list of (name, value) pairs, every text escaped."""
    items = "".join(f"<dt>{escape(name)}</dt><dd>{escape(value)}</dd>" for name, value in facts)
    return f"<dl class='facts'>{items}</dl>"


def table_html(header: list[str], rows: list[list[str]], *, row_headers: bool = False) -> str:
    """An HTML table, every cell escaped; with ``row_headers`` each row's first cell is its
    header (a matrix)."""
    head = "".join(f"<th scope='col'>{escape(cell)}</th>" for cell in header)

    def cells(row: list[str]) -> str:
        if row_headers and row:
            first, *rest = row
            return f"<th scope='row'>{escape(first)}</th>" + "".join(
                f"<td>{escape(cell)}</td>" for cell in rest
            )
        return "".join(f"<td>{escape(cell)}</td>" for cell in row)

    body = "".join(f"<tr>{cells(row)}</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


P_VALUE_COLUMNS = frozenset({"p_value", "p_value_bh", "q_value", "reverse_q_value"})
"""The columns of p- and q-values, written by :func:`p_value_text`."""


def cell_text(column: str, value: object, *, per_agent: bool = False) -> str:
    """A mart cell as the report writes it: a p- or q-value by :func:`p_value_text`, every
    other value as the label catalogue formats it (``per_agent``: a metric of one agent, in
    a mart of one row per agent)."""
    if column in P_VALUE_COLUMNS and (value is None or isinstance(value, int | float)):
        return p_value_text(None if value is None else float(value))
    return format_cell(column, value, per_agent=per_agent)


def mart_table_html(
    columns: Sequence[str], rows: list[dict[str, Any]], *, per_agent: bool = False
) -> str:
    """An HTML table of mart rows: each column's label over its formatted cells
    (``per_agent``: the metrics of one agent, as in ``agent_metrics.parquet``)."""
    return table_html(
        [label(column, per_agent=per_agent) for column in columns],
        [
            [cell_text(column, row[column], per_agent=per_agent) for column in columns]
            for row in rows
        ],
    )


def table_section(
    heading: str,
    caption: str,
    columns: Sequence[str],
    rows: list[dict[str, Any]],
    *,
    per_agent: bool = False,
) -> Section | None:
    """A section showing ``rows`` as a table; None when there is no row."""
    if not rows:
        return None
    return Section(heading, caption, mart_table_html(columns, rows, per_agent=per_agent))
