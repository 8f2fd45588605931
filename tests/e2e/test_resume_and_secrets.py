"""``pdbench run`` as a real process: killed and resumed, and never leaking a key."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles, RunManifest

from tests.conftest import edit, write_experiment
from tests.integration.test_real_providers import KEY_ENV, SENTINEL, llm_config
from tests.servers.local import SAFETY_NET_S
from tests.servers.wire import Step, reply, wire_server

PDBENCH = str(Path(sys.executable).parent / "pdbench")
TIMES = {"timestamp_utc", "started_at", "finished_at", "latency_ms"}


def with_ctrl_c() -> None:
    """For ``preexec_fn``: the child takes SIGINT as a terminal's Ctrl-C, even when the tests
    run in the background of a shell, which starts its jobs with SIGINT ignored (Python then
    installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def pdbench(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PDBENCH, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET_S,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
    )


def rows(run_dir: Path, name: str) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMES} for r in read_jsonl(run_dir / name)]


def slow_config(project: Path, *, latency_ms: float = 15) -> Path:
    config = write_experiment(
        project / "configs", replicates=4, max_concurrency=3, horizon={"type": "fixed", "n": 8}
    )
    for strategy in ("TFT", "WSLS", "ALLD"):
        edit(
            config,
            f"strategy: {strategy}",
            f"strategy: {strategy}\n        invalid_rate: 0.2\n        latency_ms: {latency_ms}",
        )
    return config


def _wait_for_matches(matches: Path, *, at_least: int) -> None:
    """Until ``matches.jsonl`` holds ``at_least`` finished matches, or the safety net has passed."""
    deadline = time.monotonic() + SAFETY_NET_S
    while time.monotonic() < deadline:
        if matches.exists() and len(matches.read_bytes().splitlines()) >= at_least:
            return
        time.sleep(0.01)


def test_a_run_killed_with_sigkill_resumes_to_the_uninterrupted_result(project: Path):
    config = str(slow_config(project))
    whole = pdbench("run", config, "--output-dir", "whole", "--no-aggregate", cwd=project)
    assert whole.returncode == 0, whole.stderr

    killed = project / "killed"
    process = subprocess.Popen(
        [PDBENCH, "run", config, "--output-dir", "killed", "--no-aggregate"],
        preexec_fn=with_ctrl_c,
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    matches = killed / PDFiles.MATCHES
    _wait_for_matches(matches, at_least=4)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=SAFETY_NET_S)
    assert process.returncode == -signal.SIGKILL
    finished = len(list(read_jsonl(matches)))
    assert 4 <= finished < 12, "the kill came too late to test anything"
    stopped = RunManifest.model_validate_json((killed / RunFiles.MANIFEST).read_text())
    assert stopped.status == "running"

    resumed = pdbench(
        "run", config, "--output-dir", "killed", "--resume", "--no-aggregate", cwd=project
    )
    assert resumed.returncode == 0, resumed.stderr
    for name in (PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS):
        assert rows(killed, name) == rows(project / "whole", name), name
    manifest = RunManifest.model_validate_json((killed / RunFiles.MANIFEST).read_text())
    reference = RunManifest.model_validate_json((project / "whole" / RunFiles.MANIFEST).read_text())
    assert manifest.status == "completed" and len(manifest.resumed_at) == 1
    assert manifest.counts == reference.counts
    assert manifest.started_at == stopped.started_at


def test_resume_refuses_another_config(project: Path):
    config = write_experiment(project / "configs", replicates=1)
    assert (
        pdbench("run", str(config), "--output-dir", "out", "--no-aggregate", cwd=project).returncode
        == 0
    )
    again = pdbench(
        "run",
        str(config),
        "--output-dir",
        "out",
        "--resume",
        "--replicates",
        "2",
        "--no-aggregate",
        cwd=project,
    )
    assert again.returncode == 2
    assert again.stderr.startswith("error: out: cannot resume: the config differs")
    assert len(again.stderr.splitlines()) == 1
    nothing = pdbench("run", str(config), "--output-dir", "none", "--resume", cwd=project)
    assert nothing.returncode == 2 and "nothing to resume" in nothing.stderr


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_the_api_key_reaches_no_file_and_no_output(project: Path, wire: str, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with wire_server(wire) as server:
        config = str(llm_config(project, server, rounds=2))
        env = {KEY_ENV: SENTINEL}
        ok = pdbench("run", config, "--output-dir", "ok", "--no-aggregate", cwd=project, env=env)
        assert ok.returncode == 0, ok.stderr
        server.then(Step(status=401, echo_key=True))
        failed = pdbench(
            "run",
            config,
            "--output-dir",
            "failed",
            "--no-aggregate",
            "--no-cache",
            cwd=project,
            env=env,
        )
        assert server.hits == 3
    assert failed.returncode == 1
    assert failed.stderr.startswith(f"error: provider '{wire}' (")
    assert "not authorised (401)" in failed.stderr and len(failed.stderr.splitlines()) == 1
    for result in (ok, failed):
        assert SENTINEL not in result.stdout + result.stderr
    written = [p for p in project.rglob("*") if p.is_file() and "configs" not in p.parts]
    assert any(p.name == RunFiles.CALLS for p in written)
    for path in written:
        assert SENTINEL.encode() not in path.read_bytes(), path
    manifest = RunManifest.model_validate_json((project / "failed" / RunFiles.MANIFEST).read_text())
    assert manifest.status == "failed"
    assert manifest.config["conditions"][0]["agent_a"]["api_key_env"] == KEY_ENV


def test_dry_run_estimates_calls_tokens_and_cost(project: Path):
    config = write_experiment(
        project / "configs",
        replicates=2,
        horizon={"type": "fixed", "n": 10},
        prices={"mock-pd": {"input_per_mtok": 1000.0, "output_per_mtok": 2000.0}},
    )
    result = pdbench("run", str(config), "--dry-run", cwd=project)
    assert result.returncode == 0, result.stderr
    # 3 LLM sides (one in llm_vs_gtft, two in llm_vs_llm) x 2 replicates x 10 rounds
    assert "provider calls: 60 (one per LLM move); at most 180 with re-prompts" in result.stdout
    assert "180 with re-prompts after invalid replies, 900 with transport retries" in result.stdout
    assert "at most 960 out" in result.stdout  # 60 calls x max_tokens 16
    line = re.search(
        r"mock/mock-pd: 60 calls, ~(\d+) tokens in, <= (\d+) out, cost \$(\S+)", result.stdout
    )
    assert line is not None, result.stdout
    tokens_in, tokens_out, cost = int(line[1]), int(line[2]), float(line[3])
    assert tokens_in > 60 * 100  # a system and a round prompt are hundreds of characters
    assert cost == pytest.approx((tokens_in * 1000 + tokens_out * 2000) / 1e6, abs=1e-4)
    assert f"estimated cost: ${cost:.4f}" in result.stdout and "unknown" not in result.stdout
    assert not (project / "data").exists()


def test_ctrl_c_stops_the_run_and_its_dbt_compile_without_a_traceback(
    project: Path, tmp_path: Path
):
    """Ctrl-C in a terminal reaches the foreground process group: pdbench, which then stops
    the ``dbt compile`` it started before playing (a project not compiled yet: an empty
    cache). Both end; only pdbench speaks."""
    config = str(slow_config(project, latency_ms=50))  # seconds of play left after a match
    process = subprocess.Popen(
        [PDBENCH, "run", config, "--output-dir", "out"],
        preexec_fn=with_ctrl_c,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=os.environ | {"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    matches = project / "out" / PDFiles.MATCHES
    _wait_for_matches(matches, at_least=1)
    children = _until_children(process.pid)  # dbt compiles the project while pdbench plays
    assert len(children) == 1
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert stderr.strip().endswith("out is marked interrupted")
    assert "Traceback" not in stderr
    _until_gone(int(children[0]))  # dbt has ended too


def _until_children(pid: int, bound_s: float = 60.0) -> list[str]:
    """The child processes of ``pid`` once it has one (a thread of it may start them: each
    thread's are listed under its own task)."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        tasks = Path(f"/proc/{pid}/task").glob("*/children")
        children = [child for task in tasks for child in task.read_text().split()]
        if children:
            return children
        threading.Event().wait(0.05)
    raise AssertionError(f"process {pid} started no child in {bound_s} s")


def _until_gone(pid: int, bound_s: float = 60.0) -> None:
    """Wait until process ``pid`` has ended (a zombie not yet reaped counts as ended)."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return
        if state == "Z":
            return
        threading.Event().wait(0.05)
    raise AssertionError(f"process {pid} still runs after {bound_s} s")


def test_ctrl_c_stops_a_concurrent_run_cleanly_and_it_resumes(project: Path):
    config = str(slow_config(project, latency_ms=50))
    process = subprocess.Popen(
        [PDBENCH, "run", config, "--output-dir", "out", "--no-aggregate"],
        preexec_fn=with_ctrl_c,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    matches = project / "out" / PDFiles.MATCHES
    _wait_for_matches(matches, at_least=1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 130, stderr
    assert stderr.strip().endswith("out is marked interrupted")
    manifest = RunManifest.model_validate_json((project / "out" / RunFiles.MANIFEST).read_text())
    assert manifest.status == "interrupted"
    assert manifest.counts["matches"] == len(list(read_jsonl(matches)))
    resumed = pdbench(
        "run", config, "--output-dir", "out", "--resume", "--no-aggregate", cwd=project
    )
    assert resumed.returncode == 0, resumed.stderr
    assert len(list(read_jsonl(matches))) == 12


PASTED_KEY = "sk-live-9fQ2xR7mZ4kL1pV8nB3cT6wY"
EXTRA_KEY = "sk-extra-Zq8Lm2Xv6Pn4Rt7Wc1Yb5Hd9"


def test_a_password_in_base_url_and_a_key_in_params_reach_no_file(project: Path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with wire_server("openai") as server:
        with_password = server.base_url.replace("http://", "http://alice:hunter2pw@")
        config = llm_config(
            project,
            server,
            rounds=1,
            base_url=with_password,
            params={"extra_body": {"api_key": EXTRA_KEY, "region": "eu"}},
        )
        server.then(Step(status=500), reply("C"))
        run = pdbench("run", str(config), "--no-aggregate", cwd=project, env={KEY_ENV: SENTINEL})
    assert run.returncode == 0, run.stderr
    run_dir = next(p.parent for p in project.rglob(RunFiles.MANIFEST))
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
    agent = manifest["config"]["conditions"][0]["agent_a"]
    assert agent["base_url"].startswith("http://***@127.0.0.1:")
    assert agent["params"]["extra_body"] == {"api_key": "***", "region": "eu"}
    for path in (run_dir / RunFiles.MANIFEST, run_dir / RunFiles.CALLS):
        text = path.read_text()
        assert "hunter2pw" not in text and EXTRA_KEY not in text and SENTINEL not in text, path


def test_a_key_pasted_into_api_key_env_is_refused_and_never_echoed(project: Path):
    config = write_experiment(
        project / "configs",
        conditions=[
            {
                "name": "pasted",
                "agent_a": {
                    "ref": "agents/llm_default.yaml",
                    "overrides": {
                        "provider": "openai",
                        "api_key_env": "AbCdEf0123456789GhIjKlMnOpQr",
                    },
                },
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            }
        ],
    )
    for command in ("validate", "run"):
        result = pdbench(command, str(config), cwd=project)
        assert result.returncode == 2
        assert len(result.stderr.splitlines()) == 1
        assert "api_key_env: must be the NAME of an environment variable" in result.stderr
        assert "AbCdEf0123456789GhIjKlMnOpQr" not in result.stderr + result.stdout
    assert not (project / "data").exists()
