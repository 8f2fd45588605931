"""What a dbt build of a run is asked for and what it answers, and where pdbench's dbt cache
is: the leaf the modules of :mod:`pdbench.dbt_build` share."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = [
    "GAME_MODELS_ENV",
    "DbtRequest",
    "DbtResults",
    "dbt_cache_folder",
]

GAME_MODELS_ENV = "PDBENCH_GAME_MODELS"
"""The folder of dbt models of games registered from outside pdbench (``model-paths`` in
``dbt_project.yml``); unset when there are none."""


@dataclass(frozen=True)
class DbtRequest:
    """One dbt invocation on one run directory."""

    command: Literal["build", "run"]
    """``build``: the models and their data tests; ``run``: the models alone."""
    run_dir: Path
    select: str
    """dbt's ``--select``, e.g. ``tag:pd``, ``+arena_leaderboard``."""
    exclude: str | None = None
    """dbt's ``--exclude``, e.g. ``tag:pd_round_robin tag:pd_calls`` (None: nothing)."""
    threads: int | None = None
    """Models built side by side (None: one at a time)."""
    unit_tests: bool = False
    """Also run the unit tests (``build`` only): dbt itself builds the run then."""
    one_duckdb_thread_when_small: bool = False
    """One DuckDB thread if the run's raw files are small
    (:func:`pdbench.dbt_build.execute.duckdb_threads`); DuckDB's default otherwise."""
    empty_marts: tuple[str, ...] = ()
    """Marts (file names) to write with their columns and no row when the build does not
    write them: those of models left out of it (:mod:`pdbench.empty_marts`). Not with
    ``unit_tests``."""
    on_node: Callable[[int, int, str], None] | None = field(default=None, compare=False)
    """Told after each model, seed or data test of the build, built, failed or skipped:
    ``(done, total, its name)``. Not with ``unit_tests`` (dbt's own build says nothing)."""


@dataclass(frozen=True)
class DbtResults:
    """What one dbt invocation wrote and checked."""

    locations: list[str]
    """Files written by the marts (Parquet), the empty ones asked for included."""
    n_checks_passed: int
    """Unit tests and data tests that passed."""
    n_unit_tests_passed: int
    """Of which unit tests."""
    models: tuple[str, ...] = ()
    """The models built, by name."""
    cut: tuple[str, ...] = ()
    """Torn last lines cut off the run's JSONL files before dbt read them, one phrase each."""
    location_tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each file of :attr:`locations` -> the dbt tags of the model that wrote it."""


def dbt_cache_folder() -> Path:
    """The user's cache folder of pdbench's dbt files (``$XDG_CACHE_HOME``): the compiled
    project (:mod:`pdbench.dbt_build.compilation`)."""
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache_home / "pdbench" / "dbt"
