"""Record types of every file in a run directory: the contract between engine and dbt.

A run directory (``data/runs/<run_id>/``) holds, whatever its game:

=============================  ===========================================================
file                           one line / row per
=============================  ===========================================================
``run_manifest.json``          the run (:class:`RunManifest`)
``calls.jsonl``                provider call attempt, both games (:class:`CallRecord`)
``*.parquet``                  dbt marts (never written by the engine)
=============================  ===========================================================

and the records of its game, which the game declares (:attr:`pdbench.game.Game.records`)
next to their models, in its package's ``records`` module: the PD's ``rounds.jsonl`` and
``matches.jsonl``, the arena's ``questions.jsonl``, ``answers.jsonl``, ``judgments.jsonl``
and the others. :func:`pdbench.games.records` lists
every record of every game; ``docs/run_directory.md`` describes each file.

The shared models live in :mod:`pdbench.storage.records`, with what follows from any record
model: the key order of written lines, the JSON schema (``pdbench schema <record>``), the
DuckDB column types of the readers (the viewer) and the dbt sources
(:mod:`pdbench.storage.records.dbt_sources` writes ``_sources.yml``).

Conventions, relied on by the SQL models:

- ``round_index`` is 1-based: the first round of a match is round 1.
- ``replicate`` is 0-based: replicates are 0 .. n-1.
- PD actions are the strings ``"C"`` and ``"D"``. An invalid reply is never stored as an action:
  the action column holds what was played (a configured fallback) and ``*_valid`` is false.
- Every record carries ``schema_version``; a reader rejects versions it does not know.
- Timestamps are ISO 8601 UTC strings with a ``Z`` suffix.
"""

from __future__ import annotations

from pdbench.storage.records.calls import CallRecord
from pdbench.storage.records.columns import duckdb_columns, line_keys
from pdbench.storage.records.fields import (
    SCHEMA_VERSION,
    RunStatus,
)
from pdbench.storage.records.files import RUN_RECORDS, RecordFile, RecordSource, RunFiles
from pdbench.storage.records.manifest import (
    BatchRef,
    ImportRecord,
    RunManifest,
    ShardRecord,
    SourceFile,
)

__all__ = [
    "RUN_RECORDS",
    "SCHEMA_VERSION",
    "BatchRef",
    "CallRecord",
    "ImportRecord",
    "RecordFile",
    "RecordSource",
    "RunFiles",
    "RunManifest",
    "RunStatus",
    "ShardRecord",
    "SourceFile",
    "duckdb_columns",
    "line_keys",
]
