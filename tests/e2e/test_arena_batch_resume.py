"""``pdbench run`` in batch mode as a real process, stopped while its batches are still
running (kill -9, Ctrl-C): the batch ids are in the manifest, and ``--resume`` collects those
batches instead of submitting (and paying for) their requests again."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles, RunManifest

from tests.e2e.test_resume_and_secrets import PDBENCH, pdbench, with_ctrl_c
from tests.integration.test_arena_batches import (
    KEY_ENV,
    PHASE_FILES,
    _play,
    _rows,
    _single_calls,
    answerer,
    remote_arena,
)
from tests.servers.local import SAFETY_NET_S
from tests.servers.wire import WireServer, wire_server

PLAYERS = 3


def _manifest(run_dir: Path) -> RunManifest | None:
    try:
        return RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def _start_and_wait_for_batches(project: Path, server: WireServer, config: Path):
    """Start the run and wait until every player's generate batch is submitted and written
    into the manifest, and the run polls them (the server holds them running)."""
    env = {**os.environ, "NO_COLOR": "1", KEY_ENV: "sk-batch-test"}
    process = subprocess.Popen(
        [PDBENCH, "run", str(config), "--output-dir", "cut", "--no-aggregate"],
        preexec_fn=with_ctrl_c,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + SAFETY_NET_S
    while time.monotonic() < deadline and process.poll() is None:
        manifest = _manifest(project / "cut")
        polling = server.batches.status_requests > 0
        if manifest is not None and len(manifest.batches) == PLAYERS and polling:
            break
        time.sleep(0.05)
    manifest = _manifest(project / "cut")
    assert manifest is not None and len(manifest.batches) == PLAYERS, process.poll()
    assert [b.batch_id for b in manifest.batches] == server.batches.created
    assert {b.phase for b in manifest.batches} == {"generate"}
    return process


@pytest.mark.parametrize("stop", ["kill -9", "ctrl-c"])
def test_a_run_stopped_while_its_batches_run_resumes_without_paying_twice(
    project: Path, monkeypatch: pytest.MonkeyPatch, stop: str
):
    monkeypatch.setenv(KEY_ENV, "sk-batch-test")
    with wire_server("openai", answer=answerer(project)) as server:
        _play(remote_arena(project, server, batch=False, name="single.yaml"), "single")
        singles = _single_calls(server)
        config = remote_arena(project, server, batch=True, name="batch.yaml")
        server.batches.hold.set()
        process = _start_and_wait_for_batches(project, server, config)
        if stop == "kill -9":
            process.kill()
            process.communicate(timeout=SAFETY_NET_S)
            assert _manifest(project / "cut").status == "running"
        else:
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=SAFETY_NET_S)
            assert process.returncode == 130, stderr
            waiting = f"generate: waiting for 3 batches ({', '.join(server.batches.created)})"
            lines = stderr.strip().splitlines()
            assert lines == [waiting, "interrupted: cut is marked interrupted"]
            assert _manifest(project / "cut").status == "interrupted"
        assert len(_manifest(project / "cut").batches) == PLAYERS

        server.batches.hold.clear()
        resumed = pdbench(
            "run", str(config), "--output-dir", "cut", "--resume", "--no-aggregate",
            cwd=project, env={KEY_ENV: "sk-batch-test"},
        )  # fmt: skip
        assert resumed.returncode == 0, resumed.stderr
        first = ", ".join(server.batches.created[:PLAYERS])
        assert resumed.stderr.startswith(f"collecting the stopped run's 3 batches ({first})\n")
        manifest = _manifest(project / "cut")
        assert manifest.status == "completed" and manifest.batches == []
        calls = list(read_jsonl(project / "cut" / RunFiles.CALLS))
        submitted = server.batches.submitted
        # no request was submitted twice, and none was asked alone
        assert len(submitted) == len(set(submitted)) == len(calls)
        assert _single_calls(server) == singles
        # the first requests were answered in the batches the stopped run submitted
        first = {c["batch_id"] for c in calls if c["phase"] == "generate" and c["attempt"] == 1}
        assert first == set(server.batches.created[:PLAYERS])
        for name in PHASE_FILES:
            assert _rows(project / "cut", name) == _rows(project / "single", name), name
