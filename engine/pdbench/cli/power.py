"""``pdbench power``: the size of a study that detects a difference of a given size, found by
simulating the analysis pdbench runs, and what that study costs. Every game with a planner
(:attr:`pdbench.game.Game.power`) answers for its own configs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pdbench.cli.errors import err, user_errors
from pdbench.errors import ConfigError
from pdbench.game import imported
from pdbench.games import GAMES, load_config
from pdbench.power.text import PowerRequest

__all__ = ["power"]


def power(
    config: Annotated[Path, typer.Argument(help="The experiment YAML file (PD or arena).")],
    effect: Annotated[
        float,
        typer.Option(
            "--effect",
            help="The difference to detect, in the metric's unit: 0.1 is 10 pp of a rate "
            "(PD, first minus second of each compared pair); score points of 0-10, or Elo "
            "points with --metric elo (arena).",
        ),
    ],
    metric: Annotated[
        str | None,
        typer.Option(
            "--metric",
            help="PD: a compared metric, e.g. cooperation_rate_a (the default); arena: score "
            "(the default) or elo.",
        ),
    ] = None,
    target_power: Annotated[
        float, typer.Option("--power", help="The power to reach, between 0 and 1.")
    ] = 0.8,
    alpha: Annotated[
        float,
        typer.Option(
            help="The level a difference must pass after Benjamini-Hochberg (PD); the arena "
            "reads the run's 95% intervals."
        ),
    ] = 0.05,
    pilot: Annotated[
        Path | None,
        typer.Option(
            help="An aggregated pilot run of the config: its per-replicate (or per-question) "
            "values replace the config's agents played."
        ),
    ] = None,
    simulations: Annotated[
        int | None,
        typer.Option(
            "--simulations",
            "--seeds",
            min=20,
            help="Simulated studies per size (the Monte-Carlo error falls as 1/sqrt); "
            "default 2000, 400 for the arena's --metric elo (each refits the bootstrap).",
        ),
    ] = None,
    pool: Annotated[
        int | None,
        typer.Option(
            min=6,
            help="Replicates per condition (PD, default 2000) or questions per player "
            "(arena, default the config's, at least 30) the config's agents play once to "
            "draw the simulations from.",
        ),
    ] = None,
) -> None:
    """Plan a study: the replicates per condition (PD) or questions per player (arena) that
    detect a difference of --effect with --power, by simulating the analysis pdbench runs
    (PD: paired sign-flip test, Benjamini-Hochberg in the metric's family; arena: disjoint
    95% intervals of the leaderboard or of the Bradley-Terry Elo), and the run's cost."""
    request = PowerRequest(
        effect=effect,
        metric=metric,
        power=target_power,
        alpha=alpha,
        simulations=simulations,
        pool=pool,
    )
    with user_errors():
        loaded = load_config(config)
        game = GAMES[loaded.config.game]
        if not game.power:
            raise ConfigError(f"game {game.name} has no power planner", path=loaded.path)
        lines = imported(game.power)(loaded, request, pilot=pilot, on_line=err)
    for line in lines:
        typer.echo(line)
