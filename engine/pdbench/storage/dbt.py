"""Run the repository's dbt project on one run directory, in process.

The one place pdbench calls dbt: ``pdbench aggregate`` builds every model of a game
(:mod:`pdbench.storage.aggregate`), and the arena's question filter runs the question models
between rating and answering (:mod:`pdbench.arena.filter`). dbt reads the run directory from
``PDBENCH_RUN_DIR`` (see ``dbt_profiles.yml`` and ``dbt_project/macros/run_dir.sql``); its
target and log folders live in a temporary folder per process, so later calls in the same
process reuse dbt's partial parse, and nothing is written into the repository.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pdbench.errors import AggregationError

__all__ = ["DBT_PROJECT_DIR", "DbtResults", "invoke_dbt"]

DBT_PROJECT_DIR = Path(__file__).resolve().parents[3] / "dbt_project"
"""The repository's dbt project (its ``profiles.yml`` links to ``dbt_profiles.yml``)."""

_FAILED_STATUSES = {"error", "fail", "runtime error"}


@dataclass(frozen=True)
class DbtResults:
    """What one dbt invocation wrote and checked."""

    locations: list[str]
    """Files written by the external (Parquet) models."""
    n_checks_passed: int
    """Unit tests and data tests that passed."""


def invoke_dbt(
    command: Literal["build", "run"],
    *,
    run_dir: Path,
    select: str,
    threads: int | None = None,
) -> DbtResults:
    """Run ``dbt <command> --select <select>`` on ``run_dir``.

    Raises :class:`AggregationError` naming every failing model and test.
    """
    from dbt.cli.main import dbtRunner

    if not (DBT_PROJECT_DIR / "dbt_project.yml").is_file():
        raise AggregationError(f"dbt project not found at {DBT_PROJECT_DIR}")
    work_dir = _dbt_work_dir()
    args = [
        command,
        "--project-dir", str(DBT_PROJECT_DIR),
        "--profiles-dir", str(DBT_PROJECT_DIR),
        "--target-path", str(work_dir / "target"),
        "--log-path", str(work_dir / "logs"),
        "--select", select,
        "--no-version-check",
        "--no-send-anonymous-usage-stats",
        "--quiet",
        "--log-level-file", "none",
    ]  # fmt: skip
    if threads is not None:
        args += ["--threads", str(threads)]
    environment = {
        "PDBENCH_RUN_DIR": str(run_dir),
        "PDBENCH_DUCKDB_TEMP_DIR": str(work_dir / "duckdb"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    with _environment(environment):
        outcome = dbtRunner().invoke(args)
    if outcome.exception is not None:
        raise AggregationError(f"dbt {command} could not run on {run_dir}: {outcome.exception}")
    node_results = getattr(outcome.result, "results", None) or []
    failures = [
        f"{result.node.resource_type} {result.node.name}: {_first_line(result.message)}"
        for result in node_results
        if str(result.status).lower() in _FAILED_STATUSES
    ]
    if failures or not outcome.success:
        detail = "; ".join(failures) or "see the dbt output above"
        raise AggregationError(f"dbt {command} failed on {run_dir} ({select}): {detail}")
    locations = [
        str(result.node.config.get("location"))
        for result in node_results
        if result.node.resource_type == "model"
        and result.node.config.get("materialized") == "external"
    ]
    n_checks_passed = sum(
        1
        for result in node_results
        if result.node.resource_type in ("test", "unit_test")
        and str(result.status).lower() == "pass"
    )
    return DbtResults(locations=locations, n_checks_passed=n_checks_passed)


def _first_line(message: object) -> str:
    lines = str(message or "").strip().splitlines()
    return lines[0] if lines else "failed"


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_work_dir: Path | None = None


def _dbt_work_dir() -> Path:
    """One folder per process for dbt's target, logs and DuckDB spill files, removed at exit."""
    global _work_dir
    if _work_dir is None:
        _work_dir = Path(tempfile.mkdtemp(prefix="pdbench-dbt-"))
        atexit.register(shutil.rmtree, _work_dir, ignore_errors=True)
    return _work_dir
