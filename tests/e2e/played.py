"""A small tournament played end to end through ``pdbench run``, as the arena's end-to-end
tests plant and read it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench import cli
from typer.testing import CliRunner

from tests.conftest import CONFIGS, write_arena

__all__ = ["PlayedArena", "play_arena"]


@dataclass(frozen=True)
class PlayedArena:
    path: Path
    """The config played."""
    run_dir: Path
    stdout: str
    """What ``pdbench run`` printed: the run's summary and the leaderboard."""


def play_arena(folder: Path, **fields: Any) -> PlayedArena:
    """A copy of the repository's configs in ``folder``, an arena config written there with
    ``fields`` (50 bootstrap replicates and 20 permutations unless they say otherwise),
    played and aggregated by ``pdbench run``."""
    shutil.copytree(CONFIGS, folder / "configs")
    settings = {"bootstrap": {"n": 50}, "anomaly": {"permutations": 20}, **fields}
    path = write_arena(folder / "configs", **settings)
    run_dir = folder / "run"
    result = CliRunner().invoke(cli.app, ["run", str(path), "--output-dir", str(run_dir)])
    assert result.exit_code == 0, result.stderr
    return PlayedArena(path=path, run_dir=run_dir, stdout=result.stdout)
