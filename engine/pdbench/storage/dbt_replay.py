"""Replaying a plan (:mod:`pdbench.storage.dbt_plan`) on DuckDB, without dbt.

The statements of a plan come in units, one per cursor dbt used: a node's (a model's, a data
test's) or dbt's own (listing and creating the schema, the on-run-start hooks). A node's unit
starts once the units of the nodes it reads have ended, and every unit of dbt's own that was
sent before it; a unit of dbt's own waits for every unit sent before it. Units apart run side
by side, on as many threads as the machine has cores (at most :data:`REPLAY_THREADS`), each on
a cursor of its own of one in-memory database, as dbt's threads do.

Each answer dbt read while it built (its rows in the plan) is read again and compared: the
first that differs, or the first statement that fails, stops the replay (no unit starts
after it) and :func:`replay` returns None, so that dbt builds the run and names what failed.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pdbench.storage.dbt_plan import RUN_DIR_MARK, SPILL_MARK, Plan, read_plan, rows_text
from pdbench.storage.duckdb_paths import duckdb_path

if TYPE_CHECKING:
    import duckdb

    from pdbench.storage.dbt import DbtRequest, DbtResults

__all__ = ["REPLAY_THREADS", "Unit", "replay", "units"]

REPLAY_THREADS = 4
"""The most units replayed side by side (fewer on a machine with fewer cores)."""
_COMMENT = re.compile(r"/\* (\{.*?\}) \*/")
"""dbt's comment at the head of each statement it sends (its ``node_id``, when a node's)."""


@dataclass(frozen=True)
class Unit:
    """The statements dbt sent on one cursor, in order, and the units to wait for."""

    statements: tuple[tuple[str, str | None], ...]
    after: frozenset[int]


def units(plan: Plan) -> list[Unit]:
    """The plan's statements in units, in the order their first statements were sent."""
    order: list[int] = []
    grouped: dict[int, list[tuple[str, str | None]]] = {}
    node_of: dict[int, str | None] = {}
    for cursor, statement, rows in plan.statements:
        if cursor not in grouped:
            order.append(cursor)
            grouped[cursor], node_of[cursor] = [], None
        grouped[cursor].append((statement, rows))
        if node_of[cursor] is None:
            node_of[cursor] = _node(statement)
    nodes = [node_of[cursor] for cursor in order]
    found: list[Unit] = []
    for index, node in enumerate(nodes):
        before = range(index)
        if node is None:  # dbt's own: after everything sent before it
            after = frozenset(before)
        else:
            reads = set(plan.upstream.get(node, ())) | {node}
            after = frozenset(i for i in before if nodes[i] is None or nodes[i] in reads)
        found.append(Unit(statements=tuple(grouped[order[index]]), after=after))
    return found


def _node(statement: str) -> str | None:
    match = _COMMENT.match(statement)
    if match is None:
        return None
    try:
        node = json.loads(match.group(1)).get("node_id")
    except ValueError:
        return None
    return str(node) if node else None


def replay(request: DbtRequest, path: Path) -> DbtResults | None:
    """Send DuckDB the statements of the plan at ``path`` for ``request``'s run directory;
    its results, or None when there is no plan to read, a statement fails or an answer dbt
    read differs from the recorded one (dbt is then to build the run)."""
    import duckdb

    plan = read_plan(path)
    if plan is None:
        return None
    run_dir = str(Path(request.run_dir).resolve())
    with tempfile.TemporaryDirectory(prefix="pdbench-duckdb-") as spill:
        # the statements name the run directory between quotes, as a plain path
        reads_by = duckdb_path(Path(run_dir))
        config: dict[str, str | bool | int | float | list[str]] = dict(plan.config)
        database = duckdb.connect(":memory:", config=config)
        try:
            fill = {RUN_DIR_MARK: reads_by, SPILL_MARK: spill}
            done = _Replay(database, fill).run(units(plan))
        finally:
            database.close()
    return _results(plan.answer, Path(run_dir)) if done else None


class _Replay:
    """The units of one plan on one database, side by side where they may be."""

    def __init__(self, database: duckdb.DuckDBPyConnection, fill: dict[str, str]) -> None:
        self.database, self.fill = database, fill
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._busy: set[duckdb.DuckDBPyConnection] = set()
        """The cursors of the units running, to interrupt when pdbench is."""

    def _text(self, text: str) -> str:
        for mark, value in self.fill.items():
            text = text.replace(mark, value)
        return text

    def _unit(self, unit: Unit) -> None:
        with self._lock:
            if self.stopped.is_set():
                return
            cursor = self.database.cursor()
            self._busy.add(cursor)
        try:
            for statement, rows in unit.statements:
                text = self._text(statement)
                cursor.execute(text)
                if rows is not None and rows_text(text, cursor.fetchall()) != self._text(rows):
                    self.stopped.set()  # dbt would have sent other statements from here
                    return
        except Exception:  # a failing statement: dbt is to build the run and name it
            self.stopped.set()
        finally:
            with self._lock:
                self._busy.discard(cursor)
            cursor.close()

    def _interrupt(self) -> None:
        """Stop the statements running (pdbench is interrupted)."""
        with self._lock:
            self.stopped.set()
            for cursor in self._busy:
                cursor.interrupt()

    def run(self, plan_units: list[Unit]) -> bool:
        """Replay every unit; whether all ran and every answer was the recorded one."""
        waiting = {index: set(unit.after) for index, unit in enumerate(plan_units)}
        threads = max(1, min(REPLAY_THREADS, os.cpu_count() or 1))
        running: dict[Future[None], int] = {}
        with ThreadPoolExecutor(threads, thread_name_prefix="pdbench-replay") as pool:
            try:
                self._schedule(plan_units, waiting, running, pool)
            except BaseException:
                self._interrupt()
                raise
        return not self.stopped.is_set()

    def _schedule(
        self,
        plan_units: list[Unit],
        waiting: dict[int, set[int]],
        running: dict[Future[None], int],
        pool: ThreadPoolExecutor,
    ) -> None:
        """Start each unit once those it waits for have ended, until all have or one
        stopped the replay."""
        while (waiting or running) and not self.stopped.is_set():
            for index in [i for i, left in waiting.items() if not left]:
                del waiting[index]
                running[pool.submit(self._unit, plan_units[index])] = index
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                future.result()
                ended = running.pop(future)
                for left in waiting.values():
                    left.discard(ended)


def _results(answer: dict[str, Any], run_dir: Path) -> DbtResults:
    from pdbench.storage.dbt import DbtResults

    return DbtResults(
        locations=[str(run_dir / name) for name in answer["locations"]],
        n_checks_passed=int(answer["n_checks_passed"]),
        n_unit_tests_passed=int(answer["n_unit_tests_passed"]),
        models=tuple(answer["models"]),
        location_tags={
            str(run_dir / name): tuple(tags) for name, tags in answer["location_tags"].items()
        },
        replayed=True,
    )
