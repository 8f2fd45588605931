"""A mart file of a run directory, as a game names it: the file dbt writes, and how a reader
takes its rows. Each game lists its own (in its package's ``marts`` module) and
hands them to the core through :class:`pdbench.game.Game`; this module knows no game.

A mart's file is its dbt model's name without the game prefix (``pd_`` or ``arena_``), with
``.parquet`` (``mart_location`` in ``dbt_project/macros/run_dir.sql``): the model
``pd_aggregates`` writes ``aggregates.parquet``, ``arena_calls_summary`` writes
``calls_summary.parquet``. A PD run and an arena run are separate directories, so the same
file name means the same kind of table in either game.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self

__all__ = ["MartFile"]


class MartFile(StrEnum):
    """A game's mart file (its value, e.g. ``aggregates.parquet``), with ``key``, the column
    that is NULL only on the all-NULL row an empty external model holds, and ``order``, the
    order of its rows as people read them (both empty for a mart no reader takes whole)."""

    key: str
    order: str

    def __new__(cls, file: str, key: str = "", order: str = "") -> Self:
        member = str.__new__(cls, file)
        member._value_ = file
        member.key = key
        member.order = order
        return member
