"""``pdbench worker start|stop|status``: a dbt worker that stays between commands, used by
``aggregate`` only while it serves the current dbt project and nobody else, and that ends
rather than write into a run directory whose command was killed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest
from pdbench.storage.dbt import DBT_PROJECT_DIR, DbtProcess, worker_files
from pdbench.storage.dbt_plan import REPLAY_ENV
from pdbench.storage.worker_socket import (
    WorkerFiles,
    connect,
    process_identity,
    project_key,
    read_state,
    worker_alive,
)

from tests.e2e.test_resume_and_secrets import PDBENCH
from tests.e2e.test_run_integrity import _is_gone, _until, pdbench


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user cache folder for this module's workers (and dbt's saved parse)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def files(cache: Path, monkeypatch: pytest.MonkeyPatch) -> WorkerFiles:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv(REPLAY_ENV, "0")  # dbt builds every run: these tests are about its worker
    return worker_files()


def _demo(project: Path, out: str) -> Path:
    result = pdbench(
        "run", "configs/experiment.yaml", "--no-aggregate", "--output-dir", out, cwd=project
    )
    assert result.returncode == 0, result.stderr
    return project / out


def _marts(run_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(run_dir.glob("*.parquet"))}


def test_aggregate_through_a_started_worker_writes_the_same_marts(
    project: Path, files: WorkerFiles
) -> None:
    through_worker = _demo(project, "demo")
    private = project / "demo-private"
    shutil.copytree(through_worker, private)
    # first without a worker: dbt's saved parse and the empty marts are made once here
    assert pdbench("aggregate", str(private), cwd=project).returncode == 0

    started = pdbench("worker", "start", cwd=project)
    try:
        assert started.returncode == 0, started.stderr
        assert started.stdout.startswith("dbt worker started: pid ")
        assert files.socket.is_socket()
        result = pdbench("aggregate", str(through_worker), cwd=project)
        assert result.returncode == 0, result.stderr
        status = pdbench("worker", "status", cwd=project).stdout
    finally:
        stopped = pdbench("worker", "stop", cwd=project)

    assert "1 request served" in status and "stale" not in status
    assert _marts(through_worker) == _marts(private)
    assert len(_marts(private)) > 10
    assert stopped.stdout.startswith("dbt worker stopped (pid ")
    assert not files.socket.exists()
    assert "no dbt worker is running" in pdbench("worker", "status", cwd=project).stdout


def test_a_worker_whose_client_is_killed_mid_build_ends_at_once(
    project: Path, files: WorkerFiles
) -> None:
    run_dir = _demo(project, "demo")
    assert pdbench("worker", "start", cwd=project).returncode == 0
    state = read_state(files)
    assert state is not None
    client = subprocess.Popen(
        [PDBENCH, "aggregate", str(run_dir)],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _until(lambda: (read_state(files) or {}).get("busy"), what="the worker to build")
        client.send_signal(signal.SIGKILL)
        client.wait(timeout=60)
        _until(lambda: _is_gone(state["pid"]), what="the worker to end")
    finally:
        pdbench("worker", "stop", cwd=project)
    assert not files.socket.exists() and read_state(files) is None


def _fake_worker(files: WorkerFiles, key: str) -> socket.socket:
    """A socket that greets clients as the persistent worker of ``key`` does, and the state
    file naming it (this process as its pid)."""
    files.socket.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    files.state.parent.mkdir(parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(files.socket))
    server.listen(8)
    state = {"pid": os.getpid(), "process": process_identity(os.getpid()),
             "socket": str(files.socket), "key": key,
             "started_at": "2026-01-01T00:00:00+00:00", "requests_served": 0}  # fmt: skip
    files.state.write_text(json.dumps(state), encoding="utf-8")

    def greet() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            hello = json.loads(conn.makefile("r").readline())
            conn.sendall((json.dumps({"key": hello["hello"], "pid": os.getpid()}) + "\n").encode())

    threading.Thread(target=greet, daemon=True).start()
    return server


def test_one_client_at_a_time_and_only_for_the_same_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    files = worker_files()
    key = project_key(DBT_PROJECT_DIR)
    server = _fake_worker(files, key)
    try:
        first = connect(files, key)
        assert first is not None
        # a second client while the first is served: it does not wait, it gets None (and
        # DbtProcess starts a private worker)
        assert connect(files, key) is None
        first.close()
        second = connect(files, key)
        assert second is not None
        second.close()

        # a worker of another version of the project is not used
        files.state.write_text(
            files.state.read_text().replace(key, "0" * len(key)), encoding="utf-8"
        )
        process = DbtProcess()
        assert process.persistent is None
        process.close()
        status = pdbench("worker", "status", cwd=tmp_path).stdout
        assert "stale: the dbt project changed since it started" in status
    finally:
        server.close()


def test_the_key_follows_the_projects_content(tmp_path: Path) -> None:
    project = tmp_path / "dbt_project"
    (project / "models").mkdir(parents=True)
    (project / "models" / "a.sql").write_text("select 1", encoding="utf-8")
    before = project_key(project)
    (project / "target").mkdir()
    (project / "target" / "out.sql").write_text("compiled", encoding="utf-8")
    assert project_key(project) == before, "dbt's output is not the project"
    (project / "models" / "a.sql").write_text("select 2", encoding="utf-8")
    assert project_key(project) != before


def test_a_cache_folder_too_deep_for_a_socket_puts_it_in_a_folder_of_the_users_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a unix socket's path holds at most 107 bytes: a deep cache folder failed to bind
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    short = Path(tempfile.mkdtemp(prefix="pdb-"))  # the system's temporary folder: short
    monkeypatch.setattr("tempfile.tempdir", str(short))
    sockets = []
    for deep in ("a" * 120, "b" * 120):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / deep))
        files = worker_files()
        assert len(os.fsencode(files.socket)) <= 107
        assert files.socket.parent == short / f"pdbench-{os.getuid()}"
        assert files.state.parent == tmp_path / deep / "pdbench" / "dbt"
        sockets.append(files.socket)
    # one socket per cache folder, as the workers of two cache folders are two workers
    assert sockets[0] != sockets[1]

    server = _fake_worker(files, "k")
    try:
        connection = connect(files, "k")
        assert connection is not None
        connection.close()
        # a socket folder others may write in is not trusted: no connection, a private worker
        files.socket.parent.chmod(0o777)
        assert connect(files, "k") is None
    finally:
        server.close()
        shutil.rmtree(short)


def _state_naming(files: WorkerFiles, pid: int, **more: object) -> None:
    """A state file as a worker of the current project writes it, naming process ``pid``."""
    files.state.parent.mkdir(parents=True, exist_ok=True)
    state = {"pid": pid, "socket": str(files.socket), "key": project_key(DBT_PROJECT_DIR),
             "started_at": "2026-01-01T00:00:00+00:00", "requests_served": 0, **more}  # fmt: skip
    files.state.write_text(json.dumps(state), encoding="utf-8")


def test_a_state_file_whose_pid_is_another_process_now_is_not_a_running_worker(
    project: Path, files: WorkerFiles
) -> None:
    # a worker killed (or a reboot) leaves its state file; its pid is then given to another
    # process: here a `sleep`, alive all through the test
    other = subprocess.Popen(["sleep", "600"])
    try:
        _state_naming(files, other.pid)
        status = pdbench("worker", "status", cwd=project)
        assert status.returncode == 0, status.stderr
        assert status.stdout.splitlines()[0] == (
            f"removed a stale dbt worker state file (pid {other.pid} is not the dbt worker "
            f"that wrote it): {files.state}"
        )
        assert "no dbt worker is running" in status.stdout
        assert not files.state.exists()

        _state_naming(files, other.pid)
        started = pdbench("worker", "start", cwd=project)
        try:
            assert started.returncode == 0, started.stderr
            lines = started.stdout.splitlines()
            assert lines[0].startswith("removed a stale dbt worker state file (pid ")
            assert lines[1].startswith("dbt worker started: pid ")
            state = read_state(files)
            assert state is not None and state["pid"] != other.pid
        finally:
            stopped = pdbench("worker", "stop", cwd=project)
        assert stopped.stdout.startswith(f"dbt worker stopped (pid {state['pid']})")
        assert other.poll() is None, "the other process is never signalled"
    finally:
        other.kill()
        other.wait()


def test_a_worker_is_alive_only_as_the_process_that_wrote_its_state() -> None:
    me = os.getpid()
    # this process runs pytest, not the worker's module, and records no identity
    assert not worker_alive({"pid": me})
    assert worker_alive({"pid": me, "process": process_identity(me)})
    # the same pid, started at another moment: another process than the one recorded
    boot, started = str(process_identity(me)).rsplit(":", 1)
    assert not worker_alive({"pid": me, "process": f"{boot}:{int(started) + 1}"})
    assert not worker_alive({"pid": me, "process": f"another-boot:{started}"})
    for pid in (0, -1, "12", True, 2**70, None):
        assert not worker_alive({"pid": pid})


def test_stop_leaves_a_process_that_took_a_stale_states_pid_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    files = worker_files()
    other = subprocess.Popen(["sleep", "600"])
    try:
        _state_naming(files, other.pid, process="another-boot:1")
        stopped = pdbench("worker", "stop", cwd=tmp_path)
        assert stopped.returncode == 0, stopped.stderr
        assert stopped.stdout.splitlines()[-1] == "no dbt worker was running"
        assert "removed a stale dbt worker state file" in stopped.stdout
        assert other.poll() is None
        assert not files.state.exists()
    finally:
        other.kill()
        other.wait()
