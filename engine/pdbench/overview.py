"""The answer first: what a run (or a series of a game's runs, or a folder of runs) found,
as a few typed sentences with numbers, units and 95% intervals.

Every number is a value of a mart as dbt wrote it (nothing is computed here: the overview
reads and phrases); names, units and formats come from the label catalogue
(:mod:`pdbench.column_labels`) and the metric catalogues. A missing value is written ``—``.
The viewer's Overview page, ``pdbench report`` and the summaries of ``pdbench run`` and
``pdbench aggregate`` all say what :func:`run_overview` says. Each game phrases its own marts
(its ``overview``, ``"module:function"``, :mod:`pdbench.games`) with the words of
:mod:`pdbench.findings`; this module gathers them, for a run, a series and a folder of runs.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import duckdb

from pdbench.errors import RunDirError
from pdbench.findings import Finding
from pdbench.game import imported
from pdbench.storage.marts_check import aggregate_command, marts_state
from pdbench.storage.schema import RunFiles

__all__ = ["Overview", "RunListing", "folder_overview", "manifest_of", "run_overview"]


@dataclass(frozen=True)
class Overview:
    """What a run or a series found, answer first."""

    run_dir: Path
    title: str
    """The run id (the folder's name for a series)."""
    game: str
    """The game (``pd``, ``arena``), or ``series``."""
    findings: tuple[Finding, ...]
    headline: str
    """One line for a list of runs: the first finding, or why there is none."""


def manifest_of(run_dir: Path) -> dict[str, Any]:
    """The manifest of ``run_dir`` as JSON, unchecked: the overview needs only its game, run
    id, status and config; a one-line :class:`RunDirError` when it cannot be read."""
    path = run_dir / RunFiles.MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunDirError(f"{path}: cannot read the manifest ({err})") from None
    if not isinstance(manifest, dict):
        raise RunDirError(f"{path}: not a manifest (expected a JSON object)")
    return manifest


def run_overview(run_dir: Path) -> Overview:
    """The overview of the run in ``run_dir``, or of the series when ``run_dir`` is the folder
    of ``pdbench leaderboard``. A missing mart leaves its sentences out."""
    from pdbench.games import game_named, series_game

    run_dir = Path(run_dir)
    series_of = series_game(run_dir)
    if series_of is not None and series_of.series is not None:
        return _overview(
            run_dir, run_dir.name, "series", imported(series_of.series.overview)(run_dir)
        )
    manifest = manifest_of(run_dir)
    game = game_named(manifest.get("game"), where=str(run_dir / RunFiles.MANIFEST))
    findings: list[Finding] = []
    if game.overview:
        findings = imported(game.overview)(run_dir, manifest)
    return _overview(run_dir, str(manifest.get("run_id") or run_dir.name), game.name, findings)


def _overview(run_dir: Path, title: str, game: str, findings: list[Finding]) -> Overview:
    headline = findings[0].text if findings else "no finding yet: the marts hold no rows"
    return Overview(run_dir, title, game, tuple(findings), headline)


@dataclass(frozen=True)
class RunListing:
    """One run of a folder, as the run list shows it."""

    run_dir: Path
    run_id: str
    game: str
    status: str
    headline: str
    """The overview's first sentence, or what keeps the run from having one."""
    name: str = ""
    """The run as the list names it: its run id, and its folder's name beside it when another
    run of the list has the same id (a copy, or a config played into two folders)."""


def folder_overview(folder: Path) -> list[RunListing]:
    """Every run directly under ``folder`` (newest first), with its headline and its name
    (:attr:`RunListing.name`): the run list."""
    runs = sorted(
        (path.parent for path in folder.glob(f"*/{RunFiles.MANIFEST}")),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    listing = []
    for run_dir in runs:
        try:
            manifest = manifest_of(run_dir)
            overview = run_overview(run_dir)
            headline = overview.headline
            problem = marts_state(run_dir).problem
            if problem is not None:  # the headline is of marts that are not the run's
                headline = f"{problem}; rebuild them: {aggregate_command(run_dir)}"
        except (RunDirError, duckdb.Error, OSError, ValueError) as err:  # listed, with why
            headline = f"not readable: {str(err).splitlines()[0] if str(err) else err}"
            manifest = {}
        listing.append(
            RunListing(
                run_dir=run_dir,
                run_id=str(manifest.get("run_id") or run_dir.name),
                game=str(manifest.get("game") or "?"),
                status=str(manifest.get("status") or "?"),
                headline=headline,
            )
        )
    shared = {run_id for run_id, n in Counter(run.run_id for run in listing).items() if n > 1}
    return [
        replace(
            run, name=f"{run.run_id} ({run.run_dir.name})" if run.run_id in shared else run.run_id
        )
        for run in listing
    ]
