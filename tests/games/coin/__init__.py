"""A third game, added by registration only: players call coin flips; a fair coin decides.

It shows what a game is to pdbench (:class:`pdbench.game.Game`): a config model, a play that
writes raw records into a run directory through the shared plumbing, one dbt model (in
``models/``, built from this folder), one viewer page and one command of its own
(``pdbench coin-calls``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer
from pdbench.cli.errors import user_errors
from pdbench.cli.help import command
from pdbench.clock import utc_timestamp
from pdbench.config.base import NAME_PATTERN, Seed, StrictModel
from pdbench.config.loader import LoadedConfig
from pdbench.errors import RunDirError
from pdbench.game import Game, Marts, PlayOptions, RunResult
from pdbench.rng import stream
from pdbench.run.run_dir import manifest_lifecycle, prepare_run_dir
from pdbench.storage.jsonl import JsonlWriter
from pdbench.storage.manifest import new_manifest
from pdbench.storage.run_lock import hold_run_dir
from pydantic import Field

FLIPS = "flips.jsonl"
__all__ = ["CoinConfig", "CoinGame", "add_commands", "render"]


class CoinConfig(StrictModel):
    game: Literal["coin"]
    run_id: str = Field(pattern=NAME_PATTERN)
    seed: Seed
    players: list[str] = Field(min_length=1)
    flips: int = Field(ge=1, le=10_000)
    output_dir: str | None = None

    def run_dir(self, override: str | Path | None = None) -> Path:
        return Path(override or self.output_dir or f"data/runs/{self.run_id}")


class CoinGame(Game):
    name = "coin"
    title = "Coin calls"
    config_model = CoinConfig
    viewer = "tests.games.coin:render"
    commands = "tests.games.coin:add_commands"
    example_config = "configs/coin.yaml"
    marts = Marts(
        dbt_tag="coin",
        first_records=FLIPS,
        required_files=(FLIPS,),
        viewer_marts=("coin_scores.parquet",),
        dbt_models=Path(__file__).parent / "models",
    )

    def play(self, loaded: LoadedConfig, *, options: PlayOptions) -> RunResult:
        config: CoinConfig = loaded.config
        run_dir = config.run_dir(options.output_dir)
        snapshot = config.model_dump(mode="json")
        with hold_run_dir(run_dir, create=True):
            prepare_run_dir(run_dir, overwrite=options.overwrite)
            manifest = new_manifest(run_id=config.run_id, game=self.name, seed=config.seed,
                                    config_path=loaded.path, config=snapshot, metric_params={},
                                    started_at=utc_timestamp())  # fmt: skip
            with (
                JsonlWriter(run_dir / FLIPS) as flips,
                manifest_lifecycle(
                    run_dir, manifest, on_end=lambda _: {"flips": flips.count}
                ) as live,
            ):
                coin = stream(config.seed, "coin")
                for flip in range(config.flips):
                    side = coin.choice("HT")
                    for player in config.players:
                        call = stream(config.seed, "call", player, flip).choice("HT")
                        flips.write({"flip": flip, "player": player, "call": call, "side": side})
        return RunResult(run_dir=run_dir, manifest=live.manifest, counts=live.manifest.counts)


def render(run) -> None:
    import duckdb
    import streamlit as st

    st.header("Scores")
    path = run.run_dir / "coin_scores.parquet"
    st.dataframe(duckdb.sql(f"select * from read_parquet('{path}') order by player").df())


def coin_calls(
    run_dir: Annotated[Path, typer.Argument(help="A coin run directory.")],
) -> None:
    """Each player's right calls, straight from flips.jsonl."""
    with user_errors():
        path = run_dir / FLIPS
        if not path.is_file():
            raise RunDirError(f"{path}: no such file (a coin run directory?)")
        lines = path.read_text(encoding="utf-8").splitlines()
    flips = [json.loads(line) for line in lines]
    for player in sorted({flip["player"] for flip in flips}):
        calls = [flip for flip in flips if flip["player"] == player]
        right = sum(flip["call"] == flip["side"] for flip in calls)
        typer.echo(f"{player}: {right} of {len(calls)} calls right")


def add_commands(app: typer.Typer) -> None:
    command(app, "coin-calls", example_lines=("pdbench coin-calls data/runs/coins",))(coin_calls)
