"""The empty marts of a run: the one place that says what a mart left out of a build is.

``pdbench aggregate`` leaves out of a run's build the models the run has no input for
(:attr:`pdbench.game.Marts.absent_content`). Their marts must still be there for the viewer,
the summaries and ad-hoc SQL, with the columns a build would give them and no row. The
columns are dbt's, not described by hand: every model of the game is run once (no tests) on
an empty run directory (the game's raw files empty, the run's manifest), and the Parquet files
written there are kept in the user's cache folder, under a key of the dbt project's files,
until the project changes. A left-out mart takes its columns from there and no row (what the
empty run's build wrote may hold rows made of its manifest alone, such as the calls
summary's run row, which are not this run's).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import duckdb

from pdbench.game import Game
from pdbench.storage.dbt import DbtRequest, dbt_project_key, invoke_dbt
from pdbench.storage.duckdb_paths import duckdb_path, sql_string
from pdbench.storage.schema import RunFiles
from pdbench.storage.worker_socket import project_key

__all__ = ["empty_marts_dir", "write_empty_marts"]

_COMPLETE = ".complete"


def write_empty_marts(run_dir: Path, game: Game, names: list[str]) -> None:
    """Write the marts ``names`` (file names, e.g. ``fingerprints.parquet``) of ``game`` into
    ``run_dir`` with their columns and no row, replacing any file of that name."""
    if not names:
        return
    templates = _templates(run_dir, game)
    with duckdb.connect() as con:
        for name in names:
            with tempfile.NamedTemporaryFile(dir=run_dir, suffix=".part", delete=False) as handle:
                partial = Path(handle.name)
            try:
                con.execute(
                    f"copy (select * from read_parquet({sql_string(duckdb_path(templates / name))})"
                    f" limit 0) to {sql_string(duckdb_path(partial))} (format parquet)"
                )
                os.replace(partial, run_dir / name)
            finally:
                partial.unlink(missing_ok=True)


def empty_marts_dir(game: Game) -> Path:
    """Where the empty marts of ``game`` are kept for the current dbt project."""
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache_home / "pdbench" / "dbt" / f"empty-marts-{_project_key(game)}" / game.name


def _templates(run_dir: Path, game: Game) -> Path:
    """The folder of ``game``'s empty marts, built first if this project has none yet."""
    folder = empty_marts_dir(game)
    if (folder / _COMPLETE).is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{game.name}-"))
    try:
        for name in game.marts.required_files:
            (building / name).touch()
        shutil.copyfile(run_dir / RunFiles.MANIFEST, building / RunFiles.MANIFEST)
        invoke_dbt(
            DbtRequest(
                "run",
                run_dir=building,
                select=f"tag:{game.marts.dbt_tag}",
                threads=game.marts.dbt_threads,
            )
        )
        (building / _COMPLETE).touch()
        # another process may have kept its own first: the same files
        with contextlib.suppress(OSError):
            building.rename(folder)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return folder


def _project_key(game: Game) -> str:
    """A digest of every file of the dbt project (and of the game's own models): a change to
    any model, macro or setting makes new empty marts."""
    folders = [game.marts.dbt_models] if game.marts.dbt_models else []
    keys = dbt_project_key() + "".join(project_key(folder) for folder in folders)
    return hashlib.sha256(keys.encode()).hexdigest()[:16]
