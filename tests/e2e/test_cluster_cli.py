"""``pdbench run --executor``: every bad input ends in one line and exit code 2, before the
run directory is created."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import dask
import pytest
from pdbench import cli
from typer.testing import CliRunner

from tests.conftest import write_experiment

runner = CliRunner()
POLICIES = {"agents": ["TFT", "ALLD"], "self_play": False}


def _refused(*args: str) -> str:
    result = runner.invoke(cli.app, ["run", *args, "--no-aggregate"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert not Path("data").exists(), "a refused run left a run directory behind"
    return lines[0]


def _policies(project: Path) -> str:
    return str(write_experiment(project / "configs", conditions=[], round_robin=POLICIES))


@pytest.mark.parametrize(
    "url", ["dask:/x", "tcp://127.0.0.1:8786", "dask://host", "dask://h:99999"]
)
def test_a_bad_executor_url_is_one_line(project: Path, url: str) -> None:
    line = _refused(_policies(project), "--executor", url)
    assert f"--executor {url!r}" in line and "dask://<host>:<port>" in line


def test_an_unreachable_scheduler_is_one_line(project: Path) -> None:
    # distributed's config defaults must be loaded before one of them is set here: leaving
    # the block would otherwise drop the whole `distributed` section it created
    importlib.import_module("distributed")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        line = _refused(_policies(project), "--executor", "dask://127.0.0.1:9")
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9 within 1 s" in line


def test_without_distributed_the_error_says_what_to_install(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    line = _refused(_policies(project), "--executor", "dask://127.0.0.1:9")
    assert "needs the distributed package: pip install 'pdbench[cluster]'" in line


def test_llm_agents_and_the_arena_are_refused_on_an_executor(project: Path) -> None:
    line = _refused("configs/experiment.yaml", "--executor", "dask://127.0.0.1:9")
    assert "--executor plays policy-only configs" in line and "agent_a" in line
    line = _refused("configs/arena.yaml", "--executor", "dask://127.0.0.1:9")
    assert "--executor does not apply to game arena" in line


def test_chunk_rounds_without_an_executor_is_one_line(project: Path) -> None:
    line = _refused(_policies(project), "--chunk-rounds", "1000")
    assert "--chunk-rounds applies only with --executor" in line
