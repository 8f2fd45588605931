"""One writer per run directory: a second `pdbench run`, `--resume` or `aggregate` on a
directory another process is writing is refused in one line; `--overwrite` replaces only a
directory of pdbench's own files."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pdbench.pd.records import PDFiles
from pdbench.storage.schema import RunFiles

from tests.e2e.test_resume_and_secrets import (
    PDBENCH,
    pdbench,
    rows,
    slow_config,
)
from tests.integration.test_real_providers import KEY_ENV, SENTINEL, llm_config
from tests.servers.local import SAFETY_NET_S
from tests.servers.wire import Step, reply, wire_server


def test_a_second_writer_is_refused_while_a_run_plays(project: Path) -> None:
    gate = threading.Event()
    with wire_server("openai") as server:
        # the first round is answered; the second call is held until the others have tried
        server.then(reply("C"), Step(reply="C", hold=gate))
        config = str(llm_config(project, server, rounds=3, transport={"timeout_s": SAFETY_NET_S}))
        env = {**os.environ, "NO_COLOR": "1", KEY_ENV: SENTINEL}
        first = subprocess.Popen(
            [PDBENCH, "run", config, "--output-dir", "out", "--no-aggregate"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            _wait_until(lambda: server.hits >= 2 or first.poll() is not None)
            assert first.poll() is None, first.stderr.read() if first.stderr else ""
            attempts = {
                "overwrite": (
                    "run",
                    config,
                    "--output-dir",
                    "out",
                    "--overwrite",
                    "--no-aggregate",
                ),
                "resume": ("run", config, "--output-dir", "out", "--resume", "--no-aggregate"),
                "aggregate": ("aggregate", "out"),
            }
            with ThreadPoolExecutor(len(attempts)) as pool:  # all at once, while the first plays
                futures = {
                    name: pool.submit(pdbench, *args, cwd=project)
                    for name, args in attempts.items()
                }
                refused = {name: future.result() for name, future in futures.items()}
            # readers are never blocked
            rounds_while_running = (project / "out" / PDFiles.ROUNDS).read_text()
            assert first.poll() is None, "the first run ended before the others tried"
        finally:
            gate.set()
        _, stderr = first.communicate(timeout=SAFETY_NET_S)
    assert first.returncode == 0, stderr
    for name, result in refused.items():
        assert result.returncode == 2, (name, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, (name, result.stderr)
        assert lines[0].startswith("error: ") and "in use by another pdbench process" in lines[0]
        assert f"pid {first.pid}" in lines[0]
    assert len(rounds_while_running.splitlines()) == 1
    manifest = json.loads((project / "out" / RunFiles.MANIFEST).read_text())
    assert manifest["status"] == "completed"
    assert manifest["counts"]["rounds"] == 3 == len(rows(project / "out", PDFiles.ROUNDS))
    # the lock went with the process: the directory is free again
    again = pdbench("run", config, "--output-dir", "out", "--resume", "--no-aggregate", cwd=project)
    assert again.returncode == 0, again.stderr


def _wait_until(condition) -> None:
    """Until ``condition()`` holds (polled; the safety net only stops a hang)."""
    deadline = time.monotonic() + SAFETY_NET_S
    while not condition():
        assert time.monotonic() < deadline, "waited past the safety net"
        time.sleep(0.02)


def test_overwrite_refuses_a_stranger_file_and_a_fake_manifest(project: Path) -> None:
    config = str(slow_config(project))
    assert (
        pdbench("run", config, "--output-dir", "out", "--no-aggregate", cwd=project).returncode == 0
    )
    (project / "out" / "notes.txt").write_text("mine")
    stranger = pdbench("run", config, "--output-dir", "out", "--overwrite", cwd=project)
    assert stranger.returncode == 2
    assert stranger.stderr == (
        "error: out: holds 'notes.txt', which pdbench did not write; refusing to replace the "
        "directory (move it away first)\n"
    )
    assert (project / "out" / "notes.txt").read_text() == "mine"
    assert (project / "out" / PDFiles.ROUNDS).stat().st_size > 0

    fake = project / "fake"
    fake.mkdir()
    (fake / RunFiles.MANIFEST).write_text("{}")
    (fake / "thesis.tex").write_text("keep")
    refused = pdbench("run", config, "--output-dir", "fake", "--overwrite", cwd=project)
    assert refused.returncode == 2
    assert "not a pdbench run directory (no valid run_manifest.json)" in refused.stderr
    assert (fake / "thesis.tex").read_text() == "keep"
    # a refusal leaves the folder as it was: no lock file either
    assert sorted(p.name for p in fake.iterdir()) == [RunFiles.MANIFEST, "thesis.tex"]


def test_a_refused_resume_leaves_no_folder_and_no_lock(project: Path) -> None:
    config = str(slow_config(project))
    foreign = project / "foreign"
    foreign.mkdir()
    (foreign / "data.csv").write_text("1,2\n")
    for args in (("--overwrite",), ()):
        refused = pdbench("run", config, "--output-dir", "foreign", *args, cwd=project)
        assert refused.returncode == 2, refused.stderr
        assert [p.name for p in foreign.iterdir()] == ["data.csv"]
    nothing = pdbench("run", config, "--output-dir", "never", "--resume", cwd=project)
    assert nothing.returncode == 2 and "nothing to resume" in nothing.stderr
    assert not (project / "never").exists()


def _snapshot(folder: Path) -> dict[str, int]:
    """Every name in ``folder`` (and the folder itself, as ``.``) with its mtime in ns."""
    return {
        str(path.relative_to(folder)): path.lstat().st_mtime_ns
        for path in [folder, *sorted(folder.rglob("*"))]
    }


def test_a_refused_run_changes_nothing_in_the_folder_it_refuses(project: Path) -> None:
    # a refusal used to create its lock file in the folder, then remove it: the folder's own
    # mtime moved, though nothing in it was to be touched
    config = str(slow_config(project))
    done = pdbench("run", config, "--output-dir", "done", "--no-aggregate", cwd=project)
    assert done.returncode == 0, done.stderr
    (project / "done" / "notes.txt").write_text("mine")
    mine = project / "mine"
    mine.mkdir()
    (mine / "data.csv").write_text("1,2\n")
    fake = project / "fake"
    fake.mkdir()
    (fake / RunFiles.MANIFEST).write_text("{}")
    (fake / "thesis.tex").write_text("keep")
    refusals = [
        ("mine", ("--overwrite",), "error: mine: not a pdbench run directory"),
        ("mine", (), "error: mine: run directory already exists"),
        ("mine", ("--resume",), "error: mine: nothing to resume"),
        ("fake", ("--overwrite",), "error: fake: not a pdbench run directory"),
        ("done", ("--overwrite",), "error: done: holds 'notes.txt', which pdbench did not write"),
    ]
    for folder in (mine, fake, project / "done"):
        for path in [folder, *folder.rglob("*")]:
            os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    for name, args, error in refusals:
        before = _snapshot(project / name)
        refused = pdbench("run", config, "--output-dir", name, *args, cwd=project)
        assert refused.returncode == 2, (name, args, refused.stderr)
        assert refused.stderr.startswith(error), (name, args, refused.stderr)
        assert _snapshot(project / name) == before, (name, args)


def test_a_writer_refused_under_the_lock_removes_the_folders_it_made(tmp_path: Path) -> None:
    from pdbench.errors import RunDirError
    from pdbench.storage.run_lock import LOCK_FILE, hold_run_dir

    run_dir = tmp_path / "a" / "b" / "run"
    try:
        with hold_run_dir(run_dir, create=True):
            assert (run_dir / LOCK_FILE).is_file()
            raise RunDirError("refused")
    except RunDirError:
        pass
    assert list(tmp_path.iterdir()) == []
