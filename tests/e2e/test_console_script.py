"""The installed ``pdbench`` console script, run as a real process."""

import os
import subprocess
import sys
from pathlib import Path

from pdbench.pd.records import PDFiles

from tests.servers.local import SAFETY_NET_S

PDBENCH = str(Path(sys.executable).parent / "pdbench")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [PDBENCH, *args], cwd=cwd, capture_output=True, text=True, timeout=SAFETY_NET_S, env=env
    )


def test_validate_and_run_the_demo(project: Path):
    validated = _run("validate", "configs/experiment.yaml", cwd=project)
    assert validated.returncode == 0, validated.stderr
    assert "conditions (7):" in validated.stdout
    ran = _run("run", "configs/experiment.yaml", "--replicates", "2", "--no-aggregate", cwd=project)
    assert ran.returncode == 0, ran.stderr
    assert (project / "data/runs/demo" / PDFiles.ROUNDS).stat().st_size > 0


def test_bad_input_exits_2_with_one_line(project: Path):
    (project / "configs/experiment.yaml").write_text("run_id: [unclosed\n")
    result = _run("run", "configs/experiment.yaml", cwd=project)
    assert result.returncode == 2
    assert result.stderr.startswith("error: configs/experiment.yaml: line ")
    assert len(result.stderr.splitlines()) == 1
    assert not (project / "data").exists()
