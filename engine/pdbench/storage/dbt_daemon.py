"""The persistent dbt worker: ``python -m pdbench.storage.dbt_daemon``, started by
``pdbench worker start`` (:func:`start`), ended by ``pdbench worker stop`` (:func:`stop`).

It imports dbt and parses the project once, then serves one client at a time on a unix
socket (:mod:`pdbench.storage.worker_socket` for its files and the client's side): a client
greets it with the project's key, then sends requests and reads answers, one JSON line each,
exactly as a private worker's (:class:`pdbench.storage.dbt_worker.DbtSession` answers both).
Each request sets the run directory, DuckDB's spill folder and threads, as in a private
worker, and ``PDBENCH_DBT_RUN_RESULTS`` as the client has it.

It does not end with the command that started it, so what keeps a private worker from
writing into a run directory whose lock is free is done here by the connection: if the
client's connection closes while a request runs (the client failed, was interrupted or
killed), the worker ends at once (``os._exit``) instead of finishing the build. The next
command starts a private worker; ``pdbench worker start`` starts a persistent one again.
A connection closed between requests only ends that client's turn.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from pdbench.storage.dbt import DBT_PROJECT_DIR, GAME_MODELS_ENV, RUN_RESULTS_ENV, worker_files
from pdbench.storage.dbt_worker import DbtSession
from pdbench.storage.worker_socket import (
    WORKER_MODULE,
    WorkerFiles,
    is_alive,
    private_folder,
    process_identity,
    project_key,
    read_state,
)

__all__ = ["start", "stop"]

_WATCH_INTERVAL_S = 0.2
_POLL_S = 0.05
_REQUEST_ENV = (RUN_RESULTS_ENV,)
"""The client's environment variables a request carries (the others are set per request
from the request itself)."""
EXIT_CLIENT_GONE = 3
"""The worker's exit code when a client's connection closed during a request."""


def main() -> None:
    files = worker_files()
    key = project_key(DBT_PROJECT_DIR)
    work_dir = Path(tempfile.mkdtemp(prefix="pdbench-dbt-"))
    signal.signal(signal.SIGTERM, lambda signum, frame: _quit(files, work_dir, 143))
    session = DbtSession(work_dir, parse_now=lambda: True)
    if not private_folder(files.socket.parent):
        raise SystemExit(f"error: {files.socket.parent}: not this user's alone; no socket there")
    files.socket.unlink(missing_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(files.socket))
    server.listen(8)
    state = {
        "pid": os.getpid(),
        "process": process_identity(os.getpid()),
        "socket": str(files.socket),
        "key": key,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "requests_served": 0,
        "busy": False,
    }
    _write_state(files, state)
    watch = _Watch(lambda: _quit(files, work_dir, EXIT_CLIENT_GONE))
    while True:
        conn, _ = server.accept()
        with conn:
            _serve_client(conn, session, files, state, watch)


def _serve_client(
    conn: socket.socket, session: DbtSession, files: WorkerFiles, state: dict[str, Any], watch: Any
) -> None:
    requests = conn.makefile("r", encoding="utf-8")
    answers = conn.makefile("w", encoding="utf-8")
    try:
        hello = json.loads(requests.readline() or "{}")
        if hello.get("hello") != state["key"]:
            _send(answers, {"error": "the dbt project differs from the worker's"})
            return
        _send(answers, {"key": state["key"], "pid": os.getpid()})
        for line in requests:
            if not line.strip():
                continue
            _write_state(files, state | {"busy": True})
            watch.begin(conn)
            _set_env(line)
            answer = session.answer(line)
            watch.end()
            state["requests_served"] += 1
            _write_state(files, state)
            _send(answers, answer)
    except (OSError, ValueError):
        pass  # the client went away between requests: the next one is served
    finally:
        watch.end()
        _write_state(files, state)


def _send(answers: TextIO, answer: dict[str, Any]) -> None:
    answers.write(json.dumps(answer) + "\n")
    answers.flush()


def _set_env(line: str) -> None:
    with_env = json.loads(line).get("env") or {}
    for name in _REQUEST_ENV:
        value = with_env.get(name)
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = str(value)


class _Watch:
    """A thread that ends the worker when the connection of the request it runs closes."""

    def __init__(self, quit_now: Any) -> None:
        self._conn: socket.socket | None = None
        self._busy = threading.Event()
        self._quit_now = quit_now
        threading.Thread(target=self._watch, name="client-watchdog", daemon=True).start()

    def begin(self, conn: socket.socket) -> None:
        self._conn = conn
        self._busy.set()

    def end(self) -> None:
        self._busy.clear()

    def _watch(self) -> None:
        while True:
            self._busy.wait()
            conn = self._conn
            if conn is None:
                continue
            try:
                ready, _, _ = select.select([conn], [], [], _WATCH_INTERVAL_S)
            except (OSError, ValueError):
                ready = [conn]
            # a client never writes while its request runs: readable means closed
            if ready and self._busy.is_set():
                print("the client's connection closed during a request: ending", file=sys.stderr)
                self._quit_now()


def _quit(files: WorkerFiles, work_dir: Path, code: int) -> None:
    """End at once: no more writing into the run directory, whatever dbt was doing."""
    state = read_state(files)
    if state is None or state.get("pid") == os.getpid():
        files.socket.unlink(missing_ok=True)
        files.state.unlink(missing_ok=True)
    shutil.rmtree(work_dir, ignore_errors=True)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def _write_state(files: WorkerFiles, state: dict[str, Any]) -> None:
    partial = files.state.with_suffix(".json.partial")
    partial.write_text(json.dumps(state), encoding="utf-8")
    os.replace(partial, files.state)


def start(files: WorkerFiles, *, timeout: float) -> tuple[dict[str, Any], bool]:
    """Start the persistent worker unless one runs for the current project (one for an
    older project is stopped first); wait until it serves. Return its state and whether it
    was started now. Raises RuntimeError, with the end of its log, if it ended instead."""
    state = read_state(files)
    if state is not None and state.get("key") == project_key(DBT_PROJECT_DIR):
        return state, False
    stop(files, timeout=timeout)
    files.log.parent.mkdir(parents=True, exist_ok=True)
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in (GAME_MODELS_ENV, "PDBENCH_DBT_PARENT", "PDBENCH_DBT_DEATH_SIGNAL")
    }
    with files.log.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=files.log.parent,
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = read_state(files)
        if state is not None and state.get("pid") == process.pid:
            return state, True
        if process.poll() is not None:
            break
        time.sleep(_POLL_S)
    if process.poll() is None:
        process.kill()
    tail = files.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
    raise RuntimeError(f"the dbt worker did not start ({'; '.join(tail) or 'no output'})")


def stop(files: WorkerFiles, *, timeout: float) -> int | None:
    """Stop the persistent worker, if one runs (a request it is answering fails); return
    its pid. Its socket and state are removed either way."""
    state = read_state(files)  # None for a state left behind: its pid may be another process
    pid = None if state is None else int(state["pid"])
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while is_alive(pid) and time.monotonic() < deadline:
            time.sleep(_POLL_S)
        if is_alive(pid):
            os.kill(pid, signal.SIGKILL)
    files.socket.unlink(missing_ok=True)
    files.state.unlink(missing_ok=True)
    return pid


if __name__ == "__main__":
    main()
