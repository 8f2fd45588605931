"""Run the repository's dbt project on one run directory, in process.

The one place pdbench calls dbt: ``pdbench aggregate`` builds every model of a game
(:mod:`pdbench.storage.aggregate`), and the arena's question filter runs the question models
between rating and answering (:mod:`pdbench.arena.filter`). dbt reads the run directory from
``PDBENCH_RUN_DIR`` (see ``dbt_project/macros/run_dir.sql``) and spills to
``PDBENCH_DUCKDB_TEMP_DIR`` (``dbt_project/macros/duckdb_settings.sql``).

dbt's target and log folders live in a temporary folder per process, so nothing is written
into the repository and concurrent builds never share a file. Parsing the project costs more
than building a small run, so the parse dbt saves (``partial_parse.msgpack``) is kept in the
user's cache folder and copied into each new process's target folder; dbt itself checks that
it still matches the project and parses again when it does not.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pdbench.errors import AggregationError

__all__ = ["DBT_PROJECT_DIR", "DbtResults", "invoke_dbt", "saved_parse_path"]

DBT_PROJECT_DIR = Path(__file__).resolve().parents[3] / "dbt_project"
"""The repository's dbt project (its ``profiles.yml`` links to ``dbt_profiles.yml``)."""
_PARTIAL_PARSE = "partial_parse.msgpack"

_FAILED_STATUSES = {"error", "fail", "runtime error"}


@dataclass(frozen=True)
class DbtResults:
    """What one dbt invocation wrote and checked."""

    locations: list[str]
    """Files written by the external (Parquet) models."""
    n_checks_passed: int
    """Unit tests and data tests that passed."""
    n_unit_tests_passed: int
    """Of which unit tests."""


def invoke_dbt(
    command: Literal["build", "run"],
    *,
    run_dir: Path,
    select: str,
    threads: int | None = None,
    unit_tests: bool = False,
) -> DbtResults:
    """Run ``dbt <command> --select <select>`` on ``run_dir``.

    dbt's unit tests check the SQL on hand-made inputs, whatever the run: ``build`` runs them
    only with ``unit_tests=True`` (the test suite does), and its data tests always.
    Raises :class:`AggregationError` naming every failing model and test.
    """
    from dbt.cli.main import dbtRunner

    if not (DBT_PROJECT_DIR / "dbt_project.yml").is_file():
        raise AggregationError(f"dbt project not found at {DBT_PROJECT_DIR}")
    work_dir = _dbt_work_dir()
    target_dir = work_dir / "target"
    parse_seen = _restore_saved_parse(target_dir)
    args = [
        command,
        "--project-dir", str(DBT_PROJECT_DIR),
        "--profiles-dir", str(DBT_PROJECT_DIR),
        "--target-path", str(target_dir),
        "--log-path", str(work_dir / "logs"),
        "--select", select,
        "--no-version-check",
        "--no-send-anonymous-usage-stats",
        "--quiet",
        "--log-level-file", "none",
        "--no-write-json",
    ]  # fmt: skip
    if threads is not None:
        args += ["--threads", str(threads)]
    if command == "build" and not unit_tests:
        args += ["--exclude-resource-type", "unit_test"]
    environment = {
        "PDBENCH_RUN_DIR": str(run_dir),
        "PDBENCH_DUCKDB_TEMP_DIR": str(work_dir / "duckdb"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    with _environment(environment):
        outcome = dbtRunner().invoke(args)
    _save_parse(target_dir, parse_seen)
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
    # a mart's location is a template until dbt renders it (see macros/run_dir.sql)
    locations = [
        str(run_dir / Path(str(result.node.config.get("location"))).name)
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
    n_unit_tests_passed = sum(
        1
        for result in node_results
        if result.node.resource_type == "unit_test" and str(result.status).lower() == "pass"
    )
    return DbtResults(
        locations=locations,
        n_checks_passed=n_checks_passed,
        n_unit_tests_passed=n_unit_tests_passed,
    )


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


def saved_parse_path() -> Path:
    """Where dbt's parse of this project is kept between processes (``$XDG_CACHE_HOME``)."""
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    project = hashlib.sha256(str(DBT_PROJECT_DIR).encode()).hexdigest()[:12]
    return cache_home / "pdbench" / "dbt" / f"{project}-{_PARTIAL_PARSE}"


def _restore_saved_parse(target_dir: Path) -> tuple[int, int] | None:
    """Give dbt the saved parse when this process has none yet; return what dbt will find."""
    current = target_dir / _PARTIAL_PARSE
    saved = saved_parse_path()
    if not current.is_file() and saved.is_file():
        target_dir.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            shutil.copyfile(saved, current)
    return _stamp(current)


def _save_parse(target_dir: Path, seen: tuple[int, int] | None) -> None:
    """Keep the parse dbt wrote, if it wrote one; atomically, as other processes may read it."""
    current = target_dir / _PARTIAL_PARSE
    if _stamp(current) in (None, seen):
        return
    saved = saved_parse_path()
    with contextlib.suppress(OSError):
        saved.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=saved.parent, delete=False) as handle:
            partial = Path(handle.name)
        try:
            shutil.copyfile(current, partial)
            os.replace(partial, saved)
        finally:
            partial.unlink(missing_ok=True)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


_work_dir: Path | None = None


def _dbt_work_dir() -> Path:
    """One folder per process for dbt's target, logs and DuckDB spill files, removed at exit."""
    global _work_dir
    if _work_dir is None:
        _work_dir = Path(tempfile.mkdtemp(prefix="pdbench-dbt-"))
        atexit.register(shutil.rmtree, _work_dir, ignore_errors=True)
    return _work_dir
