"""A run directory's integrity against what a hostile user does to it: links out of it, an
``aggregate`` killed mid-build, files edited between a kill and ``--resume``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from pdbench.pd.records import PDFiles
from pdbench.storage.schema import RunFiles

from tests.conftest import write_experiment
from tests.e2e.test_resume_and_secrets import (
    PDBENCH,
    _wait_for_matches,
    slow_config,
    with_ctrl_c,
)


def pdbench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``pdbench`` as a process; a bound for a hung process only (dbt may take minutes on a
    busy machine)."""
    return subprocess.run(
        [PDBENCH, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _played(project: Path, out: str = "out") -> Path:
    config = write_experiment(project / "configs", replicates=1, horizon={"type": "fixed", "n": 4})
    result = pdbench("run", str(config), "--output-dir", out, "--no-aggregate", cwd=project)
    assert result.returncode == 0, result.stderr
    return project / out


def _until(check, *, what: str, bound_s: float = 120.0):
    """Poll ``check`` until it returns something true; fail after a generous bound."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting: {what}")


def _is_asleep(pid: int) -> bool:
    """Whether a thread of process ``pid`` waits in ``time.sleep`` (the kernel's nanosleep,
    as ``/proc/<pid>/task/<tid>/wchan`` names where a thread waits)."""
    waits = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            waits.append((task / "wchan").read_text())
        except OSError:  # the thread ended meanwhile
            continue
    return any("nanosleep" in where for where in waits)


def test_aggregate_refuses_a_raw_file_linked_out_of_the_run_directory(project: Path):
    run_dir = _played(project)
    outside = project / "elsewhere.jsonl"
    calls = run_dir / RunFiles.CALLS
    outside.write_bytes(calls.read_bytes() + b'{"torn": ')  # a last line aggregate would cut
    before = outside.read_bytes()
    calls.unlink()
    calls.symlink_to(outside)

    result = pdbench("aggregate", str(run_dir), cwd=project)

    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert f"{calls}: a symbolic link to {outside}, outside the run directory" in lines[0]
    assert outside.read_bytes() == before  # nothing cut off the file it points to


def test_a_link_inside_the_run_directory_is_read(project: Path):
    run_dir = _played(project)
    calls = run_dir / RunFiles.CALLS
    kept = run_dir / "kept-calls.txt"
    calls.rename(kept)
    calls.symlink_to(kept.name)
    result = pdbench("aggregate", str(run_dir), cwd=project)
    assert result.returncode == 0, result.stderr


def _children(pid: int) -> list[int]:
    try:
        tasks = Path(f"/proc/{pid}/task").iterdir()
        return [int(child) for task in tasks for child in (task / "children").read_text().split()]
    except OSError:
        return []


def _is_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # ended, not yet reaped by whoever adopted it


def test_the_dbt_process_of_a_killed_aggregate_ends_with_it(project: Path):
    """``--unit-tests`` is a build by dbt itself, in a process of its own: it must not go on
    writing marts into a run whose lock is free."""
    run_dir = _played(project)
    process = subprocess.Popen(
        [PDBENCH, "aggregate", str(run_dir), "--unit-tests"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = _until(lambda: _children(process.pid), what="dbt to start")[0]

    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)

    _until(lambda: _is_gone(worker), what=f"the dbt process {worker} to end")
    assert not _is_gone(os.getpid())


def _interrupted(project: Path) -> Path:
    """A run stopped by Ctrl-C after its first match."""
    config = slow_config(project, latency_ms=50)
    process = subprocess.Popen(
        [PDBENCH, "run", str(config), "--output-dir", "out", "--no-aggregate"],
        preexec_fn=with_ctrl_c,
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for_matches(project / "out" / PDFiles.MATCHES, at_least=1)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) == 130
    return config


@pytest.mark.parametrize(
    "changed", ["prompts/personas/wsls.md", "prompts/pd_round.md", "agents/llm_default.yaml"]
)
def test_resume_refuses_a_file_the_run_read_that_changed_since(project: Path, changed: str):
    config = _interrupted(project)
    path = project / "configs" / changed
    path.write_text(path.read_text() + "\n# edited after the run stopped\n")

    resumed = pdbench("run", str(config), "--output-dir", "out", "--resume", cwd=project)

    assert resumed.returncode != 0
    lines = resumed.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in resumed.stderr, resumed.stderr
    assert f"cannot resume: configs/{changed} changed since the run started" in lines[0]
    manifest = json.loads((project / "out" / RunFiles.MANIFEST).read_text())
    assert manifest["status"] == "interrupted"  # nothing was played under the new file
    assert f"configs/{changed}" in manifest["inputs"]


def test_resume_with_the_files_unchanged_completes(project: Path):
    config = _interrupted(project)
    resumed = pdbench(
        "run", str(config), "--output-dir", "out", "--resume", "--no-aggregate", cwd=project
    )
    assert resumed.returncode == 0, resumed.stderr


@pytest.mark.parametrize("max_concurrency", [1, 4])
def test_ctrl_c_with_one_llm_match_in_flight_records_its_call_as_cancelled(
    project: Path, max_concurrency: int
):
    llm = {
        "ref": "agents/llm_default.yaml",
        "overrides": {"mock": {"strategy": "TFT", "latency_ms": 1500, "invalid_rate": 0}},
    }
    policy = {"ref": "agents/policies.yaml", "overrides": {"policy": "ALLC"}}
    config = write_experiment(
        project / "configs",
        replicates=1,
        max_concurrency=max_concurrency,
        horizon={"type": "fixed", "n": 6},
        conditions=[{"name": "llm_vs_allc", "agent_a": llm, "agent_b": policy}],
    )
    process = subprocess.Popen(
        [PDBENCH, "run", str(config), "--output-dir", "out", "--no-aggregate"],
        preexec_fn=with_ctrl_c,
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    calls = project / "out" / RunFiles.CALLS
    # the first call answered, and the second on its way: a thread asleep in the mock's
    # 1.5 s of latency (the run sleeps nowhere else: no call is retried)
    _until(lambda: calls.is_file() and calls.read_bytes().count(b"\n") >= 1, what="a call")
    _until(lambda: _is_asleep(process.pid), what="the second call to be in flight")
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)

    assert process.returncode == 130, stderr
    lines = [json.loads(line) for line in calls.read_text().splitlines()]
    assert [line["status"] for line in lines] == ["ok", "cancelled"]
    assert lines[1]["round_index"] == 2 and "in flight" in lines[1]["error"]
