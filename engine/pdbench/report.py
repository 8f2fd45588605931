"""``pdbench report <run_dir|series_dir|folder of runs>``: one self-contained HTML file to
attach to a paper, an email or a CI job. For a run or a series it holds the overview
(:mod:`pdbench.overview`) and the key charts of the game, drawn as inline SVG
(:mod:`pdbench.report_svg`); for a folder of runs, the run list with each run's headline (as
``pdbench ui <folder>`` lists them). Every number is inline: no script, style sheet, font or
image is fetched from any host and nothing links outside the file, so it opens offline in any
browser. Like the viewer it only reads the marts, and the run's manifest for what it played:
the run's facts (source, seed, config and its sha256, the pdbench that played it and the one
that wrote the report), the game's setup (its ``setup`` sections), the results, and the methods
the game's sections write from the marts and catalogues. Every text from the run (a model's
name, a condition, a reply) is escaped: data, never markup. A print style sheet keeps every
heading on the page of its chart or table, on A4.
"""

from __future__ import annotations

import os
import shlex
from datetime import UTC, datetime
from html import escape
from importlib import metadata
from pathlib import Path
from typing import Any

from pdbench.column_labels import MISSING
from pdbench.errors import RunDirError
from pdbench.findings import Finding
from pdbench.game import Series, imported
from pdbench.number_text import plural
from pdbench.overview import Overview, folder_overview, manifest_of, run_overview
from pdbench.report_svg import Section, fact_list_html
from pdbench.storage.manifest import require_run_dir
from pdbench.storage.marts_check import check_marts, mart_read_errors
from pdbench.storage.schema import RunFiles

__all__ = ["default_output", "render_report", "render_run_list", "run_facts", "write_report"]

_REPORT_SUFFIXES = (".html", ".htm")
"""What a report written inside a run directory may be named."""


_STYLE = """
body { font-family: sans-serif; max-width: 960px; margin: 2em auto; color: #1a1a1a;
       background: #ffffff; line-height: 1.45; padding: 0 1em; }
h1 { margin-bottom: 0.1em; } .meta { color: #555555; font-size: 0.9em; }
li { margin-bottom: 0.5em; } .page { color: #555555; font-size: 0.85em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border-bottom: 1px solid #dddddd; padding: 0.25em 0.6em; text-align: left; }
th { background: #f3f3f3; color: #1a1a1a; }
figure { margin: 0 0 1.5em; } figcaption { color: #444444; font-size: 0.9em; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 1em;
           font-size: 0.9em; } dl.facts dt { color: #444444; } dl.facts dd { margin: 0; }
.methods li { margin-bottom: 0.3em; }
svg { max-width: 100%; height: auto; }
@page { size: A4; margin: 16mm 14mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  h1, h2, h3, figcaption { break-after: avoid; page-break-after: avoid; }
  section.chart, figure.chart, svg, dl.facts, tr, .keep { break-inside: avoid;
    page-break-inside: avoid; }
  thead { display: table-header-group; }
  a { color: inherit; text-decoration: none; }
}
"""
"""Every colour of text is at least WCAG AA (4.5:1) on its background; the print rules keep
each heading with the chart or table under it and never cut a chart across two pages."""


def _check(run_dir: Path) -> str:
    """The game of ``run_dir`` (``series`` for a series); a one-line :class:`RunDirError`
    when it is no run, or its marts are not built, not readable, or older than its raw files
    (:func:`pdbench.storage.marts_check.check_marts`)."""
    from pdbench.games import game_named, series_game, series_manifests

    require_run_dir(run_dir)
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


def _version(manifest: dict[str, Any], package: str) -> str:
    versions = manifest.get("versions")
    found = versions.get(package) if isinstance(versions, dict) else None
    return str(found) if found else "not recorded"


def _report_version() -> str:
    """The version of the pdbench writing the report."""
    try:
        return metadata.version("pdbench")
    except metadata.PackageNotFoundError:
        return "not installed as a package"


def run_facts(run_dir: Path, game: str) -> list[tuple[str, str]]:
    """What every report says of its run, from its manifest: where the run comes from, its
    seed, config and the versions that played and measured it."""
    if game == "series":
        return [
            ("series", str(run_dir)),
            *_series_facts(run_dir),
            ("pdbench writing this report", _report_version()),
        ]
    manifest = manifest_of(run_dir)
    facts = [
        ("run id", str(manifest.get("run_id", MISSING))),
        ("status", str(manifest.get("status", MISSING))),
    ]
    imported_from = manifest.get("imported")
    if manifest.get("source") == "imported" and isinstance(imported_from, dict):
        facts.append(("source", f"imported ({imported_from.get('format', MISSING)} format)"))
        for source in imported_from.get("sources") or []:
            if isinstance(source, dict):
                facts.append(
                    (
                        "source file",
                        f"{source.get('path', MISSING)} (sha256 {source.get('sha256', MISSING)})",
                    )
                )
    else:
        facts.append(("source", "played by pdbench"))
    facts += [
        ("seed", str(manifest.get("seed", MISSING))),
        ("config", f"{manifest.get('config_path', MISSING)} "
                   f"(sha256 {manifest.get('config_sha256', MISSING)})"),
        ("started", str(manifest.get("started_at") or MISSING)),
        ("finished", str(manifest.get("finished_at") or MISSING)),
        ("pdbench that played it", _version(manifest, "pdbench")),
        ("pdbench writing this report", _report_version()),
        ("dbt-core, dbt-duckdb, DuckDB when played", ", ".join(
            _version(manifest, package) for package in ("dbt-core", "dbt-duckdb", "duckdb")
        )),
        ("Python", str(manifest.get("python") or MISSING)),
        ("git commit", str(manifest.get("git_commit") or "not recorded")),
    ]  # fmt: skip
    return facts


def _series_facts(run_dir: Path) -> list[tuple[str, str]]:
    """What a series' manifest records: each text as it is, each list as its length and its
    entries' folder names."""
    import json

    path = run_dir / _series(run_dir).manifest
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [("series manifest", f"{path.name} cannot be read")]
    facts = []
    for key, value in record.items() if isinstance(record, dict) else ():
        name = str(key).replace("_", " ")
        if isinstance(value, str | int | float):
            facts.append((name, str(value)))
        elif isinstance(value, list):
            entries = [str(e.get("folder", e)) if isinstance(e, dict) else str(e) for e in value]
            facts.append((name, f"{len(entries)}: {', '.join(entries)}"))
    return facts


def _section_html(section: Section) -> str:
    """A section: its heading, and its body in a figure captioned by its caption. A chart
    (an SVG) is never cut across two printed pages."""
    chart = section.body.lstrip().startswith("<svg")
    kind = "chart" if chart else "table"
    caption = f"<figcaption>{escape(section.caption)}</figcaption>" if section.caption else ""
    return (
        f"<section class='{kind}'><h2>{escape(section.heading)}</h2>"
        f"<figure class='{kind}'>{caption}{section.body}</figure></section>"
    )


def _focus_text(finding: Finding) -> str:
    """What the finding's viewer page opens on, after its name: ``, tft_vs_alld`` (a
    condition of the PD's Condition page)."""
    return "" if finding.focus is None else f", {escape(finding.focus)}"


def _overview_html(overview: Overview) -> str:
    if not overview.findings:
        return "<p>No finding: the marts hold no rows.</p>"
    items = "".join(
        f"<li>{escape(finding.text)} <span class='page'>(viewer page: "
        f"{escape(finding.page)}{_focus_text(finding)})</span></li>"
        for finding in overview.findings
    )
    return f"<ul class='overview'>{items}</ul>"


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
        f"<tr><td>{escape(run.name)}</td><td>{escape(run.game)}</td>"
        f"<td>{escape(run.status)}</td><td>{escape(run.headline)}</td>"
        f"<td><code>{escape(shlex.join(['pdbench', 'report', str(run.run_dir)]))}</code></td></tr>"
        for run in listing
    )
    return _page(
        f"runs in {folder.name}",
        [
            f"<h1>Runs in {escape(str(folder))}</h1>",
            f"<p class='meta'>{plural(len(listing), 'run')}, newest first; each with the "
            "first sentence "
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
    sections = _sections(run_dir, game)
    parts = [
        f"<h1>{escape(overview.title)}</h1>",
        f"<p class='meta'>{escape(_meta(run_dir, game))}</p>",
        "<section class='table'><h2>Run</h2>",
        fact_list_html(run_facts(run_dir, game)),
        "</section>",
        *(_section_html(s) for s in sections if s.place == "setup"),
        "<section class='table'><h2>Overview</h2>",
        _overview_html(overview),
        "</section>",
        *(_section_html(s) for s in sections if s.place == "results"),
        *(_section_html(s) for s in sections if s.place == "methods"),
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
