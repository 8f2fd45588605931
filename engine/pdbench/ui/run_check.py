"""What state a run directory is in, and the command that makes it viewable.

The viewer shows a run only when it has a manifest, raw records and the marts of its game;
otherwise it shows one :class:`RunProblem`: what is wrong and the exact command that fixes
it, never a stack trace. Messages are plain text (they quote a folder's name): the viewer
escapes them before Markdown sees them.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pdbench.errors import RunDirError
from pdbench.games import DEFAULT_GAME, GAMES, game_named
from pdbench.storage.manifest import no_such_run_dir, read_manifest
from pdbench.storage.marts_check import MartsState, aggregate_command, marts_state
from pdbench.storage.schema import RunFiles, RunManifest
from pdbench.storage.shards import record_files

__all__ = ["RunProblem", "ViewableRun", "check_run", "find_runs"]

_EXAMPLE = GAMES[DEFAULT_GAME].example_config
"""The config a hint plays when the run directory does not say which."""


@dataclass(frozen=True)
class RunProblem:
    """Why a run cannot be shown yet, and the command that fixes it."""

    kind: Literal["missing", "not_a_run", "empty", "not_aggregated", "unreadable"]
    message: str
    command: str


@dataclass(frozen=True)
class ViewableRun:
    """A run directory the viewer can show."""

    run_dir: Path
    manifest: RunManifest
    stale: tuple[str, ...] = ()
    """Raw files that changed since the marts were built (:mod:`pdbench.storage.marts_check`):
    the marts are out of date and :attr:`aggregate_command` rebuilds them."""
    build_failure: str | None = None
    """Why the last ``pdbench aggregate`` failed, when it did: the tables shown are older than
    the run (or empty)."""

    @property
    def aggregate_command(self) -> str:
        """The command that rebuilds the marts."""
        return aggregate_command(self.run_dir)

    @property
    def stale_message(self) -> str | None:
        """A line saying the marts are not the run's (older than its raw files, or their last
        build failed), or None when they are (:mod:`pdbench.storage.marts_check`, the check
        ``pdbench report`` and ``compare`` refuse on)."""
        problem = MartsState(self.stale, self.build_failure).problem
        if problem is None:
            return None
        return f"{problem[0].upper()}{problem[1:]}. Rebuild them:"

    @property
    def game(self) -> str:
        return self.manifest.game

    @property
    def run_id(self) -> str:
        return self.manifest.run_id


def _has_content(path: Path) -> bool:
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 16):
            if chunk.strip():
                return True
    return False


def _run_command(config: str, run_dir: Path) -> str:
    return shlex.join(["uv", "run", "pdbench", "run", config, "--output-dir", str(run_dir)])


def check_run(run_dir: Path) -> ViewableRun | RunProblem:
    """Classify ``run_dir``: viewable, or the problem and the command that fixes it."""
    shown = str(run_dir)
    if not run_dir.is_dir():
        return RunProblem(
            "missing",
            f"{no_such_run_dir(run_dir)}. Play a run into it:",
            _run_command(_EXAMPLE, run_dir),
        )
    manifest_path = run_dir / RunFiles.MANIFEST
    if not manifest_path.is_file():
        return RunProblem(
            "not_a_run",
            f"{shown} is not a run directory (it has no {RunFiles.MANIFEST}). Play a run into it:",
            _run_command(_EXAMPLE, run_dir) + " --overwrite",
        )
    try:
        manifest = read_manifest(run_dir)
        game = game_named(manifest.game, where=RunFiles.MANIFEST)
    except RunDirError as err:
        return RunProblem(
            "unreadable",
            f"The manifest of {shown} cannot be read ({err}). Play the run again:",
            _run_command(_EXAMPLE, run_dir) + " --overwrite",
        )
    config = manifest.config_path or game.example_config
    records = game.marts.first_records
    if not any(
        _has_content(path)
        for name in (records, *game.marts.other_first_records)
        for path in record_files(run_dir, name)
    ):
        return RunProblem(
            "empty",
            f"The run {shown} holds no records yet ({records} is empty or missing; "
            f"status: {manifest.status}). Play it:",
            _run_command(config, run_dir) + " --overwrite",
        )
    missing = [name for name in game.marts.viewer_marts if not (run_dir / name).is_file()]
    if missing:
        return RunProblem(
            "not_aggregated",
            f"The run {shown} has not been aggregated yet (no {missing[0]}). Build its metrics:",
            aggregate_command(run_dir),
        )
    state = marts_state(run_dir)
    return ViewableRun(
        run_dir=run_dir,
        manifest=manifest,
        stale=state.stale,
        build_failure=state.build_failure,
    )


def find_runs(runs_root: Path) -> list[Path]:
    """Run directories (with a manifest) directly under ``runs_root``, newest first."""
    if not runs_root.is_dir():
        return []
    found = [path.parent for path in runs_root.glob(f"*/{RunFiles.MANIFEST}")]
    return sorted(found, key=lambda path: path.stat().st_mtime, reverse=True)
