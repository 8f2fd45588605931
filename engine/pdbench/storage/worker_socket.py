"""The persistent dbt worker, seen from outside: its files, its key, and the client's side.

``pdbench worker start`` runs :mod:`pdbench.storage.dbt_daemon` in a session of its own: the
same dbt worker as :mod:`pdbench.storage.dbt_worker`, but it outlives the command that
started it and answers requests on a unix socket in the user's cache folder, next to dbt's
saved parse. Its files there, named for the dbt project's folder (one worker per checkout):

- ``sockets/<project>-worker.sock``: the socket, there while the worker serves, in a folder
  only this user may write in (:func:`private_folder`; under ``$XDG_RUNTIME_DIR`` or the
  temporary folder when the cache folder is too deep for a socket's path,
  :data:`SOCKET_PATH_MAX`);
- ``<project>-worker.json``: its state (pid and the process's identity, socket, key, started
  at, requests served, busy), written by the worker, read by ``pdbench worker status`` and by
  clients. A state file is believed only while its worker runs (:func:`worker_alive`): a pid
  left behind (a killed worker, a reboot) may be another process now;
- ``<project>-worker.lock``: held by the one client the worker serves (``flock``);
- ``<project>-worker.log``: dbt's own output (failing tests and the like).

The worker is keyed by the content of the dbt project and of pdbench's dbt worker code
(:func:`project_key`): a client whose project differs from the worker's does not use it
(``status`` says so). Nor does one that builds outside games' models, nor a second client
while a first holds the lock: each starts a private worker instead, as without a persistent
one (:class:`pdbench.storage.dbt.DbtProcess`). So the persistent worker serves one client at
a time, and no client ever waits for another.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

__all__ = [
    "PRIVATE_ENV",
    "Connection",
    "WorkerFiles",
    "connect",
    "drop_stale_state",
    "is_alive",
    "private_folder",
    "process_identity",
    "project_key",
    "read_state",
    "worker_alive",
]

PRIVATE_ENV = "PDBENCH_PRIVATE_DBT_WORKER"
"""Set (``1``): this command starts a private worker even when a persistent one serves."""
HANDSHAKE_TIMEOUT_S = 60.0
"""How long a client waits for the worker's greeting before it starts a private worker (the
worker greets at once unless it is stuck)."""
SOCKET_PATH_MAX = 107
"""The longest path a unix socket may have on Linux (108 bytes with the closing NUL)."""
WORKER_MODULE = "pdbench.storage.dbt_daemon"
"""The module the persistent worker runs as (``python -m``)."""
_PROC = Path("/proc")
_SKIPPED_FOLDERS = {"target", "logs", "dbt_packages", "outside_games", ".user.yml"}
"""What in the dbt project is dbt's output or outside games' links, not the project."""
_WORKER_CODE = [
    Path(__file__).with_name(name)
    for name in (
        "dbt.py",
        "dbt_worker.py",
        "dbt_daemon.py",
        "worker_socket.py",
        "dbt_plan.py",
        "dbt_recorder.py",
    )
]


@dataclass(frozen=True)
class WorkerFiles:
    """The persistent worker's files (see the module)."""

    socket: Path
    state: Path
    lock: Path
    log: Path

    @classmethod
    def in_folder(cls, folder: Path, project_dir: Path) -> WorkerFiles:
        """The files of the worker of ``project_dir`` in the cache folder ``folder``."""
        name = hashlib.sha256(str(project_dir).encode()).hexdigest()[:12]
        socket_path = folder / "sockets" / f"{name}-worker.sock"
        if len(os.fsencode(socket_path)) > SOCKET_PATH_MAX:
            socket_path = _short_socket_path(folder, name)
        state, lock, log = (folder / f"{name}-worker.{kind}" for kind in ("json", "lock", "log"))
        return cls(socket_path, state, lock, log)


def _short_socket_path(folder: Path, name: str) -> Path:
    """Where the socket goes when the cache folder is too deep for one: a folder of the
    user's own (``$XDG_RUNTIME_DIR``, else the temporary folder), the socket named for the
    project and the cache folder both."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    where = hashlib.sha256(str(folder).encode()).hexdigest()[:8]
    return base / f"pdbench-{os.getuid()}" / f"{name}-{where}.sock"


def private_folder(folder: Path) -> bool:
    """Make ``folder`` (the socket's) if it is missing, for this user alone; whether it is
    this user's and no one else can write in it (else a socket there could be anyone's, and
    none is trusted)."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True)
    facts = folder.stat()
    return facts.st_uid == os.getuid() and not facts.st_mode & 0o022


@dataclass
class Connection:
    """A client's connection to the persistent worker, and the lock it holds."""

    sock: socket.socket
    lock: TextIO
    requests: TextIO
    answers: TextIO
    pid: int

    def close(self) -> None:
        """Close the connection (the worker ends if it was answering a request) and free
        the lock."""
        for stream in (self.requests, self.answers):
            with contextlib.suppress(OSError):
                stream.close()
        with contextlib.suppress(OSError):
            self.sock.close()
        self.lock.close()


def project_key(project_dir: Path) -> str:
    """A digest of every file of the dbt project (dbt's output aside) and of pdbench's dbt
    worker code: what a worker must have started from to serve a client."""
    digest = hashlib.sha256()
    files = [
        path
        for path in project_dir.rglob("*")
        if not _SKIPPED_FOLDERS & set(path.relative_to(project_dir).parts)
    ]
    for path in sorted(files) + _WORKER_CODE:
        with contextlib.suppress(OSError):
            content = path.read_bytes()
            digest.update(f"{path.name}\0{len(content)}\0".encode())
            digest.update(content)
    return digest.hexdigest()[:16]


def read_state(files: WorkerFiles) -> dict[str, Any] | None:
    """The worker's state, if a worker wrote one and it still runs (:func:`worker_alive`)."""
    state = _load_state(files)
    if state is None or not worker_alive(state):
        return None
    return state


def drop_stale_state(files: WorkerFiles) -> str | None:
    """Remove a state file whose worker no longer runs (:func:`worker_alive`), or that cannot
    be read; the one line that says so, or None if there was none to remove."""
    try:
        content = files.state.read_bytes()
    except FileNotFoundError:
        return None
    state = _load_state(files)
    if state is not None and worker_alive(state):
        return None
    if state is None:
        why = "it cannot be read"
    else:
        why = f"pid {state.get('pid')} is not the dbt worker that wrote it"
    with contextlib.suppress(OSError):
        if files.state.read_bytes() == content:  # not a new worker's, written meanwhile
            files.state.unlink()
    return f"removed a stale dbt worker state file ({why}): {files.state}"


def _load_state(files: WorkerFiles) -> dict[str, Any] | None:
    try:
        state = json.loads(files.state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def worker_alive(state: dict[str, Any]) -> bool:
    """Whether the worker a state names still runs: its pid runs and is that worker, not a
    process that got the pid later. The worker records its process's identity (the boot and
    the moment it started, :func:`process_identity`), which must match the pid's now; a
    state recorded without one must name a process running :data:`WORKER_MODULE`. Where
    the system has no ``/proc`` to tell, a running pid is believed."""
    pid = state.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or not is_alive(pid):
        return False
    if not (_PROC / "self" / "stat").exists():
        return True
    recorded = state.get("process")
    if recorded is not None:
        return bool(recorded == process_identity(pid))
    try:
        command = (_PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return WORKER_MODULE.encode() in command


def process_identity(pid: int) -> str | None:
    """Who process ``pid`` is, beyond its number, which the system gives again to a later
    process: the boot's id and the clock tick the process started at (``/proc``); None
    where ``/proc`` does not tell (the process ended, or another system)."""
    try:
        boot = (_PROC / "sys" / "kernel" / "random" / "boot_id").read_text().strip()
        fields = (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[-1].split()
    except OSError:
        return None
    return f"{boot}:{fields[19]}"  # field 22 of stat, the start time; fields[0] is field 3


def is_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet waited for, does not)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        fields = (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[-1].split()
        return fields[0] != "Z"
    return True


def connect(files: WorkerFiles, key: str) -> Connection | None:
    """A connection to the persistent worker, if one runs for this project (``key``) and
    serves nobody else (and :data:`PRIVATE_ENV` is not set); None otherwise."""
    if os.environ.get(PRIVATE_ENV) == "1":
        return None
    state = read_state(files)
    if state is None or state.get("key") != key:
        return None
    files.lock.parent.mkdir(parents=True, exist_ok=True)
    lock = files.lock.open("a", encoding="utf-8")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None  # another client holds it
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if not private_folder(files.socket.parent):
            raise OSError(f"{files.socket.parent} is not this user's alone")
        sock.settimeout(HANDSHAKE_TIMEOUT_S)
        sock.connect(str(files.socket))
        requests = sock.makefile("w", encoding="utf-8")
        answers = sock.makefile("r", encoding="utf-8")
        requests.write(json.dumps({"hello": key}) + "\n")
        requests.flush()
        greeting = json.loads(answers.readline() or "{}")
        sock.settimeout(None)
    except (OSError, ValueError):
        sock.close()
        lock.close()
        return None
    if greeting.get("key") != key:
        sock.close()
        lock.close()
        return None
    return Connection(sock, lock, requests, answers, int(greeting["pid"]))
