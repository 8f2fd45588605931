"""Build the dbt marts of a run directory: ``pdbench aggregate <run_dir>``.

Python only runs dbt here; every metric is a SQL model in ``dbt_project/``. dbt runs in its
worker process (:mod:`pdbench.storage.dbt`) on an in-memory DuckDB, reads the run's JSONL
files and writes its marts as Parquet files into the same run directory
(``aggregates.parquet``, ...). The build runs the dbt data tests on the run's tables too, so
a successful aggregation is also a passing ``dbt test`` of this run. The unit tests, which
check the SQL on hand-made rows whatever the run, are left to ``pdbench aggregate
--unit-tests`` and to the test suite.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pdbench.errors import RunDirError
from pdbench.storage.dbt import invoke_dbt
from pdbench.storage.run_lock import hold_run_dir
from pdbench.storage.schema import RunFiles

__all__ = ["LEADERBOARD", "AggregateSummary", "aggregate_run"]

LEADERBOARD = "leaderboard.parquet"
"""The arena mart ``pdbench aggregate`` prints as a table."""
_REQUIRED_FILES = {
    "pd": (RunFiles.ROUNDS, RunFiles.MATCHES, RunFiles.CALLS),
    "arena": (RunFiles.CALLS,),
}
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
    """dbt data tests (and unit tests, when asked for) that passed during the build."""
    n_unit_tests_passed: int = 0
    """Of which unit tests (none unless asked for)."""


def aggregate_run(
    run_dir: Path,
    *,
    unit_tests: bool = False,
    on_start: Callable[[str], None] | None = None,
) -> AggregateSummary:
    """Run ``dbt build`` on ``run_dir`` and write its marts as Parquet into it.

    ``unit_tests=True`` also runs the dbt unit tests of the game's models. The run directory
    is locked for the build (:mod:`pdbench.storage.run_lock`); ``on_start`` is told, once the
    lock is held, what is about to happen (a line for the user), and is warned first when the
    manifest says ``running`` although no process holds the run (it was stopped by force).

    Raises :class:`RunDirError` when the directory, its manifest or its raw files are missing
    or empty, and :class:`AggregationError` naming the failing models and tests when dbt fails.
    Running it twice on the same directory writes identical Parquet files.
    """
    run_dir = Path(run_dir).expanduser().resolve()
    game, status = _check_run_dir(run_dir)
    with hold_run_dir(run_dir):
        if on_start is not None:
            if status == "running":
                on_start(
                    f"warning: {run_dir} is marked running but no process holds it: it was "
                    "stopped by force; `pdbench run --resume` finishes it. The metrics cover "
                    "the matches finished so far."
                )
            on_start(f"building the metrics of {run_dir} with dbt...")
        results = invoke_dbt(
            "build",
            run_dir=run_dir,
            select=f"tag:{game}",
            threads=_DBT_THREADS[game],
            unit_tests=unit_tests,
        )
    tables = {
        Path(location).name: _count_rows(Path(location)) for location in sorted(results.locations)
    }
    if on_start is not None:
        for line in results.cut:
            on_start(f"warning: {line}")
    text = _summary_text(run_dir, game, tables)
    return AggregateSummary(
        run_dir=run_dir,
        game=game,
        tables=tables,
        text=text,
        n_checks_passed=results.n_checks_passed,
        n_unit_tests_passed=results.n_unit_tests_passed,
    )


def _check_run_dir(run_dir: Path) -> tuple[str, str | None]:
    """Fail early, in one line, on a run directory dbt could not read; return its game and
    status."""
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
    return game, manifest.get("status")


def _has_content(path: Path) -> bool:
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 16):
            if chunk.strip():
                return True
    return False


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
