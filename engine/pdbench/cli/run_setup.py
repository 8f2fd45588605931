"""What ``pdbench run`` says before it plays: the executor ``--executor`` names, the plan of
``--dry-run`` and what the run would do with its directory, and that a completed run of the
same config is already there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError
from pdbench.game import Game
from pdbench.run.executors import Executor, parse_executor
from pdbench.run.run_dir import finished_run
from pdbench.storage.manifest import canonical_sha256

__all__ = ["executor", "existing", "print_plan", "report_finished"]


def executor(
    game: Game, loaded: LoadedConfig, text: str | None, *, chunk_rounds: int | None
) -> Executor | None:
    """The executor ``--executor`` names, if the game can play ``loaded`` on it."""
    executor = parse_executor(text)
    if executor is not None:
        game.check_executor(loaded)
    elif chunk_rounds is not None:
        raise ConfigError("--chunk-rounds applies only with --executor dask://...")
    return executor


def print_plan(
    game: Game, loaded: LoadedConfig, *, run_dir: Path, overwrite: bool, resume: bool
) -> None:
    """What ``--dry-run`` prints: what the run would write, what it would do with ``run_dir``
    as it is now, then the game's plan."""
    headline, *lines = game.plan_lines(loaded, run_dir=run_dir)
    typer.echo(headline)
    typer.echo(existing(run_dir, loaded.config, overwrite=overwrite, resume=resume))
    for line in lines:
        typer.echo(line)


def existing(run_dir: Path, config: Any, *, overwrite: bool, resume: bool) -> str:
    """What a real run would do with ``run_dir`` as it is now (for ``--dry-run``)."""
    if not run_dir.exists():
        return f"{run_dir}: does not exist yet; the run creates it"
    if resume:
        return f"{run_dir}: exists; --resume continues it"
    if overwrite:
        return f"{run_dir}: exists; --overwrite replaces it"
    if finished_run(run_dir, config_sha256=canonical_sha256(config.model_dump(mode="json"))):
        return f"{run_dir}: holds this run, completed; the run would only say so"
    return f"{run_dir}: exists with another run or config; the run needs --overwrite or --resume"


def report_finished(run_dir: Path, config: Any) -> bool:
    """Say so and return True when ``run_dir`` holds a completed run of this very config."""
    manifest = finished_run(run_dir, config_sha256=canonical_sha256(config.model_dump(mode="json")))
    if manifest is None:
        return False
    typer.echo(
        f"run {manifest.run_id} is already complete in {run_dir} (same config; finished "
        f"{manifest.finished_at}); nothing to play. Metrics: pdbench aggregate {run_dir}; "
        "play it again: --overwrite"
    )
    return True
