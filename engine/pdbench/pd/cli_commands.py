"""The PD's own commands of ``pdbench`` (:attr:`pdbench.game.Game.commands`): ``compare``
(two conditions of a run) and ``compare-runs`` (several runs side by side)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pdbench.cli.errors import user_errors
from pdbench.cli.help import command
from pdbench.errors import RunDirError
from pdbench.storage.manifest import read_manifest

__all__ = ["ComparedMetrics", "ComparedRuns", "add_commands"]

ComparedRuns = Annotated[
    list[Path],
    typer.Argument(
        metavar="RUN_DIR...",
        help="PD run directories, aggregated (played or imported), side by side.",
    ),
]
ComparedMetrics = Annotated[
    list[str] | None,
    typer.Option(
        "--metric",
        metavar="METRIC",
        help="A metric of aggregates.parquet, e.g. payoff_per_round_a (repeat for several; "
        "default: cooperation_rate_a).",
    ),
]


def compare(
    run_dir: Annotated[Path, typer.Argument(help="A PD run directory, aggregated.")],
    first: Annotated[str, typer.Argument(help="A condition of the run.")],
    second: Annotated[str, typer.Argument(help="Another condition, compared with the first.")],
) -> None:
    """Compare two conditions of a PD run: each metric's paired difference (first minus
    second) with its 95% interval, p and BH-adjusted p, a verdict, and the fallback moves."""
    from pdbench.pd.compare import compare_lines

    with user_errors():
        manifest = read_manifest(run_dir)
        if manifest.game != "pd":
            raise RunDirError(f"{run_dir}: compare reads a PD run; this one is {manifest.game}")
        lines = compare_lines(run_dir, first, second)
    for line in lines:
        typer.echo(line)


def compare_runs(run_dirs: ComparedRuns, metric: ComparedMetrics = None) -> None:
    """Several PD runs side by side (e.g. a study's imported games and a new model on its
    replicate config): each condition's means with 95% intervals, matched by condition."""
    from pdbench.pd.compare_runs import compare_runs_lines

    with user_errors():
        lines = compare_runs_lines(run_dirs, metric or [])
    for line in lines:
        typer.echo(line)


def add_commands(app: typer.Typer) -> None:
    """Add ``compare`` and ``compare-runs`` to ``app``."""
    command(
        app,
        "compare",
        example_lines=("pdbench compare data/runs/demo cooperative_llm_vs_alld tft_vs_alld",),
    )(compare)
    command(
        app,
        "compare-runs",
        example_lines=(
            "pdbench compare-runs data/runs/gpt35t data/runs/fontana_urnd "
            "--metric cooperation_rate_a",
        ),
    )(compare_runs)
