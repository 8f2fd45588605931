"""The process that runs dbt for pdbench: ``python -m pdbench.storage.dbt_worker``.

Started by :class:`pdbench.storage.dbt.DbtProcess`, it imports dbt straight away and, unless
a request is already waiting, parses the project; then it runs one request per line of its
standard input (JSON: command, run directory, selection, threads, unit tests) and answers each
with one JSON line. Importing dbt and parsing take seconds, so ``pdbench run`` starts this
process before it plays: both happen on another core while the games are played.
The persistent worker (``pdbench worker start``, :mod:`pdbench.storage.dbt_daemon`) answers
its requests with the same :class:`DbtSession`.

dbt's own output (failing tests and the like) goes to standard error; the answers have the
original standard output to themselves. dbt reads the run directory from
``PDBENCH_RUN_DIR`` (``dbt_project/macros/run_dir.sql``) and spills to
``PDBENCH_DUCKDB_TEMP_DIR`` (``dbt_project/macros/duckdb_settings.sql``); both are set per
request, and so is ``PDBENCH_DUCKDB_THREADS``: one DuckDB thread for a run whose raw files
are small (:data:`ONE_THREAD_BYTES`) when the request allows it, DuckDB's default otherwise.
The target, log and spill folders are this process's own, removed when it ends.

The worker dies with pdbench, however pdbench ends (``kill -9`` included): it would otherwise
keep writing marts into a run directory whose lock is free. On Linux the kernel sends it
SIGTERM when the thread that started it ends (``prctl(PR_SET_PDEATHSIG)``, asked for only
when the main thread started it, see :class:`pdbench.storage.dbt.DbtProcess`); everywhere, a
watchdog thread ends it as soon as its parent process is gone (``PDBENCH_DBT_PARENT``).

The parse dbt saves (``partial_parse.msgpack``) is kept in the user's cache folder, named for
the content of the project it was made from (:func:`pdbench.storage.dbt.saved_parse_path`),
and copied into each new process's target folder; a changed project finds none and is parsed
whole, and its parse replaces the older ones of the same folder.

With ``PDBENCH_DBT_RUN_RESULTS`` set to a folder (``benchmarks/profile_aggregate.py`` sets it),
each invocation also writes dbt's ``run_results.json`` there, as ``run_results-<n>.json``: the
time of every model and test; and ``stages-<n>.json``: the wall-clock times (seconds since the
epoch) at which this process started, had imported dbt, had parsed the project ahead of any
request (absent when a request was already waiting), received the request and answered it.
dbt's own JSON files are off otherwise (``--no-write-json``).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from pdbench.storage.dbt import (
    DBT_PROJECT_DIR,
    RUN_RESULTS_ENV,
    prune_saved_parses,
    saved_parse_path,
)
from pdbench.storage.dbt_plan import (
    duckdb_threads,
    is_private_folder,
    plans_folder,
    write_plan,
)
from pdbench.storage.dbt_recorder import Recording, recording
from pdbench.storage.duckdb_paths import duckdb_path

_PARTIAL_PARSE = "partial_parse.msgpack"
PARENT_ENV = "PDBENCH_DBT_PARENT"
"""The pid of the pdbench process that started the worker."""
DEATH_SIGNAL_ENV = "PDBENCH_DBT_DEATH_SIGNAL"
"""Set (``1``) when the worker may ask the kernel for SIGTERM when its parent ends."""
_PR_SET_PDEATHSIG = 1
_WATCH_INTERVAL_S = 0.2
_FAILED_STATUSES = {"error", "fail", "runtime error"}
_PARQUET_MATERIALIZATIONS = ("external", "parquet_copy")
"""Materializations that write a Parquet file at the model's ``location``
(``parquet_copy``: ``dbt_project/macros/parquet_copy.sql``)."""
GATHERED_TAG = "tag:gathered"
"""The data tests a build runs gathered, one node per game and content tag
(``dbt_project.yml``), when asked for (:attr:`pdbench.storage.dbt.DbtRequest.gathered_checks`)."""
_stages: dict[str, float] = {}
"""When this process reached each stage (seconds since the epoch; see the module)."""


def main() -> None:
    _stages["worker_started"] = time.time()
    work_dirs: list[Path] = []
    # pdbench stops a worker it no longer needs (it failed or was interrupted) with SIGTERM:
    # end at once, quietly, wherever dbt is
    signal.signal(signal.SIGTERM, lambda signum, frame: _end(work_dirs, 143))
    _die_with_parent(work_dirs)
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    # whatever dbt prints goes to standard error, never into an answer
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    work_dirs.append(Path(tempfile.mkdtemp(prefix="pdbench-dbt-")))
    try:
        _serve(work_dirs[0], sys.stdin, answers)
        answers.flush()
    except BaseException:
        # pdbench reports that the worker ended; the traceback on stderr says why
        traceback.print_exc()
        _end(work_dirs, 1)
    _end(work_dirs, 0)


def _die_with_parent(work_dirs: list[Path]) -> None:
    """End this process when pdbench ends (see the module): the kernel's death signal where
    it is offered, and a thread that watches the parent's pid everywhere."""
    parent = int(os.environ.get(PARENT_ENV) or os.getppid())
    if os.environ.get(DEATH_SIGNAL_ENV) == "1" and sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    def watch() -> None:
        # the parent may be gone before the death signal was asked for: checked here too
        while os.getppid() == parent:
            threading.Event().wait(_WATCH_INTERVAL_S)
        _end(work_dirs, 143)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _end(work_dirs: list[Path], code: int) -> None:
    """Remove this process's folders and end it. The exit handlers run (multiprocessing
    releases dbt's semaphores there); the interpreter's slow teardown of dbt's modules
    (0.7 s) is skipped: every answer and every mart is written by then."""
    with contextlib.suppress(ValueError):  # not the main thread: the parent watchdog
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for work_dir in work_dirs:
        shutil.rmtree(work_dir, ignore_errors=True)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)


def _serve(work_dir: Path, requests: TextIO, answers: TextIO) -> None:
    session = DbtSession(work_dir, parse_now=lambda: not _is_waiting(requests))
    for line in requests:
        if line.strip():
            answers.write(json.dumps(session.answer(line)) + "\n")
            answers.flush()


class DbtSession:
    """dbt imported, and the project's parse kept for every request (the standard input's
    here, a socket's in :mod:`pdbench.storage.dbt_daemon`)."""

    def __init__(self, work_dir: Path, *, parse_now: Callable[[], bool]) -> None:
        from dbt.cli.main import dbtRunner
        from dbt.contracts.graph.manifest import Manifest

        _stages["dbt_imported"] = time.time()
        self._runner, self.work_dir = dbtRunner, work_dir
        self._target_dir = work_dir / "target"
        self._stamp = _restore_saved_parse(self._target_dir)
        self._manifest = None
        if parse_now():
            # nothing asked yet (pdbench is playing): parse now, and keep the result
            parsed = dbtRunner().invoke(_arguments("parse", work_dir))
            self._stamp = _save_parse(self._target_dir, self._stamp)
            # a project dbt cannot parse is reported with the first request
            result = parsed.result
            self._manifest = result if parsed.success and isinstance(result, Manifest) else None
            _stages["parsed_ahead"] = time.time()

    def answer(self, line: str) -> dict[str, Any]:
        """The answer to one request (a JSON line)."""
        _stages["request_received"] = time.time()
        try:
            answer = _run(self._runner(manifest=self._manifest), self.work_dir, json.loads(line))
        except Exception as err:  # answered, so pdbench can say what went wrong in one line
            answer = {"error": f"{type(err).__name__}: {err}"}
        self._stamp = _save_parse(self._target_dir, self._stamp)
        _stages["answered"] = time.time()
        _keep_stages()
        return answer


def _is_waiting(requests: TextIO) -> bool:
    """Whether a request is already there to be read."""
    try:
        ready, _, _ = select.select([requests], [], [], 0)
    except (OSError, ValueError):
        return False
    return bool(ready)


def _arguments(command: str, work_dir: Path) -> list[str]:
    return [
        command,
        "--project-dir", str(DBT_PROJECT_DIR),
        "--profiles-dir", str(DBT_PROJECT_DIR),
        "--target-path", str(work_dir / "target"),
        "--log-path", str(work_dir / "logs"),
        "--no-version-check",
        "--no-send-anonymous-usage-stats",
        "--quiet",
        "--log-level-file", "none",
        "--no-write-json",
    ]  # fmt: skip


def _run(runner: Any, work_dir: Path, request: dict[str, Any]) -> dict[str, Any]:
    command, run_dir, select = request["command"], Path(request["run_dir"]), request["select"]
    args = [*_arguments(command, work_dir), "--select", select]
    exclude = (request.get("exclude") or "").split()
    if command == "build" and not request.get("unit_tests"):
        args += ["--exclude-resource-type", "unit_test"]
    if command == "build" and request.get("gathered_checks"):
        exclude.append(GATHERED_TAG)  # they run in dbt_project/tests/assert_*_checks_hold.sql
    if exclude:
        args += ["--exclude", *exclude]
    if request.get("threads") is not None:
        args += ["--threads", str(request["threads"])]
    spill_dir = work_dir / "duckdb"
    os.environ["PDBENCH_DUCKDB_TEMP_DIR"] = str(spill_dir)
    threads = duckdb_threads(run_dir) if request.get("one_duckdb_thread_when_small") else None
    if threads is None:
        os.environ.pop("PDBENCH_DUCKDB_THREADS", None)
    else:
        os.environ["PDBENCH_DUCKDB_THREADS"] = str(threads)
    _stages["duckdb_threads"] = float(threads or 0)
    with recording(work_dir, run_dir, spill_dir) as record:
        # a plain path, never the folder's own name (pdbench.storage.duckdb_paths)
        reads_by = record.run_dir if request.get("record_plan") else duckdb_path(run_dir)
        os.environ["PDBENCH_RUN_DIR"] = reads_by
        outcome = runner.invoke(args)
    _keep_run_results(outcome.result)
    answer = _answer(outcome, command, run_dir, select)
    if "error" in answer:  # named by the path dbt read the run by
        return {"error": answer["error"].replace(reads_by, str(run_dir))}
    if request.get("record_plan"):
        _keep_plan(record, Path(request["record_plan"]), answer, outcome.result, run_dir)
    return answer


def _keep_plan(
    record: Recording, where: Path, answer: dict[str, Any], result: Any, run_dir: Path
) -> None:
    """Keep the plan of the build just answered at ``where``: in the plans folder only,
    whatever path a request names."""
    if where.parent != plans_folder():
        return
    upstream = {
        node_result.node.unique_id: list(node_result.node.depends_on.nodes)
        for node_result in getattr(result, "results", None) or []
    }
    plan = record.plan(answer, run_dir, upstream)
    if plan is not None:
        with contextlib.suppress(OSError):
            write_plan(where, plan)


def _answer(outcome: Any, command: str, run_dir: Path, select: str) -> dict[str, Any]:
    """The answer to a request from dbt's outcome: an error, or what the build wrote."""
    if outcome.exception is not None:
        return {"error": f"dbt {command} could not run on {run_dir}: {one_line(outcome.exception)}"}
    node_results = getattr(outcome.result, "results", None) or []
    failures = [
        f"{result.node.resource_type} {result.node.name}: {_first_line(result.message)}"
        for result in node_results
        if str(result.status).lower() in _FAILED_STATUSES
    ]
    if failures or not outcome.success:
        detail = "; ".join(failures) or "see the dbt output above"
        return {"error": f"dbt {command} failed on {run_dir} ({select}): {detail}"}
    passed = [
        result.node.resource_type
        for result in node_results
        if result.node.resource_type in ("test", "unit_test")
        and str(result.status).lower() == "pass"
    ]
    # a mart's location is a template until dbt renders it (see macros/run_dir.sql)
    marts = [
        (str(run_dir / Path(str(result.node.config.get("location"))).name), result.node.tags)
        for result in node_results
        if result.node.resource_type == "model"
        and result.node.config.get("materialized") in _PARQUET_MATERIALIZATIONS
    ]
    return {
        "locations": [location for location, _ in marts],
        "location_tags": {location: sorted(tags) for location, tags in marts},
        "models": [
            result.node.name for result in node_results if result.node.resource_type == "model"
        ],
        "n_checks_passed": len(passed),
        "n_unit_tests_passed": passed.count("unit_test"),
    }


def _keep_run_results(result: Any) -> None:
    """Write dbt's ``run_results.json`` of this invocation into ``$PDBENCH_DBT_RUN_RESULTS``,
    numbered in the order of the invocations, when that is set."""
    folder = os.environ.get(RUN_RESULTS_ENV)
    if not folder or not hasattr(result, "write"):
        return
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    result.write(str(target / f"run_results-{len(list(target.glob('run_results-*.json')))}.json"))


def _keep_stages() -> None:
    """Write when this process reached each stage, for the invocation just answered, into
    ``$PDBENCH_DBT_RUN_RESULTS`` as ``stages-<n>.json``, when that is set."""
    folder = os.environ.get(RUN_RESULTS_ENV)
    if not folder:
        return
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    path = target / f"stages-{len(list(target.glob('stages-*.json')))}.json"
    path.write_text(json.dumps(_stages), encoding="utf-8")


def one_line(error: object) -> str:
    """dbt's error (``Compilation Error``, then what and where on lines of their own) as one
    line: its words, every run of spaces and line ends made one space."""
    return " ".join(str(error).split())


def _first_line(message: object) -> str:
    """The line that says what went wrong: dbt's header ("Runtime Error in model x (path)")
    is skipped for the database's own first line, which names the file and line."""
    lines = [line.strip() for line in str(message or "").strip().splitlines() if line.strip()]
    details = [line for line in lines if not line.endswith(")") or "Error in " not in line]
    return (details or lines or ["failed"])[0]


def _restore_saved_parse(target_dir: Path) -> tuple[int, int] | None:
    """Give dbt the saved parse; return what dbt will find, to tell whether it writes anew.
    A parse is code dbt runs: one in a folder others may write in is never read."""
    current = target_dir / _PARTIAL_PARSE
    saved = saved_parse_path()
    if saved.is_file() and is_private_folder(saved.parent):
        target_dir.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            shutil.copyfile(saved, current)
    return _stamp(current)


def _save_parse(target_dir: Path, seen: tuple[int, int] | None) -> tuple[int, int] | None:
    """Keep the parse dbt wrote, if it wrote one; atomically, as other processes may read it.
    Return what is there now."""
    current = target_dir / _PARTIAL_PARSE
    stamp = _stamp(current)
    if stamp in (None, seen):
        return stamp
    saved = saved_parse_path()
    with contextlib.suppress(OSError):
        if not is_private_folder(saved.parent):
            return stamp
        with tempfile.NamedTemporaryFile(dir=saved.parent, delete=False) as handle:
            partial = Path(handle.name)
        try:
            shutil.copyfile(current, partial)
            os.replace(partial, saved)
        finally:
            partial.unlink(missing_ok=True)
        prune_saved_parses(saved)
    return stamp


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


if __name__ == "__main__":
    main()
