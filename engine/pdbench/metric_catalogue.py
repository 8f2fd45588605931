"""A game's metric catalogue: every metric once, with its label, unit, format and definition.

A game keeps its catalogue in one file under ``dbt_project/macros/`` that is YAML and a dbt
macro file at once (``pd_metric_catalogue.sql``): the SQL models loop over lists filtered from
it (``macros/metric_catalogue.sql``), and Python reads it here, typed. The viewer's metric
lists, ``pdbench compare`` and the metric table of ``docs/metrics.md`` come from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pdbench.storage.dbt import DBT_PROJECT_DIR
from pdbench.yaml_files import read_yaml

__all__ = [
    "Metric",
    "MetricCatalogue",
    "all_catalogues",
    "load_catalogue",
    "load_game_catalogue",
]

SIDES = ("a", "b")
Format = Literal["percent", "number", "count", "round", "flag", "seconds", "usd"]


class Metric(BaseModel):
    """One metric of a game, as its catalogue entry says."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    """The column; for a metric of each agent the column without its side."""
    per_agent: bool = False
    """One value per agent side (``name_a``, ``name_b``) or one for the match."""
    states: tuple[str, ...] = ()
    """For a family of metrics, one per state: ``name_<state>_<side>``."""
    label: str
    """What a person reads; a side's column reads ``A's <label>``."""
    unit: str
    format: Format
    decimals: int = 3
    """Decimals of a ``number``."""
    is_rate: bool
    """A share in [0, 1]."""
    interval: Literal["t", "wilson", "none"]
    """Student's t over replicates, Wilson on pooled counts, or no interval."""
    condition: Literal["mean", "pooled", "sum", "own"]
    """How a condition row gets it from its replicates."""
    description: str
    definition: str
    trials: str | None = None
    """For a rate counting events over a known number of trials per replicate, that number:
    an SQL expression over ``int_pd_match_metrics``, ``<side>`` standing for the side."""

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
        """The columns of one side without its suffix (``agent_metrics.parquet``), labelled."""
        if not self.states:
            return [(self.name, self.label)]
        return [(f"{self.name}_{state}", f"{self.label} {state.upper()}") for state in self.states]


class MetricCatalogue(BaseModel):
    """A game's metrics in the order of its marts' columns."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metrics: tuple[Metric, ...]
    agent_columns: tuple[str, ...] = ()
    """The columns of the per-agent mart that carry a metric of one side, in its order."""

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
        """The catalogue as the Markdown table of ``docs/metrics.md``."""
        lines = [
            "| column | label | unit | interval | definition |",
            "| --- | --- | --- | --- | --- |",
        ]
        for metric in self.metrics:
            column = f"`{metric.name}`"
            if metric.states:
                column = f"`{metric.name}_{{{','.join(metric.states)}}}`"
            if metric.per_agent:
                column += " (`_a`, `_b`)"
            definition = metric.definition.replace("|", "\\|")
            lines.append(
                f"| {column} | {metric.label} | {metric.unit} | {metric.interval} | {definition} |"
            )
        return "\n".join(lines) + "\n"


def load_catalogue(path: Path) -> MetricCatalogue:
    """The catalogue in ``path`` (YAML; its dbt macro tags are YAML comments)."""
    return MetricCatalogue.model_validate(read_yaml(path))


def load_game_catalogue(file_name: str) -> MetricCatalogue:
    """The catalogue of a game in ``dbt_project/macros/<file_name>``."""
    return load_catalogue(DBT_PROJECT_DIR / "macros" / file_name)


def all_catalogues() -> list[MetricCatalogue]:
    """Every game's catalogue (``dbt_project/macros/*_metric_catalogue.sql``), by file name."""
    return [
        load_catalogue(path)
        for path in sorted((DBT_PROJECT_DIR / "macros").glob("*_metric_catalogue.sql"))
    ]
