"""A game's metric catalogue: every metric once, with its label, unit, format and definition.

A game keeps its catalogue as a dbt seed, ``dbt_project/seeds/<game>_metrics.csv``
(``pd_metrics.csv``, ``arena_metrics.csv``): the SQL models join it (the PD's
int_pd_metric_columns), and Python reads it here, typed. The labels of the viewer, the report
and the terminal summaries (:mod:`pdbench.column_labels`), the viewer's metric lists,
``pdbench compare`` and the metric tables of ``docs/metrics.md`` come from it.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from pdbench.dbt_project import DBT_PROJECT_DIR

__all__ = [
    "INTERVAL_METHODS",
    "Metric",
    "MetricCatalogue",
    "all_catalogues",
    "load_catalogue",
    "load_game_catalogue",
]

SIDES = ("a", "b")
Format = Literal["percent", "pp", "number", "pvalue", "count", "round", "flag", "seconds", "usd"]
Interval = Literal[
    "t",
    "wilson",
    "welch",
    "agresti_caffo",
    "fisher_z",
    "bootstrap",
    "bootstrap_or_sandwich",
    "none",
]
INTERVAL_METHODS: dict[str, str] = {
    "t": "Student's t",
    "wilson": "Wilson score interval on the pooled counts",
    "welch": "Welch's t for a difference of two means",
    "agresti_caffo": "Agresti-Caffo for a difference of two shares",
    "fisher_z": "Fisher's z for a correlation",
    "bootstrap": "percentiles of a bootstrap",
    "bootstrap_or_sandwich": (
        "percentiles of a bootstrap over questions (absolute judging) or a sandwich clustered "
        "by question (pairwise verdicts)"
    ),
    "none": "no interval",
}
"""What each interval kind of a catalogue is, in words (the methods of ``pdbench report``)."""
Bounds = Literal["share", "payoff", "match_payoff", "payoff_gap", "round", "rounds"]


class Metric(BaseModel):
    """One metric of a game, as its catalogue entry says."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    position: int
    """Its place among the columns of the wide marts."""
    name: str
    """The column; for a metric of each agent the column without its side."""
    per_agent: bool = False
    """One value per agent side (``name_a``, ``name_b``) or one for the match."""
    label: str
    """What a person reads; a side's column reads ``A's <label>``."""
    unit: str
    format: Format
    decimals: int = 3
    """Decimals of a ``number``."""
    is_rate: bool
    """A share in [0, 1]."""
    interval: Interval
    """Its 95% interval: Student's t, Wilson on counts, Welch's t for a difference of two
    means, Agresti-Caffo for a difference of two shares, Fisher's z for a correlation, the
    percentiles of a bootstrap, or none."""
    bounds: Bounds | None = None
    """The range its value can take, to which its interval is clipped: ``share`` [0, 1];
    ``payoff`` the run's lowest to highest payoff; ``match_payoff`` those times the rounds of
    a match; ``payoff_gap`` plus or minus their difference times the rounds; ``round`` 1 to
    the rounds of a match; ``rounds`` 0 to them. None: no bound (a count, a flag)."""
    headline: bool = False
    """One of the few metrics of each agent a summary table shows (the report's per-agent
    table)."""
    interval_stem: str | None = None
    """The interval's columns are ``<interval_stem>_ci_low`` and ``_ci_high``; the metric's
    own column when None."""
    condition: Literal["mean", "pooled", "sum", "own"] | None = None
    """How a condition row gets it from its replicates (a PD metric)."""
    marts: tuple[str, ...] = ()
    """The marts (file names without ``.parquet``) it is a column of; apart by spaces in the
    seed. Empty for the PD, whose metrics are the columns of its wide marts."""
    description: str
    definition: str = ""
    """The definition the docs give; the description when empty."""
    trials: str | None = None
    """For a rate counting events over a known number of trials per replicate, the count
    column (without its side) that holds that number."""
    successes: str | None = None
    """For a share pooled over replicates, the count column of its successes."""

    @field_validator("trials", "successes", "interval_stem", "condition", "bounds", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return value or None

    @field_validator("marts", mode="before")
    @classmethod
    def _words(cls, value: object) -> object:
        return value.split() if isinstance(value, str) else value

    def columns(self) -> list[str]:
        """The columns of ``aggregates.parquet`` this metric fills, in their order."""
        return [column for column, _ in self.labelled_columns()]

    def labelled_columns(self) -> list[tuple[str, str]]:
        """Each column with its human label (``A's forgiveness``)."""
        if not self.per_agent:
            return [(self.name, self.label)]
        return [
            (f"{column}_{side}", f"{side.upper()}'s {label}")
            for side in SIDES
            for column, label in self.agent_columns()
        ]

    def agent_columns(self) -> list[tuple[str, str]]:
        """The column of one side without its suffix (``agent_metrics.parquet``), labelled."""
        return [(self.name, self.label)]

    def interval_columns(self, column: str, label: str) -> list[tuple[str, str]]:
        """The columns of the interval of ``column`` (one of :meth:`columns`, labelled
        ``label``), each labelled: its low and high ends, and the note saying why there is
        none; no column for a metric without an interval."""
        if self.interval == "none":
            return []
        stem = self.interval_stem or column
        return [
            (f"{stem}_ci_low", f"{label}, 95% low"),
            (f"{stem}_ci_high", f"{label}, 95% high"),
            (f"{stem}_ci_note", f"{label}: note on its interval"),
        ]


class MetricCatalogue(BaseModel):
    """A game's metrics in the order of its marts' columns."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metrics: tuple[Metric, ...]
    source: str = ""
    """The seed it was read from (``pd_metrics.csv``), for messages."""

    @property
    def agent_columns(self) -> tuple[str, ...]:
        """The metrics of one agent, in order: the columns of the per-agent mart."""
        return tuple(metric.name for metric in self.metrics if metric.per_agent)

    def labels(self) -> dict[str, str]:
        """Every column of the catalogue's metrics (side columns included) -> its label."""
        return {
            column: label for metric in self.metrics for column, label in metric.labelled_columns()
        }

    def metric_of(self, column: str) -> Metric:
        """The metric whose column (with or without its side) ``column`` is."""
        for metric in self.metrics:
            if column in metric.columns() or column in dict(metric.agent_columns()):
                return metric
        raise KeyError(column)

    def where(self, *, interval: tuple[str, ...] | None = None) -> list[Metric]:
        """The metrics with one of these interval kinds (all when None), in order."""
        return [m for m in self.metrics if interval is None or m.interval in interval]

    def markdown_table(self) -> str:
        """The catalogue as a Markdown table of ``docs/metrics.md``, with the marts of each
        metric when the catalogue names them."""
        with_marts = any(metric.marts for metric in self.metrics)
        head = ["column", "label", "unit", "interval", *(["marts"] if with_marts else [])]
        lines = [
            "| " + " | ".join([*head, "definition"]) + " |",
            "| " + " | ".join(["---"] * (len(head) + 1)) + " |",
        ]
        for metric in self.metrics:
            column = f"`{metric.name}`"
            if metric.per_agent:
                column += " (`_a`, `_b`)"
            interval: str = metric.interval
            if metric.interval_stem:
                interval += f" (`{metric.interval_stem}_ci_*`)"
            cells = [column, metric.label, metric.unit, interval]
            if with_marts:
                cells.append(", ".join(f"`{mart}`" for mart in metric.marts))
            cells.append(metric.definition or metric.description)
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
        return "\n".join(lines) + "\n"


def load_catalogue(path: Path) -> MetricCatalogue:
    """The catalogue in ``path``: a CSV file (a dbt seed), one metric a row, in the order of
    its ``position``."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = [
            {"name" if key == "metric" else key: value for key, value in row.items()}
            for row in csv.DictReader(handle)
        ]
    metrics = sorted((Metric.model_validate(row) for row in rows), key=lambda m: m.position)
    return MetricCatalogue(metrics=tuple(metrics), source=path.name)


def load_game_catalogue(file_name: str) -> MetricCatalogue:
    """The catalogue of a game in ``dbt_project/seeds/<file_name>``."""
    return load_catalogue(DBT_PROJECT_DIR / "seeds" / file_name)


def all_catalogues() -> list[MetricCatalogue]:
    """Every game's catalogue (``dbt_project/seeds/*_metrics.csv``), by file name."""
    return [
        load_catalogue(path) for path in sorted((DBT_PROJECT_DIR / "seeds").glob("*_metrics.csv"))
    ]
