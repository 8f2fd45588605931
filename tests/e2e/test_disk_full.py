"""A run that meets a full disk (a file-size limit, as `ulimit -f` sets) ends `failed` with the
reason in one line, keeps every complete record, and `--resume` then finishes it with the
files of an uninterrupted run."""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

from pdbench.pd.records import PDFiles
from pdbench.storage.schema import RunFiles

from tests.e2e.test_resume_and_secrets import PDBENCH, pdbench, rows, slow_config
from tests.servers.local import SAFETY_NET_S

LIMIT = 24_000
"""Bytes any file of the run may hold: rounds.jsonl (prompts stored) passes it mid-run."""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def test_a_full_disk_fails_the_run_in_one_line_and_resume_finishes_it(project: Path) -> None:
    config = str(slow_config(project, latency_ms=0))
    whole = pdbench("run", config, "--output-dir", "whole", "--no-aggregate", cwd=project)
    assert whole.returncode == 0, whole.stderr
    assert (project / "whole" / PDFiles.ROUNDS).stat().st_size > LIMIT

    full = subprocess.run(
        [PDBENCH, "run", config, "--output-dir", "full", "--no-aggregate"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET_S,
        preexec_fn=_limited,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert full.returncode != 0
    # off a terminal the progress lines come first, then the error in one line
    lines = [line for line in full.stderr.strip().splitlines() if not line.startswith("matches: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), full.stderr
    assert "File too large" in lines[0]
    manifest = json.loads((project / "full" / RunFiles.MANIFEST).read_text())
    assert manifest["status"] == "failed"
    assert "File too large" in manifest["failure"]

    resumed = pdbench(
        "run", config, "--output-dir", "full", "--resume", "--no-aggregate", cwd=project
    )
    assert resumed.returncode == 0, resumed.stderr
    for name in (PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS):
        assert rows(project / "full", name) == rows(project / "whole", name), name
    manifest = json.loads((project / "full" / RunFiles.MANIFEST).read_text())
    assert manifest["status"] == "completed" and manifest["failure"] is None
