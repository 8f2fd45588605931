"""Every read the viewer makes, for any game: DuckDB over the Parquet marts of a run, and
over its raw JSONL only for what no mart holds (each game's reader says which: the PD's
:mod:`pdbench.ui.pd.reader`, the arena's :mod:`pdbench.ui.arena.reader`).

Nothing here writes, and nothing computes a metric: the queries filter, select and order
what the marts hold. Results are cached by ``st.cache_data`` keyed on the query, its
parameters and the path, mtime and size of every file it reads, so a rebuilt mart is read
again and an unchanged one is not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from pdbench.storage.duckdb_paths import duckdb_path, sql_string
from pdbench.storage.marts import MartFile
from pdbench.storage.shards import record_files

__all__ = ["file_stamp", "mart", "quoted", "raw_files", "raw_source", "read"]


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


def read(sql: str, files: list[Path], *params: Any) -> pd.DataFrame:
    """The rows of ``sql`` (``?`` placeholders filled from ``params``), cached until one of
    ``files``, the files it reads, changes."""
    return _query(sql, params, tuple(file_stamp(path) for path in files))


def quoted(path: Path) -> str:
    """``path`` as an SQL string literal naming exactly that file
    (:mod:`pdbench.storage.duckdb_paths`: never read as a pattern)."""
    return sql_string(duckdb_path(path))


def mart(run_dir: Path, name: MartFile, where: str = "true", *params: Any) -> pd.DataFrame:
    """The rows of the mart file ``name`` that match ``where``, ``?`` placeholders filled from
    ``params``, in the mart's order (:class:`pdbench.storage.marts.MartFile`), without the
    all-NULL row an empty external model holds."""
    key, order_by = name.key, name.order
    if not key:
        raise ValueError(f"{name} is not read whole by the viewer (its catalogue gives no key)")
    path = run_dir / name
    return read(
        f"select * from read_parquet({quoted(path)}) "
        f"where {key} is not null and ({where}) order by {order_by}",
        [path],
        *params,
    )


# Raw records --------------------------------------------------------------------------------


def raw_files(run_dir: Path, name: str) -> list[Path]:
    """The files of the raw record file ``name`` of ``run_dir``: the file, or the copies of
    the chunks of a run played on a cluster (:func:`pdbench.storage.shards.record_files`)."""
    return record_files(run_dir, name) or [run_dir / name]


def raw_source(files: list[Path], columns: Sequence[str], types: Mapping[str, str]) -> str:
    """A DuckDB table function reading ``columns`` of the raw JSONL ``files`` (one record
    file, or its chunks' copies) with their DuckDB ``types`` (the record's contract, by
    field); a torn last line reads as NULLs."""
    spec = ", ".join(f"'{name}': '{types[name]}'" for name in columns)
    paths = ", ".join(quoted(path) for path in files)
    return (
        f"read_json([{paths}], format = 'newline_delimited', columns = {{{spec}}}, "
        "ignore_errors = true)"
    )
