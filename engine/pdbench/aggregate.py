"""Build the dbt marts of a run directory: ``pdbench aggregate <run_dir>``.

Python only runs dbt's models here; every metric is a SQL model in ``dbt_project/``. The
project, compiled by dbt once per version of it, is built on an in-memory DuckDB
(:mod:`pdbench.dbt_build.invoke`): it reads the run's JSONL files and writes its marts as Parquet
files into the same run directory (``aggregates.parquet``, ...), exactly what ``dbt build``
by hand writes. The build runs the dbt data tests on the run's tables too, so a successful
aggregation is also a passing ``dbt test`` of this run. The unit tests, which check the SQL
on hand-made rows whatever the run, are left to ``pdbench aggregate --unit-tests`` (a build by
dbt itself) and to the test suite.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pdbench.dbt_build.invoke import DbtRequest, DbtResults, invoke_dbt
from pdbench.empty_marts import write_empty_marts
from pdbench.errors import AggregationError, RunDirError
from pdbench.game import Game, ProgressCallback
from pdbench.games import game_named
from pdbench.number_text import plural
from pdbench.overview import manifest_of
from pdbench.storage.manifest import require_run_dir
from pdbench.storage.marts_manifest import write_build_failure, write_marts_manifest
from pdbench.storage.run_links import refuse_outside_links
from pdbench.storage.run_lock import hold_run_dir
from pdbench.storage.schema import RunFiles
from pdbench.storage.shards import record_files, records_written
from pdbench.tables import count_marts_rows

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
    n_checks_passed: int = 0
    """dbt data tests (and unit tests, when asked for) that passed during the build."""
    n_unit_tests_passed: int = 0
    """Of which unit tests (none unless asked for)."""
    models: tuple[str, ...] = ()
    """The dbt models built: those of the game the run has input for."""


def aggregate_run(
    run_dir: Path,
    *,
    unit_tests: bool = False,
    on_start: Callable[[str], None] | None = None,
    on_progress: ProgressCallback | None = None,
) -> AggregateSummary:
    """Run ``dbt build`` on ``run_dir`` and write its marts as Parquet into it.

    ``unit_tests=True`` also runs the dbt unit tests of the game's models. The run directory
    is locked for the build (:mod:`pdbench.storage.run_lock`); ``on_start`` is told, once the
    lock is held, what is about to happen (a line for the user), and is warned first when the
    manifest says ``running`` although no process holds the run (it was stopped by force).
    ``on_progress`` is told after each model and data test, as the bar ``metrics`` (not with
    ``unit_tests``, where dbt itself builds).

    Raises :class:`RunDirError` when the directory, its manifest or its raw files are missing
    or empty, and :class:`AggregationError` naming the failing models and tests when dbt fails.
    Running it twice on the same directory writes identical Parquet files.
    """
    run_dir = Path(run_dir).expanduser().resolve()
    game, manifest = _check_run_dir(run_dir)
    status = manifest.get("status")
    with hold_run_dir(run_dir):
        if on_start is not None:
            if status == "running":
                on_start(
                    f"warning: {run_dir} is marked running but no process holds it: it was "
                    "stopped by force; `pdbench run --resume` finishes it. The metrics cover "
                    "the matches finished so far."
                )
            on_start(f"building the metrics of {run_dir} with dbt...")
        try:
            results, left_out = _build_what_the_run_holds(
                run_dir, game, unit_tests=unit_tests, on_progress=on_progress
            )
        except AggregationError as err:
            message = _with_repair(str(err), run_dir, manifest)
            write_build_failure(run_dir, message)  # the viewer says the tables are not the run's
            raise AggregationError(message) from None
        write_marts_manifest(run_dir)  # what they were built from: the viewer checks it
    tables = count_marts_rows(
        [Path(p) for p in sorted({*results.locations, *(str(run_dir / n) for n in left_out)})]
    )
    if on_start is not None:
        for line in results.cut:
            on_start(f"warning: {line}")
    text = _summary_text(run_dir, game, tables)
    return AggregateSummary(
        run_dir=run_dir,
        game=game.name,
        tables=tables,
        text=text,
        n_checks_passed=results.n_checks_passed,
        n_unit_tests_passed=results.n_unit_tests_passed,
        models=results.models,
    )


REPLAYED_BY_RESUME = ("without exactly their rounds",)
"""Phrases of the dbt checks' messages (dbt_project/tests/) that ``--resume`` repairs: it
replays every match that lacks a round."""


def _with_repair(message: str, run_dir: Path, manifest: dict[str, Any]) -> str:
    """``message``, with the command that repairs the run when ``--resume`` does."""
    if not any(phrase in message for phrase in REPLAYED_BY_RESUME):
        return message
    config = manifest.get("config_path") or "<config>"
    return (
        f"{message}; `pdbench run {config} --output-dir {run_dir} --resume` replays "
        "the matches and repairs the run"
    )


def _build_what_the_run_holds(
    run_dir: Path, game: Game, *, unit_tests: bool, on_progress: ProgressCallback | None = None
) -> tuple[DbtResults, list[str]]:
    """``dbt build`` of the game's models but those the run has no input for
    (:attr:`Game.marts.absent_content <pdbench.game.Marts.absent_content>`), whose marts are
    written with their columns and no row (:mod:`pdbench.empty_marts`); with ``unit_tests``,
    dbt builds every model, so that every unit test runs, and the marts of the models the run
    has no input for are then written empty over what their build wrote. Returns the build's
    results and the marts written empty."""
    absent = () if game.marts.absent_content is None else tuple(game.marts.absent_content(run_dir))
    request = DbtRequest(
        "build",
        run_dir=run_dir,
        select=f"tag:{game.marts.dbt_tag}",
        threads=game.marts.dbt_threads,
        one_duckdb_thread_when_small=game.marts.one_duckdb_thread_when_small,
        on_node=None if on_progress is None else _metrics_bar(on_progress),
    )
    if unit_tests:
        results = invoke_dbt(replace(request, unit_tests=True))
        left_out = sorted(
            Path(location).name
            for location, tags in results.location_tags.items()
            if set(tags) & set(absent)
        )
        write_empty_marts(run_dir, game, left_out)
        return results, left_out
    exclude = " ".join(f"tag:{tag}" for tag in absent) or None
    viewer_marts = tuple(game.marts.viewer_marts) if absent else ()
    return invoke_dbt(replace(request, exclude=exclude, empty_marts=viewer_marts)), []


def _metrics_bar(on_progress: ProgressCallback) -> Callable[[int, int, str], None]:
    """The build's nodes as the progress bar ``metrics``: how many of its models and data
    tests are done, and the last one's name."""

    def on_node(done: int, total: int, name: str) -> None:
        on_progress("metrics", done, total, name)

    return on_node


def _check_run_dir(run_dir: Path) -> tuple[Game, dict[str, Any]]:
    """Fail early, in one line, on a run directory dbt could not read; return its game and
    manifest."""
    require_run_dir(run_dir)
    manifest_path = run_dir / RunFiles.MANIFEST
    if not manifest_path.is_file():
        raise RunDirError(f"{run_dir}: {RunFiles.MANIFEST} is missing (not a run directory?)")
    refuse_outside_links(run_dir)
    manifest = manifest_of(run_dir)
    game = game_named(manifest.get("game"), where=str(manifest_path))
    for name in game.marts.required_files:
        if not record_files(run_dir, name):
            raise RunDirError(f"{run_dir}: {name} is missing")
    for name in game.marts.non_empty_files:
        if not records_written(run_dir, name):
            raise RunDirError(f"{run_dir}: {name} is empty: the run played nothing")
    return game, manifest


def _summary_text(run_dir: Path, game: Game, tables: dict[str, int]) -> str:
    """The answer first (:func:`pdbench.overview.run_overview`), then the game's table, then
    where to read more: the viewer and the report."""
    from pdbench.overview import run_overview

    empty = sum(1 for rows in tables.values() if not rows)
    lines = [f"aggregated {run_dir}: {plural(len(tables), 'table')} ({empty} empty)"]
    lines += [finding.text for finding in run_overview(run_dir).findings]
    table = game.marts.summary(run_dir, tables) if game.marts.summary else []
    if table:
        lines += ["", *table]
    where = shlex.quote(str(run_dir))
    lines += ["", f"every page: pdbench ui {where}; one HTML file: pdbench report {where}"]
    return "\n".join(lines)
