"""The files every run directory holds, whatever its game, and what a record file is.

A game names its own files and hands its records to the core as a :class:`RecordSource`
(:attr:`pdbench.game.Game.records`); :func:`pdbench.games.records` lists every record of
every registered game, and :data:`RUN_RECORDS` those every run writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from pdbench.storage.records.calls import CallRecord
from pdbench.storage.records.manifest import RunManifest

__all__ = [
    "RUN_RECORDS",
    "RecordFile",
    "RecordSource",
    "RunFiles",
    "declare_run_file",
    "record_file_names",
]


class RunFiles:
    """The files every run directory holds, whatever its game."""

    MANIFEST = "run_manifest.json"
    CALLS = "calls.jsonl"


_RECORD_FILE_NAMES: set[str] = set()
"""The file of every :class:`RecordSource` declared so far."""


def declare_run_file(name: str) -> str:
    """Declare ``name`` a file pdbench keeps in a game's run directories besides its records
    (the arena's audience invites): replacing a run directory deletes it as it deletes the
    records. Returns ``name``."""
    _RECORD_FILE_NAMES.add(name)
    return name


def record_file_names() -> frozenset[str]:
    """The files of every record declared (every run's, and those of each game whose records
    module is imported; the registry, :mod:`pdbench.games`, imports every game's): the raw
    files pdbench writes, which replacing a run directory deletes."""
    return frozenset(_RECORD_FILE_NAMES)


@dataclass(frozen=True)
class RecordFile:
    """A raw record: its name (``pdbench schema <name>``, the dbt source table), the file of
    the run directory that holds it, and its model."""

    name: str
    file: str
    model: type[BaseModel]
    required: bool = False
    """Whether dbt refuses a run directory without the file (``meta.required`` of its source
    table); a file not required reads as no rows when it is not there (yet)."""
    json_format: str | None = None
    """How DuckDB reads the file (``meta.format``); None: one JSON object per line."""


@dataclass(frozen=True)
class RecordSource:
    """The records of one game, or those every run writes: one dbt source."""

    name: str
    """The dbt source (``source('<name>', '<record>')``)."""
    description: str
    records: tuple[RecordFile, ...]

    def __post_init__(self) -> None:
        _RECORD_FILE_NAMES.update(record.file for record in self.records)


RUN_RECORDS = RecordSource(
    name="run",
    description=(
        "What every run writes, whatever its game: the manifest, and one line per provider call."
    ),
    records=(
        RecordFile("manifest", RunFiles.MANIFEST, RunManifest, required=True, json_format="auto"),
        RecordFile("calls", RunFiles.CALLS, CallRecord),
    ),
)
"""The records every run writes, as the dbt source ``run`` declares them."""
