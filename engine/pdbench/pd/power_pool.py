"""The replicates the PD's power planner draws from: each compared pair's per-replicate values
of every compared metric, measured by the project's own SQL.

Without a pilot the config's own agents play a pool of replicates (policies and the mock
provider only: nothing is paid) into a temporary run directory, measured once by ``dbt
build`` as any run is; with ``--pilot RUN_DIR`` the pool is that run, read only. Either way
the values come from the replicate rows of ``aggregates.parquet`` and the compared pairs
and tests from ``comparisons.parquet``: what the planner simulates is what the run's own
marts would hold.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError, RunDirError
from pdbench.pd.analysis import comparable_metrics
from pdbench.pd.config import ExperimentConfig
from pdbench.power.sign_flip import Floats
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.storage.manifest import read_manifest

__all__ = ["Pool", "played_pool", "read_pool"]


@dataclass(frozen=True)
class Pool:
    """Per-replicate values of a PD run, and its compared pairs and tests."""

    source: str
    """Where the values come from, as a sentence's end."""
    replicates: list[int]
    """The replicates every compared condition finished, in order."""
    values: dict[tuple[str, str], Floats]
    """(condition, metric) -> values in the order of ``replicates`` (NaN: undefined)."""
    tests: list[tuple[str, str, str]]
    """(condition_1, condition_2, metric) of every test with a p-value, in the mart's order."""
    n_tests: int
    """The run's tests (rows of ``comparisons.parquet``)."""

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """The compared pairs, in order."""
        return sorted({(first, second) for first, second, _ in self.tests})

    def differences(self, first: str, second: str, metric: str) -> Floats:
        """The paired differences, first minus second, per replicate."""
        return self.values[(first, metric)] - self.values[(second, metric)]


def _llm_on_a_paid_provider(config: ExperimentConfig) -> str | None:
    for condition in config.conditions:
        for agent in (condition.agent_a, condition.agent_b):
            if agent.type == "llm" and agent.provider != "mock":
                return f"{condition.name}: {agent.provider}/{agent.model}"
    return None


@contextmanager
def played_pool(
    loaded: LoadedConfig, *, replicates: int, on_line: Callable[[str], None]
) -> Iterator[Pool]:
    """The config played ``replicates`` times by its own agents into a temporary run
    directory and measured (the directory is removed afterwards)."""
    from pdbench.aggregate import aggregate_run
    from pdbench.pd.experiment import run_experiment

    config: ExperimentConfig = loaded.config
    paid = _llm_on_a_paid_provider(config)
    if paid is not None:
        raise ConfigError(
            f"an agent plays on a paid provider ({paid}); the planner plays only policies and "
            "the mock: give a pilot run of this config (--pilot RUN_DIR)",
            path=loaded.path,
        )
    pool_loaded = replace(loaded, config=config.model_copy(update={"replicates": replicates}))
    with tempfile.TemporaryDirectory(prefix="pdbench-power-") as folder:
        run_dir = Path(folder) / config.run_id
        on_line(
            f"playing a pool of {replicates} replicates of every condition with the config's "
            "own agents (policies and the mock: no calls are paid)..."
        )
        run_experiment(pool_loaded, output_dir=run_dir, use_cache=False)
        on_line("measuring the pool with dbt (one build; the simulations reuse it)...")
        aggregate_run(run_dir)
        yield read_pool(
            run_dir, source=f"{replicates} replicates played by the config's own agents"
        )


def read_pool(run_dir: Path, *, source: str | None = None) -> Pool:
    """The pool of an aggregated PD run (a pilot), read only; without tests when its
    ``comparisons.parquet`` compares no pair."""
    manifest = read_manifest(run_dir)
    if manifest.game != "pd":
        raise RunDirError(f"{run_dir}: --pilot reads a PD run; this one is {manifest.game}")
    aggregates, comparisons = run_dir / "aggregates.parquet", run_dir / "comparisons.parquet"
    for path in (aggregates, comparisons):
        if not path.is_file():
            raise RunDirError(f"{run_dir}: no {path.name}; aggregate it first (pdbench aggregate)")
    with duckdb.connect() as con:
        tests = con.execute(
            "select condition_1, condition_2, metric from read_parquet($path) "
            "where p_value is not null order by condition_1, condition_2, metric",
            {"path": duckdb_path(comparisons)},
        ).fetchall()
        n_tests = con.execute(
            "select count(*) from read_parquet($path)", {"path": duckdb_path(comparisons)}
        ).fetchone()
        conditions = sorted({name for first, second, _ in tests for name in (first, second)})
        rows = _replicate_rows(con, aggregates, conditions)
    if not tests:
        return Pool(source or str(run_dir), [], {}, [], int(n_tests[0]) if n_tests else 0)
    replicates = sorted(
        set.intersection(*({r for c, r, *_ in rows if c == name} for name in conditions))
    )
    position = {replicate: i for i, replicate in enumerate(replicates)}
    metrics = comparable_metrics()
    values = {
        (name, metric): np.full(len(replicates), np.nan)
        for name in conditions
        for metric in metrics
    }
    for condition, replicate, *row in rows:
        if replicate in position:
            for metric, value in zip(metrics, row, strict=True):
                if value is not None:
                    values[(condition, metric)][position[replicate]] = float(value)
    return Pool(
        source=source or f"the {len(replicates)} replicates of the pilot run {run_dir}",
        replicates=replicates,
        values=values,
        tests=[(str(a), str(b), str(m)) for a, b, m in tests],
        n_tests=int(n_tests[0]) if n_tests else len(tests),
    )


def _replicate_rows(
    con: duckdb.DuckDBPyConnection, aggregates: Path, conditions: list[str]
) -> list[tuple[Any, ...]]:
    """(condition, replicate, metric values...) of the replicate rows of ``conditions``."""
    columns = ", ".join(f'"{metric}"' for metric in comparable_metrics())
    return con.execute(
        f"select condition, replicate, {columns} from read_parquet($path) "
        "where level = 'replicate' and list_contains($conditions, condition) "
        "order by condition, replicate",
        {"path": duckdb_path(aggregates), "conditions": conditions},
    ).fetchall()
