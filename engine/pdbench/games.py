"""The games pdbench plays, registered in one place, and loading a config for any of them.

Adding a game: write its package (a :class:`pdbench.game.Game` subclass, its config model,
its player, its dbt models tagged with its name, its viewer pages) and add it to ``GAMES``
(or, for a game that lives outside pdbench, call :func:`register`).
"""

from __future__ import annotations

import os
from pathlib import Path

from pdbench.arena.game import ArenaGame
from pdbench.config.loader import LoadedConfig, load_file
from pdbench.dbt_build.invoke import add_game_models
from pdbench.errors import RunDirError, unknown
from pdbench.game import Game
from pdbench.pd.game import PDGame
from pdbench.storage.records.files import RUN_RECORDS, RecordFile, RecordSource

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "game_named",
    "load_config",
    "record_sources",
    "records",
    "register",
    "series_game",
    "series_manifests",
]

GAMES: dict[str, Game] = {game.name: game for game in (PDGame(), ArenaGame())}
"""Game name (as ``game:`` in a config and ``game`` in a manifest says) -> the game."""
DEFAULT_GAME = "pd"
"""The game of a config that names none."""


def register(game: Game) -> None:
    """Add ``game`` to the registry (a game that lives outside pdbench's own packages); its
    dbt models are built from its own folder (``marts.dbt_models``)."""
    GAMES[game.name] = game
    if game.marts.dbt_models is not None:
        add_game_models(game.name, game.marts.dbt_models)


def game_named(name: object, *, where: str) -> Game:
    """The game called ``name``; a one-line error naming ``where`` (the manifest) otherwise."""
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise RunDirError(f"{where}: {unknown('game', name, GAMES)}")
    return game


def series_game(folder: Path) -> Game | None:
    """The game whose series ``folder`` is (its ``series.manifest`` is in it); None when
    ``folder`` is no series."""
    for game in GAMES.values():
        if game.series is not None and (folder / game.series.manifest).is_file():
            return game
    return None


def series_manifests() -> list[str]:
    """The files that mark a folder as a series, one per game that has series."""
    return [game.series.manifest for game in GAMES.values() if game.series is not None]


def load_config(path: str | os.PathLike[str]) -> LoadedConfig:
    """Read, resolve and validate the experiment file at ``path``, for the game it names."""
    models = {name: game.config_model for name, game in GAMES.items()}
    return load_file(path, models=models, default=DEFAULT_GAME)


def record_sources() -> tuple[RecordSource, ...]:
    """The records of every game, game by game, then those every run writes: the dbt
    sources of ``dbt_project/models/staging/_sources.yml``."""
    games = tuple(game.records for game in GAMES.values() if game.records is not None)
    return (*games, RUN_RECORDS)


def records() -> dict[str, RecordFile]:
    """Every record a run directory can hold, by name, in the order ``pdbench schema`` lists
    them."""
    return {record.name: record for source in record_sources() for record in source.records}
