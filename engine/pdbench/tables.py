"""Plain-text tables for the terminal (``pdbench aggregate`` prints one per game)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from pdbench.storage.duckdb_paths import duckdb_path

__all__ = [
    "aligned",
    "built_mart_rows",
    "count_mart_rows",
    "count_marts_rows",
    "decimals",
    "mart_columns",
    "mart_rows",
    "number",
]


@functools.cache
def _database() -> duckdb.DuckDBPyConnection:
    """One in-memory DuckDB for every read of this process: opening one costs more than
    reading a small mart (the demo's summary reads nine)."""
    return duckdb.connect(":memory:")


_lock = threading.Lock()


@contextmanager
def _cursor() -> Iterator[duckdb.DuckDBPyConnection]:
    """A cursor of :func:`_database` of its own, closed after use."""
    with _lock:
        cursor = _database().cursor()
    try:
        yield cursor
    finally:
        cursor.close()


def aligned(table: Sequence[tuple[str, ...]]) -> list[str]:
    """The rows of ``table`` (header first) with every column padded to its widest cell."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]


def number(value: float) -> str:
    """An integral value without decimals (``1``), any other with up to two (``4.5``)."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}".rstrip("0")


def decimals(value: float | None, places: int = 3) -> str:
    """``value`` with ``places`` decimals; ``-`` for a missing value."""
    return "-" if value is None else f"{value:.{places}f}"


def mart_rows(
    path: Path,
    *,
    columns: tuple[str, ...],
    where: str,
    order_by: str,
    params: dict[str, Any] | None = None,
) -> list[Any]:
    """``columns`` of the Parquet mart at ``path``, filtered and ordered, as tuples; ``where``
    may name ``params`` as ``$name``."""
    sql = f"select {', '.join(columns)} from read_parquet($path) where {where} order by {order_by}"
    with _cursor() as con:
        return con.execute(sql, {**(params or {}), "path": duckdb_path(path)}).fetchall()


def built_mart_rows(
    run_dir: Path,
    tables: Mapping[str, int],
    mart: str,
    *,
    columns: tuple[str, ...],
    where: str,
    order_by: str,
) -> list[Any]:
    """:func:`mart_rows` of the mart file ``mart`` of ``run_dir``, or none when the build left
    it empty or did not write it (``tables``: the rows of each mart the build wrote)."""
    if not tables.get(mart):
        return []
    return mart_rows(run_dir / mart, columns=columns, where=where, order_by=order_by)


def mart_columns(path: Path) -> list[str]:
    """The column names of the Parquet mart at ``path``, in its order."""
    with _cursor() as con:
        cursor = con.execute(
            "select * from read_parquet($path) limit 0", {"path": duckdb_path(path)}
        )
        return [column[0] for column in cursor.description]


def count_mart_rows(path: Path) -> int:
    """Rows of a mart, not counting the all-NULL row dbt-duckdb writes for an empty model."""
    return count_marts_rows([path])[Path(path).name]


def count_marts_rows(paths: Sequence[Path]) -> dict[str, int]:
    """File name -> rows of each mart (as :func:`count_mart_rows`), in one DuckDB connection:
    opening one costs more than counting a small mart."""
    counts: dict[str, int] = {}
    with _cursor() as con:
        for path in paths:
            counted = con.execute(
                "select"
                " (select count(*) from read_parquet($path)),"
                " (select count(*) from read_parquet($path) where columns(*) is null)",
                {"path": duckdb_path(path)},
            ).fetchone()
            assert counted is not None  # a select of two scalars returns one row
            total, all_null = counted
            counts[Path(path).name] = int(total) - int(all_null)
    return counts
