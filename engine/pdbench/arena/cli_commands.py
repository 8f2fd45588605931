"""The arena's own command of ``pdbench`` (:attr:`pdbench.game.Game.commands`):
``leaderboard``, its players ranked across tournaments (a series, :mod:`pdbench.arena.series`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pdbench.cli_errors import err, one_line, user_errors
from pdbench.cli_help import command

__all__ = ["add_commands"]


def leaderboard(
    sources: Annotated[
        list[Path],
        typer.Argument(
            help="Arena run directories, or folders holding them (every arena run inside)."
        ),
    ],
    output_dir: Annotated[
        Path, typer.Option(help="Folder of the series' files and marts (rebuilt each time).")
    ] = Path("data/leaderboard"),
) -> None:
    """Rank arena players across tournaments: each one's adjusted score, trend and consistency."""
    from pdbench.arena.series import build_series, summary_lines

    with user_errors():
        series = build_series(sources, output_dir)
    for line in series.skipped:
        err(f"skipped {one_line(line)}")
    for line in summary_lines(series):
        typer.echo(line)


def add_commands(app: typer.Typer) -> None:
    """Add ``leaderboard`` to ``app``."""
    command(
        app,
        "leaderboard",
        example_lines=("pdbench leaderboard data/runs --output-dir data/leaderboard",),
    )(leaderboard)
