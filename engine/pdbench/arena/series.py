"""A series of arena tournaments: the cross-tournament leaderboard and each player's progression.

``pdbench leaderboard <run_dir | runs_dir>...`` gathers the finished, aggregated arena runs it
is given (a folder of runs stands for every arena run directly inside it), copies each one's
``run_manifest.json`` and ``leaderboard.parquet`` into ``<output>/tournaments/<k>-<run_id>/``
(:func:`tournament_folder`: the run id kept to a plain name, whatever a shared run's manifest
says; the series' raw input, so the output stands on its own and rebuilds identically), and runs
the dbt models tagged ``series`` on the output folder. Every number is computed there
(docs/arena_series.md); this module only collects files.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.arena.records import ARENA_RECORDS
from pdbench.clock import utc_timestamp
from pdbench.column_labels import number_spec
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.errors import PdbenchError, RunDirError
from pdbench.storage.manifest import read_manifest, require_run_dir
from pdbench.storage.records.files import RUN_RECORDS
from pdbench.storage.schema import RunFiles
from pdbench.storage.shards import record_files
from pdbench.tables import aligned, count_marts_rows, mart_rows

__all__ = [
    "SERIES_MANIFEST",
    "Series",
    "Tournament",
    "build_series",
    "find_tournaments",
    "records_digest",
    "summary_lines",
    "tournament_folder",
]

SERIES_MANIFEST = "series_manifest.json"
"""What a series folder was built from: its sources, in tournament order."""
TOURNAMENTS = "tournaments"
"""The folder of the tournaments' copied files."""
_SERIES_FILES = {SERIES_MANIFEST, TOURNAMENTS, *SeriesMart}
_NOT_PLAIN = re.compile(r"[^A-Za-z0-9_.-]")
_RUN_ID_CHARS = 100
"""Characters of a run id kept in a tournament's folder name."""


@dataclass(frozen=True)
class Tournament:
    """One arena run of the series."""

    run_dir: Path
    run_id: str
    started_at: str


@dataclass(frozen=True)
class Series:
    """What ``build_series`` wrote."""

    output_dir: Path
    tournaments: list[Tournament]
    skipped: list[str]
    """One line per run directory of a folder left out, and why (``pdbench leaderboard``
    prints them on stderr, ``skipped <run_dir>: <reason>``)."""
    tables: dict[str, int]
    """Mart file -> rows."""


def find_tournaments(sources: list[Path]) -> tuple[list[Tournament], list[str]]:
    """The arena runs of ``sources`` in the order they started, and one line per run of a
    folder that was left out. A run directory named itself must be a usable arena run, and no
    run may come twice (:func:`_refuse_twice`)."""
    found: list[Tournament] = []
    skipped: list[str] = []
    for source in sources:
        require_run_dir(source)
        if (source / RunFiles.MANIFEST).is_file():
            tournament, problem = _tournament(source)
            if problem or tournament is None:
                raise RunDirError(f"{source}: {problem}")
            found.append(tournament)
        elif source.is_dir():
            for child in sorted(p for p in source.iterdir() if (p / RunFiles.MANIFEST).is_file()):
                tournament, problem = _tournament(child)
                if problem or tournament is None:
                    skipped.append(f"{child}: {problem}")
                else:
                    found.append(tournament)
        else:
            raise RunDirError(f"{source}: neither a run directory nor a folder of runs")
    _refuse_twice(found)
    tournaments = sorted(found, key=lambda t: (t.started_at, t.run_id, str(t.run_dir)))
    if len(tournaments) < 2:
        raise RunDirError(
            f"a series needs two finished arena runs with their metrics; found {len(tournaments)}"
        )
    return tournaments, skipped


def _refuse_twice(tournaments: list[Tournament]) -> None:
    """Refuse a run given twice: the same folder named twice, a link to it, or a copy. Two
    tournaments are one run when their manifests give one run id and their records hold the
    same bytes (:func:`records_digest`); counted twice, a run would narrow every interval of
    the series as if it had been played again."""
    seen: dict[tuple[str, str], Tournament] = {}
    for tournament in tournaments:
        key = (tournament.run_id, records_digest(tournament.run_dir))
        if (first := seen.get(key)) is not None:
            raise RunDirError(
                f"{first.run_dir} and {tournament.run_dir} are the same run (run id "
                f"{tournament.run_id}, the same records): give each tournament once"
            )
        seen[key] = tournament


def records_digest(run_dir: Path) -> str:
    """The sha256 of the records of an arena run, every record file in the order its record
    source lists them (a chunked run's chunks in part order), each behind its name: the same
    for a run and its copy, different as soon as one line differs."""
    digest = hashlib.sha256()
    for record in (*RUN_RECORDS.records, *ARENA_RECORDS.records):
        if record.file == RunFiles.MANIFEST:
            continue
        for path in record_files(run_dir, record.file):
            digest.update(f"\0{record.file}\0{path.stat().st_size}\0".encode())
            with path.open("rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
    return digest.hexdigest()


def _tournament(run_dir: Path) -> tuple[Tournament | None, str | None]:
    """The tournament of ``run_dir``, and why it cannot be one of the series (or None); a
    manifest that cannot be read is such a reason, never an error of the whole series."""
    try:
        manifest = read_manifest(run_dir)
    except PdbenchError as exc:
        return None, str(exc).removeprefix(f"{run_dir / RunFiles.MANIFEST}: ")
    tournament = Tournament(run_dir=run_dir, run_id=manifest.run_id, started_at=manifest.started_at)
    if manifest.game != "arena":
        return tournament, f"a {manifest.game} run, not an arena run"
    if manifest.status != "completed":
        return tournament, f"the run is {manifest.status}, not completed"
    if not (run_dir / ArenaMart.LEADERBOARD).is_file():
        return tournament, f"no {ArenaMart.LEADERBOARD}: run `pdbench aggregate {run_dir}`"
    return tournament, None


def build_series(sources: list[Path], output_dir: Path) -> Series:
    """Collect the tournaments of ``sources`` into ``output_dir`` and build its marts."""
    tournaments, skipped = find_tournaments(sources)
    output_dir = output_dir.expanduser().resolve()
    _prepare(output_dir)
    entries = []
    for index, tournament in enumerate(tournaments):
        folder = output_dir / TOURNAMENTS / tournament_folder(index, tournament.run_id)
        folder.mkdir(parents=True)
        for name in (RunFiles.MANIFEST, ArenaMart.LEADERBOARD):
            shutil.copyfile(tournament.run_dir / name, folder / name)
        entries.append({"folder": folder.name, "run_dir": str(tournament.run_dir.resolve())})
    record = {"created_at": utc_timestamp(), "tournaments": entries}
    (output_dir / SERIES_MANIFEST).write_text(json.dumps(record, indent=2) + "\n", "utf-8")
    results = invoke_dbt(DbtRequest("build", run_dir=output_dir, select="tag:series"))
    tables = count_marts_rows([Path(p) for p in sorted(results.locations)])
    return Series(output_dir=output_dir, tournaments=tournaments, skipped=skipped, tables=tables)


def tournament_folder(index: int, run_id: str) -> str:
    """The folder name of the ``index``-th tournament, ``<k>-<run_id>``: one name inside
    ``tournaments/``, never a path. A run id comes from a run's manifest, which whoever shares
    the run wrote, so every character but letters, digits, ``_``, ``.`` and ``-`` becomes ``_``
    (no separator, no pattern character) and it is cut to 100 characters; the number in
    front keeps the name unique and in order (the folders' order is the tournaments')."""
    return f"{index:03d}-{_NOT_PLAIN.sub('_', run_id)[:_RUN_ID_CHARS]}"


def _prepare(output_dir: Path) -> None:
    """An empty folder, or one this module wrote before (emptied): never a stranger's."""
    if output_dir.exists():
        if not output_dir.is_dir():
            raise RunDirError(f"{output_dir}: exists and is not a folder")
        strangers = sorted(p.name for p in output_dir.iterdir() if p.name not in _SERIES_FILES)
        if strangers:
            raise RunDirError(
                f"{output_dir}: holds {strangers[0]}, which a series does not write: "
                "choose an empty or new --output-dir"
            )
        for name in _SERIES_FILES:
            path = output_dir / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    output_dir.mkdir(parents=True, exist_ok=True)


def _number(value: float | None, column: str, *, signed: bool = False) -> str:
    """``value`` with the decimals the catalogue gives ``column``; ``-`` when missing."""
    return "-" if value is None else format(value, number_spec(column, signed=signed))


def summary_lines(series: Series) -> list[str]:
    """What ``pdbench leaderboard`` prints: the tournaments, then the combined ranking."""
    lines = [f"series of {len(series.tournaments)} tournaments -> {series.output_dir}"]
    lines += [f"  {i + 1}. {t.run_id} ({t.started_at})" for i, t in enumerate(series.tournaments)]
    rows = mart_rows(
        series.output_dir / SeriesMart.PLAYERS,
        columns=(
            "overall_rank",
            "player",
            "model",
            "n_tournaments",
            "mean_score",
            "ci_low",
            "ci_high",
            "rank_ci_low",
            "rank_ci_high",
            "trend",
            "trend_ci_low",
            "trend_ci_high",
        ),
        where="player is not null",
        order_by="overall_rank, player, model",
    )
    table = [("rank", "player", "model", "tournaments", "score", "95% CI", "rank CI", "trend")]
    for rank, player, model, n, mean, low, high, rank_low, rank_high, trend, t_low, t_high in rows:
        table.append(
            (
                str(rank),
                player,
                model,
                str(n),
                _number(mean, "mean_score"),
                f"{_number(low, 'mean_score')} .. {_number(high, 'mean_score')}",
                f"{rank_low} .. {rank_high}",
                "-"
                if trend is None
                else f"{_number(trend, 'trend', signed=True)} "
                f"({_number(t_low, 'trend')} .. {_number(t_high, 'trend')})",
            )
        )
    lines.append("combined ranking (scores adjusted by each tournament's offset):")
    return lines + aligned(table)
