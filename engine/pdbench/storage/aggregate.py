"""Build the dbt marts of a run directory: ``pdbench aggregate <run_dir>``.

Python only runs dbt here; every metric is a SQL model in ``dbt_project/``. dbt runs
in-process on an in-memory DuckDB, reads the run's JSONL files and writes its marts as Parquet
files into the same run directory (``aggregates.parquet``, ...). The build runs the dbt unit
tests and data tests too, so a successful aggregation is also a passing ``dbt test``.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pdbench.errors import AggregationError, RunDirError
from pdbench.storage.schema import RunFiles

__all__ = ["DBT_PROJECT_DIR", "LEADERBOARD", "AggregateSummary", "aggregate_run"]

DBT_PROJECT_DIR = Path(__file__).resolve().parents[3] / "dbt_project"
"""The repository's dbt project (its ``profiles.yml`` links to ``dbt_profiles.yml``)."""

LEADERBOARD = "leaderboard.parquet"
"""The arena mart ``pdbench aggregate`` prints as a table."""
_REQUIRED_FILES = {
    "pd": (RunFiles.ROUNDS, RunFiles.MATCHES, RunFiles.CALLS),
    "arena": (RunFiles.CALLS,),
}
_FAILED_STATUSES = {"error", "fail", "runtime error"}
_DBT_THREADS = {"pd": 1, "arena": 2}
"""Models dbt builds side by side. A PD run builds one at a time: DuckDB already runs each
query on every core, and two heavy queries over millions of rounds side by side only compete
for memory and spill (measured on a 10M-round run: 42 s instead of 67 s of dbt build)."""


@dataclass(frozen=True)
class AggregateSummary:
    """What `pdbench aggregate` reports: the marts written and a short table to print."""

    run_dir: Path
    game: str
    tables: dict[str, int] = field(default_factory=dict)
    """Parquet file name -> rows written."""
    text: str = ""
    """A short human-readable summary table."""
    n_checks_passed: int = 0
    """dbt unit tests and data tests that passed during the build."""


def aggregate_run(run_dir: Path) -> AggregateSummary:
    """Run ``dbt build`` on ``run_dir`` and write its marts as Parquet into it.

    Raises :class:`RunDirError` when the directory, its manifest or its raw files are missing
    or empty, and :class:`AggregationError` naming the failing models and tests when dbt fails.
    Running it twice on the same directory writes identical Parquet files.
    """
    run_dir = Path(run_dir).expanduser().resolve()
    game = _check_run_dir(run_dir)
    results = _run_dbt_build(run_dir, game)
    tables = {
        Path(location).name: _count_rows(Path(location)) for location in sorted(results.locations)
    }
    text = _summary_text(run_dir, game, tables)
    return AggregateSummary(
        run_dir=run_dir,
        game=game,
        tables=tables,
        text=text,
        n_checks_passed=results.n_checks_passed,
    )


def _check_run_dir(run_dir: Path) -> str:
    """Fail early, in one line, on a run directory dbt could not read; return its game."""
    if not run_dir.is_dir():
        raise RunDirError(f"run directory not found: {run_dir}")
    manifest_path = run_dir / RunFiles.MANIFEST
    if not manifest_path.is_file():
        raise RunDirError(f"{run_dir}: {RunFiles.MANIFEST} is missing (not a run directory?)")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunDirError(f"{manifest_path}: cannot read the manifest: {err}") from err
    game = manifest.get("game") if isinstance(manifest, dict) else None
    if game not in _REQUIRED_FILES:
        raise RunDirError(f"{manifest_path}: unknown game {game!r} (expected 'pd' or 'arena')")
    for name in _REQUIRED_FILES[game]:
        if not (run_dir / name).is_file():
            raise RunDirError(f"{run_dir}: {name} is missing")
    if game == "pd" and not _has_content(run_dir / RunFiles.ROUNDS):
        raise RunDirError(f"{run_dir}: {RunFiles.ROUNDS} is empty: the run played no round")
    return game


def _has_content(path: Path) -> bool:
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 16):
            if chunk.strip():
                return True
    return False


@dataclass(frozen=True)
class _BuildResults:
    locations: list[str]
    n_checks_passed: int


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
    """dbt's target and log folders: outside the repository, one per process (so that later
    builds in the same process reuse dbt's partial parse), removed when the process exits."""
    global _work_dir
    if _work_dir is None:
        _work_dir = Path(tempfile.mkdtemp(prefix="pdbench-dbt-"))
        atexit.register(shutil.rmtree, _work_dir, ignore_errors=True)
    return _work_dir


def _run_dbt_build(run_dir: Path, game: str) -> _BuildResults:
    from dbt.cli.main import dbtRunner

    if not (DBT_PROJECT_DIR / "dbt_project.yml").is_file():
        raise AggregationError(f"dbt project not found at {DBT_PROJECT_DIR}")
    work_dir = _dbt_work_dir()
    with (
        _environment(
            {
                "PDBENCH_RUN_DIR": str(run_dir),
                "PDBENCH_DUCKDB_TEMP_DIR": str(work_dir / "duckdb"),
                "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            }
        ),
    ):
        args = [
            "build",
            "--project-dir", str(DBT_PROJECT_DIR),
            "--profiles-dir", str(DBT_PROJECT_DIR),
            "--target-path", str(work_dir / "target"),
            "--log-path", str(work_dir / "logs"),
            "--select", f"tag:{game}",
            "--threads", str(_DBT_THREADS[game]),
            "--no-version-check",
            "--no-send-anonymous-usage-stats",
            "--quiet",
            "--log-level-file", "none",
        ]  # fmt: skip
        outcome = dbtRunner().invoke(args)
    if outcome.exception is not None:
        raise AggregationError(f"dbt could not build {run_dir}: {outcome.exception}")
    node_results = getattr(outcome.result, "results", None) or []
    failures = [
        f"{result.node.resource_type} {result.node.name}: {_first_line(result.message)}"
        for result in node_results
        if str(result.status).lower() in _FAILED_STATUSES
    ]
    if failures or not outcome.success:
        detail = "; ".join(failures) or "see the dbt output above"
        raise AggregationError(f"dbt build failed on {run_dir}: {detail}")
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
    return _BuildResults(locations=locations, n_checks_passed=n_checks_passed)


def _first_line(message: object) -> str:
    lines = str(message or "").strip().splitlines()
    return lines[0] if lines else "failed"


def _count_rows(path: Path) -> int:
    """Rows of a mart, not counting the all-NULL row dbt-duckdb writes for an empty model."""
    with duckdb.connect() as con:
        total, all_null = con.execute(
            "select"
            " (select count(*) from read_parquet($path)),"
            " (select count(*) from read_parquet($path) where columns(*) is null)",
            {"path": str(path)},
        ).fetchone()
    return int(total) - int(all_null)


def _summary_text(run_dir: Path, game: str, tables: dict[str, int]) -> str:
    lines = [f"aggregated {run_dir}"]
    lines += [f"  {name}: {rows} rows" for name, rows in tables.items()]
    if game == "pd" and tables.get(RunFiles.AGGREGATES):
        lines += ["", *_pd_condition_table(run_dir / RunFiles.AGGREGATES)]
    if game == "arena" and tables.get(LEADERBOARD):
        lines += ["", *_arena_leaderboard_table(run_dir / LEADERBOARD)]
    return "\n".join(lines)


def _pd_condition_table(path: Path) -> list[str]:
    with duckdb.connect() as con:
        rows = con.execute(
            """
            select
                condition,
                n_replicates,
                n_aborted,
                cooperation_rate,
                payoff_per_round_a,
                payoff_per_round_b,
                time_to_collapse,
                n_collapsed
            from read_parquet($path)
            where level = 'condition'
            order by condition
            """,
            {"path": str(path)},
        ).fetchall()
    header = ("condition", "replicates", "cooperation", "payoff/round a", "payoff/round b",
              "collapse (mean round; replicates collapsed)")  # fmt: skip
    table = [header]
    for condition, n_ok, n_aborted, coop, pay_a, pay_b, collapse, n_collapsed in rows:
        replicates = f"{n_ok}" + (f" (+{n_aborted} aborted)" if n_aborted else "")
        fraction = f"({n_collapsed}/{n_ok} replicates)"
        collapse_text = (
            f"never {fraction}" if collapse is None else f"round {_number(collapse)} {fraction}"
        )
        table.append(
            (
                str(condition),
                replicates,
                _fmt(coop),
                _fmt(pay_a),
                _fmt(pay_b),
                collapse_text,
            )
        )
    return _aligned(table)


def _arena_leaderboard_table(path: Path) -> list[str]:
    with duckdb.connect() as con:
        rows = con.execute(
            """
            select
                rank,
                player,
                score,
                ci_low,
                ci_high,
                rank_ci_low,
                rank_ci_high,
                n_answers,
                normalization,
                bootstrap_n
            from read_parquet($path)
            where player is not null
            order by rank asc nulls last, player asc
            """,
            {"path": str(path)},
        ).fetchall()
    header = ("rank", "player", "score", "95% CI", "rank interval", "answers")
    table = [header]
    for rank, player, score, low, high, rank_low, rank_high, n_answers, _, _ in rows:
        interval = "-" if low is None else f"{low:.2f} .. {high:.2f}"
        if rank_low is None:
            ranks = "-"
        elif rank_low == rank_high:
            ranks = f"{rank_low}"
        else:
            ranks = f"{rank_low}-{rank_high}"
        table.append(
            (
                "-" if rank is None else str(rank),
                str(player),
                "-" if score is None else f"{score:.2f}",
                interval,
                ranks,
                str(n_answers),
            )
        )
    normalization, bootstrap_n = (rows[0][8], rows[0][9]) if rows else ("?", "?")
    return [
        f"leaderboard (normalisation {normalization}; 95% intervals from {bootstrap_n} "
        "bootstrap replicates over questions):",
        *_aligned(table),
    ]


def _aligned(table: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]


def _number(value: float) -> str:
    """An integral value without decimals (``1``), any other with up to two (``4.5``)."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}".rstrip("0")


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
