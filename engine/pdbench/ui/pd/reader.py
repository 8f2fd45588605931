"""What the PD's pages read beyond whole marts: the rows of one condition, replicate or
agent pair, and the raw records of one match (its rounds, what was said in one round and
the provider calls of that round).

The raw rounds of a PD run can be large (a million rounds is several hundred megabytes of
JSONL): the rounds of one match are read from ``rounds.parquet``, a copy sorted by match that
dbt writes (a row-group skip), and from the JSONL only when that copy is missing or stale;
the queries read only the columns they need and only the rows of one match, and never hand
the whole file to pandas. Every read goes through :mod:`pdbench.ui.run_reader` (its cache).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from pdbench.pd.marts import PDMart
from pdbench.pd.records import PDFiles, RoundRecord
from pdbench.storage.marts_manifest import stale_raw_files
from pdbench.storage.schema import CallRecord, RunFiles, duckdb_columns
from pdbench.ui.run_reader import mart, quoted, raw_files, raw_source, read

__all__ = [
    "RoundTalk",
    "RoundsSource",
    "agent_rows",
    "condition_rows",
    "cooperation_over_time",
    "match_rounds",
    "replicate_aggregates",
    "round_calls",
    "round_talk",
    "rounds_source",
]

_ROUND_TYPES = duckdb_columns(RoundRecord)
"""The DuckDB types of the fields of ``rounds.jsonl``: the records' contract."""
_CALL_TYPES = duckdb_columns(CallRecord)
"""The DuckDB types of the fields of ``calls.jsonl``."""

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
        raw_files(run_dir, PDFiles.ROUNDS),
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
        table = f"(select {names} from read_parquet({quoted(source.files[0])}))"
    else:
        table = raw_source(source.files, columns, _ROUND_TYPES)
    per_side = ", ".join(
        f"unnest([agent_a_{name}, agent_b_{name}]) as {alias}"
        for name, alias in _SIDE_FIELDS.items()
    )
    return read(
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
    files = raw_files(run_dir, PDFiles.ROUNDS)
    columns = ["match_id", "round_index", "prompts", "raw_responses"]
    rows = read(
        f"select prompts, raw_responses from {raw_source(files, columns, _ROUND_TYPES)} "
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
    files = raw_files(run_dir, RunFiles.CALLS)
    source = raw_source(files, list(_CALL_TYPES), _CALL_TYPES)
    return read(
        f"select * exclude (match_id, round_index) from {source} "
        "where match_id = ? and round_index = ? order by agent, attempt",
        files,
        match_id,
        round_index,
    )


# Rows of one condition, replicate or agent pair -----------------------------------------


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
