"""A build of a run from the compiled project (:mod:`pdbench.dbt_build.compilation`), on DuckDB.

What ``dbt build`` sends DuckDB for each node, sent from pdbench's own process: dbt's cost is
its Python per node (about 115 ms each, with seconds to import it and load the project), the
SQL of a small run costs less than that. The statements are those of the project's
materializations, one fresh in-memory database per build:

- first the on-run-start hooks of ``dbt_project.yml`` as compiled (the statistics' macros,
  ``macros/statistics.sql``, and the hash of the seeded draws, ``macros/hashing.sql``; those
  that need a run compile to nothing without one), then the build's own spill folder and
  DuckDB threads;
- the run's macros (``dbt_project/macros/run_dir.sql``): ``pdbench_run_dir()`` and, per
  record file, ``pdbench_files_<file>()``, with paths DuckDB reads as plain files
  (:func:`pdbench.storage.duckdb_paths.duckdb_path`);
- a seed: a table read from its CSV with the column types its YAML declares
  (``config.column_types``);
- ``view``: ``create view``; ``table``: ``create table as``; ``parquet_copy`` (every mart):
  ``copy (<query>) to <run directory>/<location> (format parquet, row_group_size ...)`` and a
  view over the file (``dbt_project/macros/parquet_copy.sql``);
- a data test: dbt's test query (``select <fail_calc> as failures, <fail_calc> <warn_if> as
  should_warn, <fail_calc> <error_if> as should_error from (<test> limit ...)``), judged as
  dbt's runner judges it: severity ``error`` fails on ``should_error``, a warning never fails.

Nodes run in dependency order; a ``build`` runs each data test once every model it reads is
built, and a model only once the tests of the models it reads have passed, as dbt's does. A
failure skips what reads the failed node; the build goes on with the rest and fails naming
every failed model and test. Interrupted (Ctrl-C), the statement running is stopped.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from pdbench.dbt_build.compilation import CompiledProject, Node
from pdbench.dbt_build.request import DbtRequest, DbtResults
from pdbench.dbt_build.schedule import order, plan, selected, upstream
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.errors import AggregationError
from pdbench.storage.duckdb_paths import duckdb_path, sql_string
from pdbench.storage.shards import record_files

if TYPE_CHECKING:
    import duckdb

__all__ = ["ONE_THREAD_BYTES", "duckdb_threads", "execute", "record_files_macro"]

ONE_THREAD_BYTES = 16 * 2**20
"""Raw files (the run's ``*.jsonl``) below this size are built with one DuckDB thread: on
the demo (0.5 MB) that took 0.5 to 1.4 CPU-seconds off a build of about 7, and more wall
time on a busy machine, where a second thread only waits for the first; a 210,000-round run
(about 130 MB) keeps one thread per core. Asked for by the PD only
(:attr:`pdbench.game.Marts.one_duckdb_thread_when_small`): its marts are the same either way,
whereas two arena marts whose order leaves ties come out in another row order."""
BUILD_THREADS = 2
"""The most nodes built side by side (fewer on a machine with fewer cores). Two: on a quiet
2-core machine (load 1.5 to 2), against one at a time, the demo's aggregate took 1.56 s
instead of 1.91, a 210,000-round round robin's 2.81 s instead of 3.44, and a million rounds'
6.82 s instead of 7.53 (medians of 3 to 5, alternated): while one node waits on a sort or
writes a Parquet file, another uses the second core. Either way the nodes run on a thread of
their own, so that a Ctrl-C in pdbench's stops the statement running
(:meth:`_Build._interrupt`)."""
RUN_RESULTS_ENV = "PDBENCH_DBT_RUN_RESULTS"
"""A folder to write each build's node timings into (the benchmarks set it), as
``run_results-<n>.json`` with the fields of dbt's ``run_results.json`` they read:
``results[]`` of ``unique_id``, ``status`` and ``execution_time`` (seconds)."""
PROFILE = "profiles.yml"
"""The dbt project's profile (a link to ``dbt_profiles.yml``), whose DuckDB ``config_options``
(the memory limit) a build uses too."""
_MARTS = "parquet_copy"


def duckdb_threads(run_dir: Path) -> int | None:
    """The DuckDB threads to build ``run_dir`` with: 1 when its raw files (``*.jsonl``, its
    chunks' too) hold fewer than :data:`ONE_THREAD_BYTES`; None (DuckDB's default) otherwise."""
    size = 0
    for path in run_dir.rglob("*.jsonl"):
        with contextlib.suppress(OSError):
            size += path.stat().st_size
        if size >= ONE_THREAD_BYTES:
            return None
    return 1


def record_files_macro(name: str) -> str:
    """The DuckDB macro listing the files of record file ``name`` (``macros/run_dir.sql``)."""
    return "pdbench_files_" + "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def _config_options() -> dict[str, str]:
    """The profile's DuckDB settings (``outputs.run.config_options``)."""
    with contextlib.suppress(OSError, yaml.YAMLError, AttributeError, KeyError, TypeError):
        profile = yaml.safe_load((DBT_PROJECT_DIR / PROFILE).read_text(encoding="utf-8"))
        options = profile["pdbench"]["outputs"]["run"].get("config_options") or {}
        return {str(key): str(value) for key, value in options.items()}
    return {}


# -- the build ------------------------------------------------------------------------------


@dataclass
class _Outcome:
    built: list[Node] = field(default_factory=list)
    passed: int = 0
    failures: list[str] = field(default_factory=list)
    emptied: list[Node] = field(default_factory=list)
    """Marts written with no row (not built)."""


def execute(project: CompiledProject, request: DbtRequest) -> DbtResults:
    """Build ``request`` from the compiled ``project`` (see the module). Raises
    :class:`AggregationError` naming every failed model and test, by the run's own path."""
    import duckdb

    run_dir = Path(request.run_dir).resolve()
    chosen = selected(project, request.select, request.exclude)
    if not chosen and not request.empty_marts:
        raise AggregationError(f"dbt {request.command}: nothing selected by {request.select!r}")
    waits = plan(project, chosen, with_tests=request.command == "build")
    spill = Path(tempfile.mkdtemp(prefix="pdbench-duckdb-"))
    try:
        config: dict[str, Any] = {**_config_options(), "temp_directory": str(spill)}
        threads = duckdb_threads(run_dir) if request.one_duckdb_thread_when_small else None
        if threads is not None:
            config["threads"] = threads
        database = duckdb.connect(":memory:", config=config)
        try:
            # the marts to write empty are among the selection's, what is excluded included
            empty = (selected(project, request.select, None), request.empty_marts)
            build = _Build(project, database, threads, on_node=request.on_node)
            try:
                outcome = build.run(waits, run_dir, spill, empty=empty, only_empty=not chosen)
            finally:
                _keep_timings(build.timings)
        finally:
            database.close()
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    if outcome.failures:
        detail = "; ".join(outcome.failures).replace(duckdb_path(run_dir), str(run_dir))
        raise AggregationError(
            f"dbt {request.command} failed on {run_dir} ({request.select}): {detail}"
        )
    marts = [node for node in outcome.built if node.materialized == _MARTS] + outcome.emptied
    locations = {str(run_dir / str(node.config["location"])): node.tags for node in marts}
    return DbtResults(
        locations=list(locations),
        n_checks_passed=outcome.passed,
        n_unit_tests_passed=0,
        models=tuple(n.name for n in outcome.built if n.resource_type == "model"),
        location_tags=locations,
    )


class _Build:
    """One build's statements on one database: nodes that do not wait for one another run
    side by side, each on a cursor of its own (a connection to the same database), on at most
    :data:`BUILD_THREADS` threads."""

    def __init__(
        self,
        project: CompiledProject,
        database: duckdb.DuckDBPyConnection,
        threads: int | None,
        *,
        on_node: Callable[[int, int, str], None] | None = None,
    ) -> None:
        self.project, self.database, self.threads = project, database, threads
        self.on_node = on_node
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._busy: set[duckdb.DuckDBPyConnection] = set()
        """The cursors of the nodes running, to interrupt when pdbench is."""
        self.timings: list[dict[str, Any]] = []
        """Each node run: its unique_id, status and seconds (:data:`RUN_RESULTS_ENV`)."""

    def run(
        self,
        waits: dict[str, set[str]],
        run_dir: Path,
        spill: Path,
        *,
        empty: tuple[set[str], tuple[str, ...]],
        only_empty: bool,
    ) -> _Outcome:
        """Run the nodes of ``waits`` (each -> what it waits for), then write the marts
        ``empty`` with no row. Interrupted (Ctrl-C), it stops the statements running."""
        outcome = _Outcome()
        try:
            self._set_up(run_dir, spill, only_empty=only_empty)
            self._run_nodes(waits, outcome)
            if not outcome.failures and empty[1]:
                outcome.emptied = self._write_empty(*empty, built=outcome.built)
        except BaseException:
            self._interrupt()
            raise
        return outcome

    def _interrupt(self) -> None:
        with self._lock:
            self._stop.set()
            for cursor in self._busy:
                cursor.interrupt()
        self.database.interrupt()

    def _set_up(self, run_dir: Path, spill: Path, *, only_empty: bool) -> None:
        for hook in self.project.nodes:
            if hook.resource_type == "operation":
                self.database.execute(hook.compiled_code)
        # after the hooks, which set dbt's defaults (the spill folder, DuckDB's threads)
        self.database.execute(f"set temp_directory = {sql_string(str(spill))}")
        if self.threads is None:
            self.database.execute("reset threads")
        else:
            self.database.execute(f"set threads = {int(self.threads)}")
        self._define_run_macros(run_dir, spill, only_empty=only_empty)
        for schema in sorted({node.schema for node in self.project.nodes} - {"main"}):
            self.database.execute(f'create schema if not exists "{schema}"')

    def _run_nodes(self, waits: dict[str, set[str]], outcome: _Outcome) -> None:
        """Start each node once what it waits for is done, in the manifest's order among those
        ready; skip one that reads a failed node, as dbt does."""
        index = {unique_id: i for i, unique_id in enumerate(waits)}
        pending = {unique_id: set(reads) for unique_id, reads in waits.items()}
        done: set[str] = set()
        failed: set[str] = set()
        failures: list[tuple[int, str]] = []
        built: list[Node] = []
        running: dict[Future[str | None], str] = {}
        threads = max(1, min(BUILD_THREADS, os.cpu_count() or 1))
        with ThreadPoolExecutor(threads, thread_name_prefix="pdbench-build") as pool:
            try:
                while (pending or running) and not self._stop.is_set():
                    ready = [u for u, reads in pending.items() if reads <= done]
                    if not ready and not running:
                        raise AggregationError(
                            f"dbt nodes wait for one another: {sorted(pending)[:3]}"
                        )
                    for unique_id in ready:
                        del pending[unique_id]
                        node = self.project.by_id[unique_id]
                        if failed & (waits[unique_id] | set(node.depends_on)):
                            failed.add(unique_id)  # skipped, as dbt skips it
                            self._done(done, unique_id, len(waits))
                            continue
                        running[pool.submit(self._on_cursor, node)] = unique_id
                    if not running:
                        continue
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        unique_id = running.pop(future)
                        node = self.project.by_id[unique_id]
                        self._done(done, unique_id, len(waits))
                        try:
                            verdict = future.result()
                        except Exception as err:  # named in the build's error
                            failures.append(
                                (index[unique_id], f"{_kind(node)} {node.name}: {_first_line(err)}")
                            )
                            failed.add(unique_id)
                            continue
                        if node.resource_type != "test":
                            built.append(node)
                        elif verdict is None:
                            outcome.passed += 1
                        elif verdict:
                            failures.append(
                                (index[unique_id], f"test {_test_name(node)}: {verdict}")
                            )
                            failed.add(unique_id)
                            failed |= {dep for dep in node.depends_on if dep in self.project.by_id}
            except BaseException:
                self._interrupt()  # before the pool waits for the nodes running
                raise
        outcome.failures = [text for _, text in sorted(failures)]
        outcome.built = sorted(built, key=lambda node: index[node.unique_id])

    def _done(self, done: set[str], unique_id: str, total: int) -> None:
        done.add(unique_id)
        if self.on_node is not None:
            self.on_node(len(done), total, self.project.by_id[unique_id].name)

    def _on_cursor(self, node: Node) -> str | None:
        """Run ``node`` on a cursor of its own (see :meth:`_node`)."""
        with self._lock:
            if self._stop.is_set():
                raise AggregationError("the build was stopped")
            cursor = self.database.cursor()
            self._busy.add(cursor)
        started, status = time.perf_counter(), "error"
        try:
            verdict = self._node(node, cursor)
            status = "success" if node.resource_type != "test" else _status(verdict)
            return verdict
        finally:
            seconds = time.perf_counter() - started
            with self._lock:
                self._busy.discard(cursor)
                self.timings.append(
                    {"unique_id": node.unique_id, "status": status, "execution_time": seconds}
                )
            cursor.close()

    def _define_run_macros(self, run_dir: Path, spill: Path, *, only_empty: bool) -> None:
        placeholder = spill / "absent.jsonl"
        placeholder.touch()
        run = duckdb_path(run_dir)
        statements = [f"create or replace macro pdbench_run_dir() as {sql_string(run)}"]
        for record in self.project.record_files:
            files = [duckdb_path(path) for path in record_files(run_dir, record.name)]
            if not files:
                # an absent required file stays named, for DuckDB's error to name it
                absent = record.required and not only_empty
                files = [f"{run}/{record.name}" if absent else duckdb_path(placeholder)]
            listed = ", ".join(sql_string(path) for path in files)
            statements.append(
                f"create or replace macro {record_files_macro(record.name)}() "
                f"as [{listed}]::varchar[]"
            )
        for statement in statements:
            self.database.execute(statement)

    def _node(self, node: Node, con: duckdb.DuckDBPyConnection) -> str | None:
        """Run one node; for a data test, its failure (None: it passed, "": it warned)."""
        code = node.compiled_code
        if node.resource_type == "seed":
            types = node.config.get("column_types") or {}
            columns = ", ".join(f"{sql_string(k)}: {sql_string(v)}" for k, v in types.items())
            con.execute(
                f"create or replace table {node.relation_name} as select * from read_csv("
                f"{sql_string(duckdb_path(Path(str(node.seed_file))))}, header = true"
                + (f", types = {{{columns}}}" if columns else "")
                + ")"
            )
        elif node.resource_type == "test":
            return self._test(node, con)
        elif node.materialized == "view":
            con.execute(f"create view {node.relation_name} as (\n{code}\n)")
        elif node.materialized == "table":
            con.execute(f"create table {node.relation_name} as (\n{code}\n)")
        elif node.materialized == _MARTS:
            self._copy(node, code, con)
        else:
            raise AggregationError(
                f"materialized={node.materialized!r}: pdbench builds view, table and "
                "parquet_copy models only"
            )
        return None

    def _copy(self, node: Node, query: str, con: duckdb.DuckDBPyConnection) -> None:
        """The statements of the parquet_copy materialization (macros/parquet_copy.sql)."""
        location = f"pdbench_run_dir() || {sql_string('/' + str(node.config['location']))}"
        row_group_size = int(node.config.get("row_group_size") or 122880)
        con.execute(
            f"copy ({query}) to ({location}) (format parquet, row_group_size {row_group_size})"
        )
        con.execute(
            f"create or replace view {node.relation_name} as select * from read_parquet({location})"
        )

    def _test(self, node: Node, con: duckdb.DuckDBPyConnection) -> str | None:
        """dbt's test query (dbt-core's ``materializations/tests``), judged as dbt judges it
        (dbt's ``TestRunner.build_test_run_result``): its failure, None when it passed, ""
        when it warned (a warning is not a pass, and never fails the build)."""
        config = node.config
        fail_calc = config.get("fail_calc") or "count(*)"
        warn_if, error_if = config.get("warn_if") or "!= 0", config.get("error_if") or "!= 0"
        limit = config.get("limit")
        rows = con.execute(
            f"select {fail_calc} as failures, {fail_calc} {warn_if} as should_warn, "
            f"{fail_calc} {error_if} as should_error from (\n{node.compiled_code}\n"
            + (f"limit {int(limit)}\n" if limit is not None else "")
            + ") dbt_internal_test"
        ).fetchall()
        failures, should_warn, should_error = rows[0] if rows else (0, False, False)
        if str(config.get("severity", "error")).lower() == "error" and should_error:
            noun = "result" if failures == 1 else "results"
            return f"Got {failures} {noun}, configured to fail if {error_if}"
        return "" if should_warn else None

    def _write_empty(
        self, candidates: set[str], names: tuple[str, ...], *, built: list[Node]
    ) -> list[Node]:
        """The marts ``names`` of the ``candidates`` that this build did not write, with their
        columns and no row; what they read and was not built is made a view (nothing of it
        is computed)."""
        written = {str(node.config.get("location")) for node in built}
        marts = [
            node
            for node in self.project.nodes
            if node.unique_id in candidates
            and node.materialized == _MARTS
            and str(node.config.get("location")) in set(names) - written
        ]
        wanted = {node.unique_id for node in marts}
        needed = (upstream(self.project, wanted) | wanted) - {node.unique_id for node in built}
        for node in order(self.project, needed, with_tests=False):
            if node.unique_id in wanted:
                self._copy(node, f"select * from (\n{node.compiled_code}\n) limit 0", self.database)
            elif node.resource_type == "seed":
                self._node(node, self.database)
            else:
                self.database.execute(
                    f"create view {node.relation_name} as (\n{node.compiled_code}\n)"
                )
        return marts


def _status(verdict: str | None) -> str:
    """A data test's status as dbt's ``run_results.json`` names it."""
    return "pass" if verdict is None else "warn" if verdict == "" else "fail"


def _keep_timings(timings: list[dict[str, Any]]) -> None:
    """Write the build's node timings into ``$PDBENCH_DBT_RUN_RESULTS``, when it is set."""
    folder = os.environ.get(RUN_RESULTS_ENV)
    if not folder:
        return
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    path = target / f"run_results-{len(list(target.glob('run_results-*.json')))}.json"
    path.write_text(json.dumps({"results": timings}), encoding="utf-8")


def _kind(node: Node) -> str:
    return "test" if node.resource_type == "test" else node.resource_type


def _test_name(node: Node) -> str:
    """A data test as pdbench names it: dbt's name, and its model when it has one."""
    return f"{node.name} ({node.attached_model})" if node.attached_model else node.name


def _first_line(error: object) -> str:
    """The line of DuckDB's error that says what went wrong, with its kind."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return (lines or ["failed"])[0]
