"""``pdbench report <run_dir|series_dir|folder of runs>``: one self-contained HTML file to
attach to a paper, an email or a CI job. For a run or a series it holds the overview
(:mod:`pdbench.overview`) and the key charts of the game, drawn as inline SVG
(:mod:`pdbench.report_svg`); for a folder of runs, the run list with each run's headline (as
``pdbench ui <folder>`` lists them). Every number is inline: no script, style sheet, font or
image is fetched from any host and nothing links outside the file, so it opens offline in any
browser. Like the viewer it only reads the marts.
"""

from __future__ import annotations

import os
import shlex
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from pdbench.column_labels import MISSING
from pdbench.errors import RunDirError
from pdbench.game import Series, imported
from pdbench.overview import Overview, folder_overview, manifest_of, run_overview
from pdbench.report_svg import Section
from pdbench.storage.marts_check import check_marts, mart_read_errors
from pdbench.storage.schema import RunFiles

__all__ = ["default_output", "render_report", "render_run_list", "write_report"]

_REPORT_SUFFIXES = (".html", ".htm")
"""What a report written inside a run directory may be named."""


_STYLE = """
body { font-family: sans-serif; max-width: 960px; margin: 2em auto; color: #1a1a1a;
       line-height: 1.45; padding: 0 1em; }
h1 { margin-bottom: 0.1em; } .meta { color: #555; font-size: 0.9em; }
li { margin-bottom: 0.5em; } .page { color: #555; font-size: 0.85em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; }
th { background: #f3f3f3; } .caption { color: #444; font-size: 0.9em; }
svg { max-width: 100%; height: auto; }
"""


def _check(run_dir: Path) -> str:
    """The game of ``run_dir`` (``series`` for a series); a one-line :class:`RunDirError`
    when it is no run, or its marts are not built, not readable, or older than its raw files
    (:func:`pdbench.storage.marts_check.check_marts`)."""
    from pdbench.games import game_named, series_game, series_manifests

    if not run_dir.is_dir():
        raise RunDirError(f"{run_dir}: no such directory")
    if series_game(run_dir) is not None:
        return "series"
    if not (run_dir / RunFiles.MANIFEST).is_file():
        if _holds_runs(run_dir):
            return "folder"
        raise RunDirError(
            f"{run_dir}: not a run directory (no {RunFiles.MANIFEST}), a series "
            f"(no {' or '.join(series_manifests())}) nor a folder of runs "
            f"(no */{RunFiles.MANIFEST})"
        )
    manifest = manifest_of(run_dir)
    game = game_named(manifest.get("game"), where=str(run_dir / RunFiles.MANIFEST))
    check_marts(run_dir, game.marts.viewer_marts)
    return game.name


def _series(run_dir: Path) -> Series:
    """The kind of series ``run_dir`` is (:func:`_check` said it is one)."""
    from pdbench.games import series_game

    game = series_game(run_dir)
    assert game is not None and game.series is not None, run_dir
    return game.series


def _sections(run_dir: Path, game: str) -> list[Section]:
    if game == "series":
        sections: list[Section] = imported(_series(run_dir).report_sections)(run_dir)
        return sections
    from pdbench.games import GAMES

    path = GAMES[game].report_sections
    if not path:
        return []
    sections = imported(path)(run_dir)
    return sections


def _meta(run_dir: Path, game: str) -> str:
    if game == "series":
        return f"{_series(run_dir).title} · {run_dir}"
    from pdbench.games import GAMES

    manifest = manifest_of(run_dir)
    return (
        f"{GAMES[game].title} · status {manifest.get('status', MISSING)} · seed "
        f"{manifest.get('seed', MISSING)} · started {manifest.get('started_at', MISSING)} · "
        f"{run_dir}"
    )


def _overview_html(overview: Overview) -> str:
    if not overview.findings:
        return "<p>No finding: the marts hold no rows.</p>"
    items = "".join(
        f"<li>{escape(finding.text)} <span class='page'>(viewer page: "
        f"{escape(finding.page)})</span></li>"
        for finding in overview.findings
    )
    return f"<ul>{items}</ul>"


def _holds_runs(folder: Path) -> bool:
    return any(folder.glob(f"*/{RunFiles.MANIFEST}"))


def _page(title: str, body: list[str]) -> str:
    return "".join(
        [
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            f"<title>pdbench report · {escape(title)}</title>",
            f"<style>{_STYLE}</style></head><body>",
            *body,
            "</body></html>",
        ]
    )


def _written_on() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def render_run_list(folder: Path) -> str:
    """The runs directly under ``folder``, newest first, each with its game, status and
    headline (the first sentence of its overview, or why it has none), as one HTML
    document; the command that writes each run's own report beside it."""
    folder = Path(folder)
    listing = folder_overview(folder)
    rows = "".join(
        f"<tr><td>{escape(run.run_id)}</td><td>{escape(run.game)}</td>"
        f"<td>{escape(run.status)}</td><td>{escape(run.headline)}</td>"
        f"<td><code>{escape(shlex.join(['pdbench', 'report', str(run.run_dir)]))}</code></td></tr>"
        for run in listing
    )
    return _page(
        f"runs in {folder.name}",
        [
            f"<h1>Runs in {escape(str(folder))}</h1>",
            f"<p class='meta'>{len(listing)} runs, newest first; each with the first sentence "
            "of its overview.</p>",
            "<table><thead><tr><th>run</th><th>game</th><th>status</th><th>headline</th>"
            f"<th>its own report</th></tr></thead><tbody>{rows}</tbody></table>",
            f"<p class='meta'>Written by pdbench report on {_written_on()} from the runs' "
            f"marts; every run in the viewer: "
            f"<code>{escape(shlex.join(['pdbench', 'ui', str(folder)]))}</code>.</p>",
        ],
    )


def render_report(run_dir: Path) -> str:
    """The report of ``run_dir`` (a run, a series or a folder of runs) as one HTML
    document."""
    run_dir = Path(run_dir)
    game = _check(run_dir)
    if game == "folder":
        return render_run_list(run_dir)
    overview = run_overview(run_dir)
    parts = [
        f"<h1>{escape(overview.title)}</h1>",
        f"<p class='meta'>{escape(_meta(run_dir, game))}</p>",
        "<h2>Overview</h2>",
        _overview_html(overview),
    ]
    for section in _sections(run_dir, game):
        parts += [
            f"<h2>{escape(section.heading)}</h2>",
            f"<p class='caption'>{escape(section.caption)}</p>",
            section.body,
        ]
    view = shlex.join(["pdbench", "ui", str(run_dir)])
    parts.append(
        f"<p class='meta'>Written by pdbench report on {_written_on()} from the run's marts; "
        f"every page of the run: <code>{escape(view)}</code>.</p>"
    )
    return _page(overview.title, parts)


def default_output(run_dir: Path) -> Path:
    """Where the report goes without ``--output``: ``<name>-report.html`` here."""
    return Path(f"{Path(run_dir).resolve().name}-report.html")


def write_report(run_dir: Path, output: Path | None) -> Path:
    """Write the report of ``run_dir`` to ``output`` (or :func:`default_output`); the path."""
    target = output if output is not None else default_output(run_dir)
    _check_output(target)
    with mart_read_errors(run_dir):
        text = render_report(run_dir)
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _check_output(target: Path) -> None:
    """A one-line :class:`RunDirError` unless ``target`` is a place for a report: a file in
    an existing folder, and inside a run directory or a series (any folder above it holding
    their manifest) only an ``.html`` file, so that no record, manifest or mart of the run is
    written over (none of them is ``.html``). A link is judged by the file it leads to."""
    from pdbench.games import series_game

    if not target.parent.is_dir():
        raise RunDirError(f"{target}: its folder {target.parent} does not exist")
    if target.is_dir():
        raise RunDirError(f"{target}: a folder; name the HTML file to write")
    resolved = target.resolve()
    for folder in resolved.parents:
        if (folder / RunFiles.MANIFEST).is_file() or series_game(folder) is not None:
            if resolved.suffix.lower() not in _REPORT_SUFFIXES:
                raise RunDirError(
                    f"{target}: inside the run directory {folder}, where a report is an "
                    f".html file: its records, manifest and marts are never written over"
                )
            return
