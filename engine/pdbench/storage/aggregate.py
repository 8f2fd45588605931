"""Build the dbt marts of a run directory (placeholder until the dbt project lands)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["AggregateSummary", "aggregate_run"]


@dataclass(frozen=True)
class AggregateSummary:
    """What `pdbench aggregate` reports: the marts written and a short table to print."""

    run_dir: Path
    game: str
    tables: dict[str, int] = field(default_factory=dict)
    """Parquet file name -> rows written."""
    text: str = ""
    """A short human-readable summary table."""


def aggregate_run(run_dir: Path) -> AggregateSummary:
    """Run dbt on ``run_dir`` and write its marts as Parquet into it."""
    raise NotImplementedError("the dbt project is not built yet")
