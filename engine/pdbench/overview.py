"""The answer first: what a run (or a series of arena tournaments, or a folder of runs) found,
as a few typed sentences with numbers, units and 95% intervals.

Every number is a value of a mart as dbt wrote it (nothing is computed here: the overview
reads and phrases); names, units and formats come from the label catalogue
(:mod:`pdbench.column_labels`) and the metric catalogues. A missing value is written ``—``.
The viewer's Overview page, ``pdbench report`` and the summaries of ``pdbench run`` and
``pdbench aggregate`` all say what :func:`run_overview` says. Each game phrases its own marts
(its ``overview``, ``"module:function"``, :mod:`pdbench.games`); this module holds the
sentence type, the way a value with its interval is written, and the run list.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from pdbench.column_labels import MISSING, format_cell
from pdbench.errors import RunDirError
from pdbench.storage.schema import RunFiles
from pdbench.tables import mart_rows

__all__ = [
    "Finding",
    "Overview",
    "RunListing",
    "bracket_text",
    "folder_overview",
    "interval_text",
    "read_rows",
    "run_overview",
    "value_text",
]


@dataclass(frozen=True)
class Finding:
    """One sentence of an overview: what it answers, the sentence, where to read more."""

    topic: str
    """What question it answers: ``cooperation``, ``score``, ``differences``,
    ``standings``, ``inconclusive``, ``leaderboard``, ``agreement``, ``judges``, ..."""
    text: str
    page: str
    """The viewer page that holds the detail (``All conditions``, ``Leaderboard``, ...)."""


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


def value_text(column: str, value: Any, unit: str = "") -> str:
    """``value`` of ``column`` as the label catalogue writes it, its ``unit`` after it
    (none after a percentage); ``—`` when missing."""
    text = format_cell(column, value)
    if text == MISSING or not unit or text.endswith("%"):
        return text
    return f"{text} {unit}"


def interval_text(
    column: str, value: Any, low: Any, high: Any, *, unit: str = "", note: str | None = None
) -> str:
    """``50.0% (95% interval 37.5% to 62.5%)``; without an interval, the value and why
    (``note``, the mart's ``_ci_note``) or ``no interval``."""
    shown = value_text(column, value, unit)
    if low is None or high is None or shown == MISSING:
        return f"{shown} (no interval: {note})" if note else f"{shown} (no interval)"
    return f"{shown} (95% interval {format_cell(column, low)} to {format_cell(column, high)})"


def bracket_text(column: str, value: Any, low: Any, high: Any, *, unit: str = "") -> str:
    """The short form for a chart's side: ``50.0% [37.5%, 62.5%]``; ``[—]`` without an
    interval."""
    shown = value_text(column, value, unit)
    if low is None or high is None:
        return f"{shown} [{MISSING}]"
    return f"{shown} [{format_cell(column, low)}, {format_cell(column, high)}]"


def read_rows(path: Path, columns: tuple[str, ...], *, where: str, order_by: str) -> list[dict]:
    """The rows of the mart at ``path`` as dicts (none when the file is missing); the all-NULL
    row an empty model writes is left out by ``where``."""
    if not path.is_file():
        return []
    rows = mart_rows(path, columns=columns, where=where, order_by=order_by)
    return [dict(zip(columns, row, strict=True)) for row in rows]


def _manifest(run_dir: Path) -> dict:
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
    from pdbench.arena.series import SERIES_MANIFEST
    from pdbench.games import game_named

    run_dir = Path(run_dir)
    if (run_dir / SERIES_MANIFEST).is_file():
        from pdbench.arena.overview import series_findings

        return _overview(run_dir, run_dir.name, "series", series_findings(run_dir))
    manifest = _manifest(run_dir)
    game = game_named(manifest.get("game"), where=str(run_dir / RunFiles.MANIFEST))
    findings: list[Finding] = []
    if game.overview:
        module_name, _, function_name = game.overview.partition(":")
        findings = getattr(importlib.import_module(module_name), function_name)(run_dir, manifest)
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


def folder_overview(folder: Path) -> list[RunListing]:
    """Every run directly under ``folder`` (newest first), with its headline: the run list."""
    runs = sorted(
        (path.parent for path in folder.glob(f"*/{RunFiles.MANIFEST}")),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    listing = []
    for run_dir in runs:
        try:
            manifest = _manifest(run_dir)
            overview = run_overview(run_dir)
            headline = overview.headline
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
    return listing
