"""The label catalogue: the human name and format of every mart column a person reads.

Metric columns take their label from their game's metric catalogue
(:mod:`pdbench.metric_catalogue`), with ``<metric>_ci_low``, ``_ci_high`` and ``_ci_note``
derived from it; every other column is in ``column_labels.yml`` beside this module, or on its
list of columns never shown. The viewer's tables, axes and tiles and the terminal summaries
ask here; a missing value is written ``—``.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pdbench.metric_catalogue import MetricCatalogue, all_catalogues
from pdbench.yaml_files import read_yaml

__all__ = ["MISSING", "ColumnLabel", "LabelCatalogue", "format_cell", "label", "label_catalogue"]

MISSING = "—"
LABELS_FILE = Path(__file__).with_name("column_labels.yml")
Format = Literal["percent", "number", "count", "round", "flag", "usd", "seconds", "text"]


class ColumnLabel(BaseModel):
    """How one column reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    format: Format
    decimals: int = 3


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
) -> tuple[dict[str, ColumnLabel], dict[str, ColumnLabel]]:
    """The labels of a metric catalogue's columns (intervals included), and of its metrics
    of one agent under their names without the side."""
    columns: dict[str, ColumnLabel] = {}
    agent: dict[str, ColumnLabel] = {}
    for metric in catalogue.metrics:
        fmt = metric.format
        for column, text in metric.labelled_columns():
            columns[column] = ColumnLabel(label=text, format=fmt, decimals=metric.decimals)
            if metric.interval != "none":
                for end in ("low", "high"):
                    columns[f"{column}_ci_{end}"] = ColumnLabel(
                        label=f"{text}, 95% {end}", format=fmt, decimals=metric.decimals
                    )
                columns[f"{column}_ci_note"] = ColumnLabel(
                    label=f"{text}: why no interval", format="text"
                )
        if metric.per_agent:
            for column, text in metric.agent_columns():
                agent[column] = ColumnLabel(label=text, format=fmt, decimals=metric.decimals)
    return columns, agent


@cache
def label_catalogue() -> LabelCatalogue:
    """The labels of ``column_labels.yml`` and of every game's metric catalogue."""
    raw = read_yaml(LABELS_FILE)
    metric_columns: dict[str, ColumnLabel] = {}
    agent_columns: dict[str, ColumnLabel] = {}
    for catalogue in all_catalogues():
        sided, agent = _metric_labels(catalogue)
        metric_columns.update(sided)
        agent_columns.update(agent)
    return LabelCatalogue.model_validate(
        {
            "columns": {**raw["columns"], **metric_columns},
            "never_shown": raw.get("never_shown", []),
            "agent_columns": agent_columns,
        }
    )


def label(column: str, *, per_agent: bool = False) -> str:
    """The human name of ``column``; the name with spaces for a column the catalogue lacks
    (the coverage test keeps that from reaching a mart)."""
    found = label_catalogue().get(column, per_agent=per_agent)
    return found.label if found else column.replace("_", " ")


def format_cell(column: str, value: object, *, per_agent: bool = False) -> str:
    """``value`` of ``column`` as a person reads it: a share in percent (one decimal), a number
    with its decimals, a count whole, a mean round whole or with one decimal, a flag yes/no,
    money in USD; ``—`` when missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    found = label_catalogue().get(column, per_agent=per_agent)
    kind = found.format if found else "text"
    if kind == "percent":
        return f"{float(value):.1%}"  # type: ignore[arg-type]
    if kind == "number":
        return f"{float(value):.{found.decimals if found else 3}f}"  # type: ignore[arg-type]
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
