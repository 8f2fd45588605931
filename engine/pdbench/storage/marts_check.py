"""Whether the marts of a run directory say what the run holds: built, current and readable.

Every reader of a run's marts asks here before it shows a number from them. The viewer
(:mod:`pdbench.ui.run_check`) shows :attr:`MartsState.problem` in a banner above the tables,
with the command that rebuilds them; the commands that print or write the run's numbers
(``pdbench report``, ``compare``, ``compare-runs``) refuse, with :func:`check_marts`'s one
line: a table for a paper or a terminal has no banner, and a mart older than the raw records
(a killed run aggregated, then finished with ``--resume --no-aggregate``) counts only part of
the run. A mart that cannot be read at all (damaged, or cut short) is one line naming the file
(:func:`check_marts` before reading, :func:`mart_read_errors` for damage found while reading).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pdbench.errors import RunDirError
from pdbench.storage.marts_manifest import build_failure, stale_raw_files

__all__ = [
    "MartsState",
    "aggregate_command",
    "check_marts",
    "damaged_mart",
    "mart_read_errors",
    "marts_state",
]

_SHOWN_FILES = 3
"""How many changed raw files a message names before it counts the rest."""


def aggregate_command(run_dir: Path) -> str:
    """The command that (re)builds the marts of ``run_dir``."""
    return shlex.join(["uv", "run", "pdbench", "aggregate", str(run_dir)])


@dataclass(frozen=True)
class MartsState:
    """What :mod:`pdbench.storage.marts_manifest` says of the marts of a run directory."""

    stale: tuple[str, ...] = ()
    """Raw files that changed, appeared or vanished since the marts were built."""
    build_failure: str | None = None
    """Why the last ``pdbench aggregate`` failed, when it did."""

    @property
    def problem(self) -> str | None:
        """Why the marts are not the run's (a sentence without a full stop); None when they
        are, or when nothing was recorded of what they were built from."""
        if self.build_failure is not None:
            return (
                f"the last build of this run's tables failed ({self.build_failure}): the tables "
                "are older than the run, or missing"
            )
        if not self.stale:
            return None
        shown = ", ".join(self.stale[:_SHOWN_FILES])
        if len(self.stale) > _SHOWN_FILES:
            shown += f" and {len(self.stale) - _SHOWN_FILES} more"
        return (
            f"the tables are older than the run's raw files ({shown} changed since they were "
            "built): they do not show what the run holds now"
        )


def marts_state(run_dir: Path) -> MartsState:
    """The state of the marts of ``run_dir`` (:class:`MartsState`)."""
    return MartsState(
        stale=tuple(stale_raw_files(run_dir) or ()), build_failure=build_failure(run_dir)
    )


def check_marts(run_dir: Path, marts: Iterable[str]) -> None:
    """A one-line :class:`RunDirError` unless every mart of ``marts`` (file names in
    ``run_dir``) is built, readable, and was built from the raw files as they are now; each
    message ends with the command that rebuilds them."""
    rebuild = aggregate_command(run_dir)
    paths = [run_dir / name for name in marts]
    for path in paths:
        if not path.is_file():
            raise RunDirError(
                f"{path}: no such mart (the run's tables are not built); build them: {rebuild}"
            )
    problem = marts_state(run_dir).problem
    if problem is not None:
        raise RunDirError(f"{run_dir}: {problem}; rebuild them: {rebuild}")
    for path in paths:
        reason = _unreadable(path, whole=False)
        if reason is not None:
            raise _damaged(run_dir, path, reason)


@contextmanager
def mart_read_errors(run_dir: Path) -> Iterator[None]:
    """Turn an error met while reading the marts of ``run_dir`` into one line naming the mart
    that cannot be read (every mart of the run is read through to find it) and the command
    that rebuilds them."""
    try:
        yield
    except (duckdb.Error, pa.ArrowException) as err:
        found = damaged_mart(run_dir)
        if found is None:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise RunDirError(
                f"{run_dir}: a mart cannot be read ({first}); rebuild: {aggregate_command(run_dir)}"
            ) from None
        raise _damaged(run_dir, *found) from None


def damaged_mart(run_dir: Path) -> tuple[Path, str] | None:
    """The first mart (``*.parquet``) of ``run_dir`` that cannot be read through, and why;
    None when every one can."""
    for path in sorted(run_dir.glob("*.parquet")):
        reason = _unreadable(path, whole=True)
        if reason is not None:
            return path, reason
    return None


def _unreadable(path: Path, *, whole: bool) -> str | None:
    """Why the Parquet file at ``path`` cannot be read (its footer; with ``whole``, every
    page); None when it can. pyarrow opens the exact path: no character of it is a pattern."""
    try:
        if whole:
            pq.read_table(path)
        else:
            pq.read_metadata(path)
    except (OSError, pa.ArrowException) as err:
        text = str(err).strip()
        return text.splitlines()[0] if text else type(err).__name__
    return None


def _damaged(run_dir: Path, path: Path, reason: str) -> RunDirError:
    return RunDirError(
        f"{path}: the mart cannot be read ({reason}); rebuild the run's tables: "
        f"{aggregate_command(run_dir)}"
    )
