"""The Prisoner's Dilemma's metric catalogue (``dbt_project/seeds/pd_metrics.csv``): every PD
metric once, with its label, unit, format, interval and definition. The SQL models read the
same file; see :mod:`pdbench.metric_catalogue`."""

from __future__ import annotations

from functools import cache

from pdbench.metric_catalogue import MetricCatalogue, load_game_catalogue

__all__ = ["pd_metrics"]


@cache
def pd_metrics() -> MetricCatalogue:
    """The PD's metrics, in the order of the columns of ``aggregates.parquet``."""
    return load_game_catalogue("pd_metrics.csv")
