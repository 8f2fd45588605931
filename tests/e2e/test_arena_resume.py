"""``pdbench run <arena config>`` as a real process: killed mid-phase and resumed, Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from pdbench.arena.records import ArenaFiles
from pdbench.arena.runner import run_arena
from pdbench.games import load_config
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles, RunManifest

from tests.conftest import write_arena
from tests.e2e.test_resume_and_secrets import PDBENCH, pdbench, rows, with_ctrl_c
from tests.servers.local import SAFETY_NET_S

FILES = (
    ArenaFiles.QUESTIONS,
    ArenaFiles.QUESTION_RATINGS,
    ArenaFiles.ANSWERS,
    ArenaFiles.JUDGMENTS,
    RunFiles.CALLS,
)


def slow_arena(project: Path, *, latency_ms: float = 5) -> Path:
    """4 players, 3 questions each: 4 + 36 + 48 + 144 calls of ``latency_ms``, 2 at a time,
    with invalid replies (re-asks) along the way."""
    players = [
        {"ref": "agents/arena_player.yaml",
         "overrides": {"name": f"p{i}", "mock": {"answer_skill": 0.9 - 0.2 * i,
                                                 "invalid_rate": 0.1, "latency_ms": latency_ms}}}
        for i in range(4)
    ]  # fmt: skip
    return write_arena(project / "configs", players=players, max_concurrency=2)


def _manifest(run_dir: Path) -> RunManifest:
    return RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())


def _wait_for_judging(run_dir: Path, *, calls: int) -> None:
    """Until the judge phase has written ``calls`` call lines."""
    path = run_dir / RunFiles.CALLS
    deadline = time.monotonic() + SAFETY_NET_S
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b'"phase":"judge"') >= calls:
            return
        time.sleep(0.005)
    raise AssertionError("the judge phase never started")


def test_a_tournament_killed_mid_phase_resumes_to_the_uninterrupted_result(project: Path):
    config = slow_arena(project)
    run_arena(load_config(config), output_dir=project / "whole")

    killed = project / "killed"
    process = subprocess.Popen(
        [PDBENCH, "run", str(config), "--output-dir", "killed", "--no-aggregate"],
        preexec_fn=with_ctrl_c,
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for_judging(killed, calls=10)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=SAFETY_NET_S)
    assert process.returncode == -signal.SIGKILL
    stopped = _manifest(killed)
    assert stopped.status == "running"
    assert stopped.phases_done == ["generate", "rate", "answer"], "the kill came too late"
    assert not (killed / ArenaFiles.JUDGMENTS).exists()

    resumed = pdbench(
        "run", str(config), "--output-dir", "killed", "--resume", "--no-aggregate", cwd=project
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "judge: " in resumed.stderr and "generate: " not in resumed.stderr  # only judging
    for name in FILES:
        assert rows(killed, name) == rows(project / "whole", name), name
    manifest = _manifest(killed)
    assert manifest.status == "completed" and len(manifest.resumed_at) == 1
    assert manifest.counts == _manifest(project / "whole").counts
    assert manifest.started_at == stopped.started_at


def test_ctrl_c_marks_the_tournament_interrupted_and_it_resumes(project: Path):
    # judging takes seconds, so the signal lands mid-phase even on a loaded machine
    config = str(slow_arena(project, latency_ms=25))
    process = subprocess.Popen(
        [PDBENCH, "run", config, "--output-dir", "out", "--no-aggregate"],
        preexec_fn=with_ctrl_c,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_judging(project / "out", calls=1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=SAFETY_NET_S)
    assert process.returncode == 130, stderr
    assert stderr.strip().endswith("out is marked interrupted")
    manifest = _manifest(project / "out")
    assert manifest.status == "interrupted"
    assert manifest.phases_done == ["generate", "rate", "answer"]
    resumed = pdbench("run", config, "--output-dir", "out", "--resume", "--no-aggregate",
                      cwd=project)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    # 4 players x 12 answers, each judged by the 3 players who did not write it
    assert len(list(read_jsonl(project / "out" / ArenaFiles.JUDGMENTS))) == 4 * 12 * 3
