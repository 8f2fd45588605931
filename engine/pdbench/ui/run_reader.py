"""Every read the viewer makes: DuckDB over the Parquet marts of a run, and over its raw JSONL
only for what no mart holds, the rounds of one match and what was said in one round.

Nothing here writes, and nothing computes a metric: the queries filter, select and order
what the marts hold. Results are cached by ``st.cache_data`` keyed on the query, its
parameters and the path, mtime and size of every file it reads, so a rebuilt mart is read
again and an unchanged one is not.

The raw rounds of a PD run can be large (a million rounds is several hundred megabytes of
JSONL): the rounds of one match are read from ``rounds.parquet``, a copy sorted by match that
dbt writes (a row-group skip), and from the JSONL only when that copy is missing or stale;
the queries read only the columns they need and only the rows of one match, and never hand
the whole file to pandas.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from pdbench.pd.marts import PDMart
from pdbench.pd.records import PDFiles, RoundRecord
from pdbench.storage.marts import MartFile
from pdbench.storage.marts_manifest import stale_raw_files
from pdbench.storage.schema import CallRecord, RunFiles, duckdb_columns
from pdbench.storage.shards import record_files

__all__ = [
    "RoundTalk",
    "RoundsSource",
    "agent_rows",
    "condition_rows",
    "cooperation_over_time",
    "file_stamp",
    "mart",
    "match_rounds",
    "of_question",
    "replicate_aggregates",
    "round_calls",
    "round_talk",
    "rounds_source",
]


def file_stamp(path: Path) -> tuple[str, int, int]:
    """``(path, mtime_ns, size)``: the part of a cache key that changes when the file does."""
    stat = path.stat()
    return (str(path), stat.st_mtime_ns, stat.st_size)


@st.cache_data(show_spinner=False, max_entries=512)
def _query(sql: str, params: tuple[Any, ...], stamps: tuple[tuple[str, int, int], ...]) -> Any:
    """Run ``sql`` with ``params`` on an in-memory DuckDB; ``stamps`` only key the cache."""
    del stamps
    with duckdb.connect(":memory:") as con:
        return con.execute(sql, list(params)).df()


def _read(sql: str, files: list[Path], *params: Any) -> pd.DataFrame:
    return _query(sql, params, tuple(file_stamp(path) for path in files))


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")


def mart(run_dir: Path, name: MartFile, where: str = "true", *params: Any) -> pd.DataFrame:
    """The rows of the mart file ``name`` that match ``where``, ``?`` placeholders filled from
    ``params``, in the mart's order (:class:`pdbench.storage.marts.MartFile`), without the
    all-NULL row an empty external model holds."""
    key, order_by = name.key, name.order
    if not key:
        raise ValueError(f"{name} is not read whole by the viewer (its catalogue gives no key)")
    path = run_dir / name
    return _read(
        f"select * from read_parquet('{_quote(path)}') "
        f"where {key} is not null and ({where}) order by {order_by}",
        [path],
        *params,
    )


# Raw records: the rounds of one match, and what was said in one round ---------------------

_RAW_COLUMN_TYPES: dict[str, dict[str, str]] = {
    PDFiles.ROUNDS: duckdb_columns(RoundRecord),
    RunFiles.CALLS: duckdb_columns(CallRecord),
}
"""The types of the raw record fields the viewer reads, per file: the records' contract."""


def _raw_files(run_dir: Path, name: str) -> list[Path]:
    """The files of the raw record file ``name`` of ``run_dir``: the file, or the copies of
    the chunks of a run played on a cluster (:func:`pdbench.storage.shards.record_files`)."""
    return record_files(run_dir, name) or [run_dir / name]


def _raw_source(files: list[Path], columns: Sequence[str]) -> str:
    """A DuckDB table function reading ``columns`` of the raw JSONL ``files`` (one record
    file, or its chunks' copies) with their record types; a torn last line reads as NULLs."""
    types = _RAW_COLUMN_TYPES[files[0].name]
    spec = ", ".join(f"'{name}': '{types[name]}'" for name in columns)
    paths = ", ".join(f"'{_quote(path)}'" for path in files)
    return (
        f"read_json([{paths}], format = 'newline_delimited', columns = {{{spec}}}, "
        "ignore_errors = true)"
    )


_SIDE_FIELDS = {
    "name": "agent_name",
    "kind": "agent_kind",
    "intended_action": "intended_action",
    "action": "action",
    "payoff": "payoff",
    "cum_payoff": "cum_payoff",
    "valid": "is_valid",
    "attempts": "attempts",
}
"""Fields of ``rounds.jsonl`` recorded once per agent (``agent_a_<field>``, ...) and their
names in :func:`match_rounds`."""


@dataclass(frozen=True)
class RoundsSource:
    """Where the rounds of a match are read from: ``rounds.parquet`` (the mart ``pd_rounds``,
    sorted by match, so one match is a few row groups) or, when that is missing or older
    than the raw rounds, ``rounds.jsonl`` itself (every line scanned), with a note saying
    why and the command that writes the mart."""

    files: list[Path]
    from_mart: bool
    note: str | None = None


def rounds_source(run_dir: Path) -> RoundsSource:
    """The files :func:`match_rounds` reads for ``run_dir``, and why, when not the mart."""
    mart_path = run_dir / PDMart.ROUNDS
    stale = stale_raw_files(run_dir) or []
    changed = [name for name in stale if Path(name).name == PDFiles.ROUNDS]
    if mart_path.is_file() and not changed:
        return RoundsSource([mart_path], from_mart=True)
    why = (
        f"{PDMart.ROUNDS} is older than {changed[0]}"
        if mart_path.is_file()
        else f"this run has no {PDMart.ROUNDS} (aggregated by an older pdbench, or not yet)"
    )
    command = shlex.join(["uv", "run", "pdbench", "aggregate", str(run_dir)])
    return RoundsSource(
        _raw_files(run_dir, PDFiles.ROUNDS),
        from_mart=False,
        note=(
            f"The rounds are read from {PDFiles.ROUNDS}, line by line, since {why}: on a "
            f"large run that takes seconds per match. `{command}` writes the sorted copy."
        ),
    )


def match_rounds(run_dir: Path, match_id: str) -> pd.DataFrame:
    """The rounds of one match, one row per round and agent side (``agent_a``,
    ``agent_b``): ``agent_name``, ``agent_kind``, intended and executed action, payoff,
    cumulative payoff, ``is_valid`` and ``attempts``; by round, then side. Read from
    ``rounds.parquet`` when it is up to date, else from ``rounds.jsonl``
    (:func:`rounds_source`). Prompts and replies are left out (see :func:`round_talk`)."""
    source = rounds_source(run_dir)
    columns = ["match_id", "round_index", *(f"agent_{s}_{f}" for f in _SIDE_FIELDS for s in "ab")]
    if source.from_mart:
        names = ", ".join(columns)
        table = f"(select {names} from read_parquet('{_quote(source.files[0])}'))"
    else:
        table = _raw_source(source.files, columns)
    per_side = ", ".join(
        f"unnest([agent_a_{name}, agent_b_{name}]) as {alias}"
        for name, alias in _SIDE_FIELDS.items()
    )
    return _read(
        f"select round_index, unnest(['agent_a', 'agent_b']) as side, {per_side} "
        f"from {table} where match_id = ? order by round_index, side",
        source.files,
        match_id,
    )


@dataclass(frozen=True)
class RoundTalk:
    """What the LLM agents of one round were told and answered, per side (``agent_a``)."""

    prompts: dict[str, dict[str, str]] = field(default_factory=dict)
    """``{"agent_a": {"system": ..., "round": ...}}``."""
    replies: dict[str, list[str]] = field(default_factory=dict)
    """``{"agent_a": [reply of attempt 1, ...]}``."""


def round_talk(run_dir: Path, match_id: str, round_index: int) -> RoundTalk:
    """The stored prompts and raw replies of one round (empty when the run did not store
    them)."""
    files = _raw_files(run_dir, PDFiles.ROUNDS)
    columns = ["match_id", "round_index", "prompts", "raw_responses"]
    rows = _read(
        f"select prompts, raw_responses from {_raw_source(files, columns)} "
        "where match_id = ? and round_index = ?",
        files,
        match_id,
        round_index,
    )
    if rows.empty:
        return RoundTalk()
    prompts, replies = (
        json.loads(value) if isinstance(value, str) else {} for value in rows.iloc[0]
    )
    return RoundTalk(prompts=prompts, replies=replies)


def round_calls(run_dir: Path, match_id: str, round_index: int) -> pd.DataFrame:
    """The provider calls of one round of one match, by agent and attempt."""
    files = _raw_files(run_dir, RunFiles.CALLS)
    columns = list(_RAW_COLUMN_TYPES[RunFiles.CALLS])
    return _read(
        f"select * exclude (match_id, round_index) from {_raw_source(files, columns)} "
        "where match_id = ? and round_index = ? order by agent, attempt",
        files,
        match_id,
        round_index,
    )


# Rows of one match, condition or question -----------------------------------------------


def condition_rows(run_dir: Path, name: PDMart) -> pd.DataFrame:
    """The condition-level rows of the mart ``name`` (``aggregates.parquet``,
    ``agent_metrics.parquet``)."""
    return mart(run_dir, name, "level = 'condition'")


def replicate_aggregates(run_dir: Path, condition: str, replicate: int) -> pd.DataFrame:
    """The replicate row of ``aggregates.parquet`` of one match (none when the match is not
    ok)."""
    return mart(
        run_dir,
        PDMart.AGGREGATES,
        "level = 'replicate' and condition = ? and replicate = ?",
        condition,
        replicate,
    )


def agent_rows(run_dir: Path, name: PDMart, condition: str, replicate: int | None) -> pd.DataFrame:
    """The rows of the two agents of one replicate (``None``: of the condition) in the mart
    ``name`` (``agent_metrics.parquet``, ``memory_one.parquet``), agent A first."""
    return mart(
        run_dir, name, "condition = ? and replicate is not distinct from ?", condition, replicate
    )


def cooperation_over_time(run_dir: Path, condition: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Cooperation by round in one condition: of both agents (its condition rows of
    ``cooperation_over_time.parquet``) and of each (``agent_cooperation_over_time.parquet``)."""
    return (
        mart(
            run_dir,
            PDMart.COOPERATION_OVER_TIME,
            "level = 'condition' and condition = ?",
            condition,
        ),
        mart(run_dir, PDMart.AGENT_COOPERATION_OVER_TIME, "condition = ?", condition),
    )


def of_question(run_dir: Path, name: MartFile, question_id: str) -> pd.DataFrame:
    """The rows of one question in the mart ``name`` (``rating_detail.parquet``,
    ``answer_detail.parquet``, ``judgment_detail.parquet``)."""
    return mart(run_dir, name, "question_id = ?", question_id)
