"""The label catalogue: the human name and format of every mart column a person reads.

Every label is written once, in a dbt seed. A metric column takes its label from its game's
metric catalogue (``dbt_project/seeds/<game>_metrics.csv``, :mod:`pdbench.metric_catalogue`),
with the ends of its interval and the note on it (``<metric>_ci_low``, ``_ci_high``,
``_ci_note``) derived from it; every other column (keys, counts, ids, flags, texts, the
columns both games' call summaries share) is a row of ``dbt_project/seeds/column_labels.csv``,
which also lists the columns never shown (``is_shown`` false). A column with two labels is
an error. The viewer's tables, axes and tiles, the report and the terminal summaries ask
here; a missing value is written ``—``.
"""

from __future__ import annotations

import csv
import math
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.metric_catalogue import MetricCatalogue, all_catalogues
from pdbench.number_text import p_value_text, points_text, share_text

__all__ = [
    "MISSING",
    "ColumnLabel",
    "LabelCatalogue",
    "format_cell",
    "label",
    "label_catalogue",
    "load_label_catalogue",
    "number_spec",
]

MISSING = "—"
LABELS_FILE = DBT_PROJECT_DIR / "seeds" / "column_labels.csv"
Format = Literal[
    "percent", "pp", "number", "pvalue", "count", "round", "flag", "usd", "seconds", "text"
]


class ColumnLabel(BaseModel):
    """How one column reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    format: Format
    decimals: int = 3

    @field_validator("decimals", mode="before")
    @classmethod
    def _empty_is_default(cls, value: object) -> object:
        return 3 if value == "" else value


class _LabelRow(ColumnLabel):
    """One row of ``column_labels.csv``."""

    column_name: str
    is_shown: bool


class LabelCatalogue(BaseModel):
    """Every labelled column, and the columns never shown to a person."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    columns: dict[str, ColumnLabel]
    never_shown: tuple[str, ...] = ()
    agent_columns: dict[str, ColumnLabel] = {}
    """A metric of one agent under its name without the side (``agent_metrics.parquet``),
    where the name alone would mean both agents."""

    def get(self, column: str, *, per_agent: bool = False) -> ColumnLabel | None:
        """The label of ``column``; None when it has none."""
        if per_agent and column in self.agent_columns:
            return self.agent_columns[column]
        return self.columns.get(column) or self.agent_columns.get(column)


def _metric_labels(
    catalogue: MetricCatalogue,
) -> tuple[list[tuple[str, ColumnLabel]], dict[str, ColumnLabel]]:
    """The labels of a metric catalogue's columns (intervals included), and of its metrics
    of one agent under their names without the side."""
    columns: list[tuple[str, ColumnLabel]] = []
    agent: dict[str, ColumnLabel] = {}
    for metric in catalogue.metrics:
        fmt, decimals = metric.format, metric.decimals
        for column, text in metric.labelled_columns():
            columns.append((column, ColumnLabel(label=text, format=fmt, decimals=decimals)))
            for end, end_text in metric.interval_columns(column, text):
                end_format: Format = "text" if end.endswith("_ci_note") else fmt
                columns.append(
                    (end, ColumnLabel(label=end_text, format=end_format, decimals=decimals))
                )
        if metric.per_agent:
            for column, text in metric.agent_columns():
                agent[column] = ColumnLabel(label=text, format=fmt, decimals=decimals)
    return columns, agent


_LABEL = {"label", "format", "decimals"}


def _label_rows(path: Path) -> list[_LabelRow]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [_LabelRow.model_validate(row) for row in csv.DictReader(handle)]


def load_label_catalogue(labels_file: Path, catalogues: list[MetricCatalogue]) -> LabelCatalogue:
    """The labels of ``labels_file`` (a CSV like ``column_labels.csv``) and of the metric
    catalogues; a ValueError naming the column when two of them label the same column."""
    rows = _label_rows(labels_file)
    labelled: list[tuple[str, ColumnLabel, str]] = [
        (
            row.column_name,
            ColumnLabel.model_validate(row.model_dump(include=_LABEL)),
            labels_file.name,
        )
        for row in rows
        if row.is_shown
    ]
    agent_columns: dict[str, ColumnLabel] = {}
    for catalogue in catalogues:
        sided, agent = _metric_labels(catalogue)
        labelled += [(column, found, catalogue.source) for column, found in sided]
        agent_columns.update(agent)
    never_shown = tuple(row.column_name for row in rows if not row.is_shown)
    columns: dict[str, ColumnLabel] = {}
    source: dict[str, str] = dict.fromkeys(never_shown, f"{labels_file.name} (never shown)")
    for column, found, where in labelled:
        if column in source:
            raise ValueError(f"{column}: labelled twice, in {source[column]} and in {where}")
        source[column] = where
        columns[column] = found
    return LabelCatalogue(columns=columns, never_shown=never_shown, agent_columns=agent_columns)


@cache
def label_catalogue() -> LabelCatalogue:
    """The labels of ``dbt_project/seeds/column_labels.csv`` and of every game's metric
    catalogue."""
    return load_label_catalogue(LABELS_FILE, all_catalogues())


def label(column: str, *, per_agent: bool = False) -> str:
    """The human name of ``column``; the name with spaces for a column the catalogue lacks
    (the coverage test keeps that from reaching a mart)."""
    found = label_catalogue().get(column, per_agent=per_agent)
    return found.label if found else column.replace("_", " ")


def number_spec(column: str, *, signed: bool = False) -> str:
    """The format spec of a number column as its catalogue says (``.3f``; ``+.3f`` for a
    signed difference; a mean round ``.1f``): the one source of a number's decimals for a
    Python format, an Altair (d3) format and, after ``%``, a Streamlit one. A KeyError for a
    column the catalogue does not give as a number or a round."""
    found = label_catalogue().get(column)
    if found is None or found.format not in ("number", "round"):
        raise KeyError(f"{column}: no number column in the label catalogue")
    places = found.decimals if found.format == "number" else 1
    return f"{'+' if signed else ''}.{places}f"


def format_cell(column: str, value: object, *, per_agent: bool = False) -> str:
    """``value`` of ``column`` as a person reads it: a share in percent (one decimal, more for
    a share that is not 0 or 1 but would read so: :func:`~pdbench.number_text.share_text`), a
    difference of two shares in signed percentage points, a number with its decimals (one
    that rounds to zero without a minus sign), a p-value with three (``< 0.001`` below), a
    count whole, a mean round whole or with one decimal, a flag yes/no, money in USD; ``—``
    when missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    found = label_catalogue().get(column, per_agent=per_agent)
    kind = found.format if found else "text"
    if kind == "percent":
        return share_text(float(value))  # type: ignore[arg-type]
    if kind == "pvalue":
        return p_value_text(float(value))  # type: ignore[arg-type]
    if kind == "number":
        text = f"{float(value):.{found.decimals if found else 3}f}"  # type: ignore[arg-type]
        return text.removeprefix("-") if float(text) == 0 else text
    if kind == "pp":
        return points_text(float(value), found.decimals if found else 1)  # type: ignore[arg-type]
    if kind == "count":
        return f"{int(value):d}"  # type: ignore[call-overload]
    if kind == "round":
        number = float(value)  # type: ignore[arg-type]
        return f"{number:.0f}" if number.is_integer() else f"{number:.1f}"
    if kind == "flag":
        return "yes" if bool(value) else "no"
    if kind == "usd":
        return f"${float(value):.4f}"  # type: ignore[arg-type]
    if kind == "seconds":
        return f"{float(value):.2f} s"  # type: ignore[arg-type]
    return str(value)
