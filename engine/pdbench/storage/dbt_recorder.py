"""Recording what dbt sends DuckDB during one build, for :mod:`pdbench.storage.dbt_plan`.

Runs in the dbt worker (:mod:`pdbench.storage.dbt_worker`). While a :class:`Recording` is
open, every statement that dbt-duckdb's cursors execute is kept with its cursor, and so are
the rows dbt fetches from its answer. dbt reads the run directory through a link named by a
random token (:meth:`Recording.run_dir`), so that the run directory stands out in the
statements and is replaced by a mark (so is the spill folder); a build whose statements hold
the run directory's real path, or pass parameters apart from the SQL, gives no plan.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pdbench.storage.dbt_plan import RUN_DIR_MARK, SPILL_MARK, Plan, rows_text

__all__ = ["Recording", "fresh_database", "recording"]


class Recording:
    """The statements of one build, as dbt sent them."""

    def __init__(self, work_dir: Path, run_dir: Path, spill_dir: Path) -> None:
        self.real_run_dir = str(run_dir.resolve())
        self.link = work_dir / f"run-{secrets.token_hex(8)}"
        self.spill_dir = str(spill_dir)
        self.statements: list[list[Any]] = []
        self.config: dict[str, str] | None = None
        self.replayable = True
        self._cursors: dict[int, int] = {}
        self._last: dict[int, int] = {}
        self._lock = threading.Lock()

    @property
    def run_dir(self) -> str:
        """The path dbt is to read the run directory by."""
        return str(self.link)

    def executed(self, cursor: object, sql: str, bindings: object) -> None:
        with self._lock:
            number = self._cursors.setdefault(id(cursor), len(self._cursors))
            self._last[id(cursor)] = len(self.statements)
            self.statements.append([number, sql, None])
            if bindings is not None:
                self.replayable = False

    def fetched(self, cursor: object, rows: list[Any]) -> None:
        with self._lock:
            index = self._last.get(id(cursor))
            if index is None or self.statements[index][2] is not None:
                self.replayable = False  # rows dbt read twice, or of no statement seen
                return
            self.statements[index][2] = rows_text(self.statements[index][1], rows)

    def connected(self, creds: Any) -> None:
        """dbt-duckdb opens the database with ``creds`` (its profile): a plain in-memory one
        is what a replay opens; anything more (extensions, attached databases, settings,
        plugins) is not replayed."""
        plain = creds.path == ":memory:" and not (
            creds.extensions or creds.attach or creds.settings or creds.plugins
            or creds.filesystems or creds.secrets or creds.retries
        )  # fmt: skip
        if plain:
            self.config = {str(k): str(v) for k, v in (creds.config_options or {}).items()}
        else:
            self.replayable = False

    def plan(
        self, answer: dict[str, Any], run_dir: Path, upstream: dict[str, list[str]]
    ) -> Plan | None:
        """The plan of this build (``upstream``: each node built -> the nodes it reads);
        None when it cannot be replayed."""
        if not self.replayable or self.config is None:
            return None

        def mark(text: str) -> str:
            return text.replace(self.run_dir, RUN_DIR_MARK).replace(self.spill_dir, SPILL_MARK)

        statements: list[tuple[int, str, str | None]] = [
            (number, mark(sql), None if rows is None else mark(rows))
            for number, sql, rows in self.statements
        ]
        if any(self.real_run_dir in sql for _, sql, _ in statements):
            return None  # a path dbt resolved: it would name this run in another's build
        root = str(run_dir.resolve())
        return Plan(
            upstream=upstream,
            config=self.config,
            statements=statements,
            answer=answer
            | {
                "locations": [os.path.relpath(p, root) for p in answer["locations"]],
                "location_tags": {
                    os.path.relpath(p, root): tags for p, tags in answer["location_tags"].items()
                },
            },
        )


def fresh_database() -> None:
    """Close the DuckDB database an earlier build of this process left open (dbt-duckdb
    keeps an in-memory one for the process): every build starts from an empty database, as
    a replayed one does."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager as manager

    with manager._LOCK:
        if manager._ENV is not None:
            manager._ENV.close()
            manager._ENV = None


@contextmanager
def recording(work_dir: Path, run_dir: Path, spill_dir: Path) -> Iterator[Recording]:
    """Record what dbt sends DuckDB until the block ends; dbt is to read the run directory
    by :attr:`Recording.run_dir` meanwhile."""
    from dbt.adapters.duckdb.environments import Environment
    from dbt.adapters.duckdb.environments.local import DuckDBCursorWrapper

    record = Recording(work_dir, run_dir, spill_dir)
    record.link.symlink_to(run_dir.resolve(), target_is_directory=True)
    execute = DuckDBCursorWrapper.execute
    initialize_db = Environment.__dict__["initialize_db"]  # the classmethod itself

    def recorded_execute(self: Any, sql: str, bindings: Any = None) -> Any:
        record.executed(self, sql, bindings)
        return execute(self, sql, bindings)

    def fetchall(self: Any) -> list[Any]:
        rows: list[Any] = self._cursor.fetchall()
        record.fetched(self, rows)
        return rows

    def fetchmany(self: Any, size: int = 1) -> list[Any]:
        rows: list[Any] = self._cursor.fetchmany(size)
        record.fetched(self, rows)
        return rows

    def fetchone(self: Any) -> Any:
        record.replayable = False  # not read by dbt-duckdb: a row short of a whole answer
        return self._cursor.fetchone()

    def recorded_initialize_db(cls: Any, creds: Any, plugins: Any = None) -> Any:
        record.connected(creds)
        return initialize_db.__func__(cls, creds, plugins)

    patches: list[tuple[type, str, object]] = [
        (DuckDBCursorWrapper, "execute", recorded_execute),
        (DuckDBCursorWrapper, "fetchall", fetchall),
        (DuckDBCursorWrapper, "fetchmany", fetchmany),
        (DuckDBCursorWrapper, "fetchone", fetchone),
        (Environment, "initialize_db", classmethod(recorded_initialize_db)),
    ]
    originals = [(owner, name, owner.__dict__.get(name)) for owner, name, _ in patches]
    try:
        for owner, name, function in patches:
            setattr(owner, name, function)
        fresh_database()
        yield record
    finally:
        for owner, name, original in originals:
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        fresh_database()
        record.link.unlink(missing_ok=True)
