"""The PD config's ``analysis`` section: which metrics form the primary family of the
comparisons.

``comparisons.parquet`` corrects its p-values with Benjamini-Hochberg within families: the
primary metrics of the compared pairs form one family, every other metric the exploratory
family (``pd_comparisons``). A small primary family keeps the correction from eating the
power of the comparisons a study is run for. Without the key the primary family is the
cooperation of each seat, :data:`DEFAULT_PRIMARY`; ``stg_pd_run_manifest`` gives the same
default to a run whose manifest has no ``analysis``.
"""

from __future__ import annotations

from functools import cache

from pydantic import Field, field_validator

from pdbench.config.base import StrictModel
from pdbench.errors import unknown
from pdbench.metric_catalogue import load_game_catalogue

__all__ = ["DEFAULT_PRIMARY", "AnalysisConfig", "comparable_metrics"]

DEFAULT_PRIMARY = ("cooperation_rate_a", "cooperation_rate_b")
"""The primary family without ``analysis.primary``: the cooperation of each seat."""


@cache
def comparable_metrics() -> tuple[str, ...]:
    """The metric columns ``comparisons.parquet`` compares: every column of the PD catalogue
    (``pd_metrics.csv``) whose metric has an interval, sides included."""
    catalogue = load_game_catalogue("pd_metrics.csv")
    return tuple(
        column
        for metric in catalogue.metrics
        if metric.interval != "none"
        for column in metric.columns()
    )


class AnalysisConfig(StrictModel):
    """How the comparisons are read: the primary family of the multiple-testing correction."""

    primary: list[str] = Field(default_factory=lambda: list(DEFAULT_PRIMARY), min_length=1)
    """Metric columns of ``comparisons.parquet`` (e.g. ``cooperation_rate_a``) whose tests
    form the primary family; every other metric is exploratory, corrected in its own family."""

    @field_validator("primary")
    @classmethod
    def _known_metrics(cls, primary: list[str]) -> list[str]:
        known = comparable_metrics()
        for name in primary:
            if name not in known:
                raise ValueError(unknown("metric", name, known))
        if len(set(primary)) != len(primary):
            raise ValueError("a metric is named twice")
        return primary
