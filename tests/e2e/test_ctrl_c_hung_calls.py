"""Ctrl-C while every call hangs in the network: pdbench ends without waiting for the
calls (the server holds them until pdbench has exited), says so in one line, marks the run
interrupted and records the calls in flight as cancelled; --resume finishes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

from pdbench.storage.schema import RunFiles

from tests.conftest import write_experiment
from tests.e2e.test_resume_and_secrets import PDBENCH, pdbench, with_ctrl_c
from tests.integration.test_real_providers import KEY_ENV, SENTINEL
from tests.servers.local import SAFETY_NET_S
from tests.servers.wire import Step, wire_server


def test_ctrl_c_with_eight_hung_calls_ends_at_once(project: Path) -> None:
    release = threading.Event()
    with wire_server("openai") as server:
        server.then(*[Step(reply="C", hold=release) for _ in range(8)])
        agent = {
            "provider": "openai",
            "model": "gpt-test",
            "base_url": server.base_url,
            "api_key_env": KEY_ENV,
            "transport": {"timeout_s": 10 * SAFETY_NET_S, "max_retries": 0},
        }
        config = write_experiment(
            project / "configs",
            replicates=8,
            max_concurrency=8,
            horizon={"type": "fixed", "n": 2},
            conditions=[
                {
                    "name": "llm_vs_tft",
                    "agent_a": {"ref": "agents/llm_default.yaml", "overrides": agent},
                    "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
                }
            ],
        )
        env = {**os.environ, "NO_COLOR": "1", KEY_ENV: SENTINEL}
        process = subprocess.Popen(
            [PDBENCH, "run", str(config), "--output-dir", "out", "--no-aggregate"],
            preexec_fn=with_ctrl_c,
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + SAFETY_NET_S
        while server.hits < 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.hits == 8, "the calls never started"
        process.send_signal(signal.SIGINT)
        try:
            # the calls stay in flight until pdbench has exited: waiting for them never ends
            _, stderr = process.communicate(timeout=SAFETY_NET_S)
        finally:
            release.set()
        assert process.returncode == 130, stderr
        assert stderr.strip().splitlines() == ["interrupted: out is marked interrupted"]
        manifest = json.loads((project / "out" / RunFiles.MANIFEST).read_text())
        assert manifest["status"] == "interrupted"
        # the hung calls are recorded as cancelled, not lost
        calls = [json.loads(line) for line in (project / "out" / RunFiles.CALLS).open()]
        assert [c["status"] for c in calls] == ["cancelled"] * 8
        assert all(c["error"].startswith("cancelled:") for c in calls)
        assert manifest["counts"]["calls"] == 8
        # the server answers at once from now on: the resumed run replays the lost calls
        resumed = pdbench(
            "run", str(config), "--output-dir", "out", "--resume", "--no-aggregate",
            cwd=project, env={KEY_ENV: SENTINEL},
        )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    manifest = json.loads((project / "out" / RunFiles.MANIFEST).read_text())
    assert manifest["status"] == "completed" and manifest["counts"]["matches"] == 8
