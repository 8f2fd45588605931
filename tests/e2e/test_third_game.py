"""A third game added by registration only (``tests/games/coin``: its package and one
``register`` line): validated, played, aggregated by its one dbt model and shown by the
viewer through the same commands as the PD and the arena, and given a command of its own,
with no edit to pdbench."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from pdbench import cli, games
from pdbench.dbt_build import invoke
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from tests.games.coin import CoinGame
from tests.servers.local import SAFETY_NET_S
from tests.ui.conftest import APP

CONFIG = """\
game: coin
run_id: coins
seed: 7
players: [ann, bob]
flips: 25
"""


@pytest.fixture
def coin_game(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(games, "GAMES", dict(games.GAMES))
    monkeypatch.setattr(cli, "GAMES", games.GAMES)
    monkeypatch.setattr(invoke, "_game_model_folders", {})
    games.register(CoinGame())
    yield


def _invoke(*args: str):
    return CliRunner().invoke(cli.app, list(args))


def test_a_registered_game_is_validated_played_aggregated_and_shown(
    project: Path, coin_game: None, monkeypatch: pytest.MonkeyPatch
):
    Path("coin.yaml").write_text(CONFIG, encoding="utf-8")
    checked = _invoke("validate", "coin.yaml")
    assert checked.exit_code == 0, checked.stderr
    assert checked.stdout.startswith("ok: coin.yaml (game coin)\n")

    played = _invoke("run", "coin.yaml")
    assert played.exit_code == 0, played.stderr
    run_dir = Path("data/runs/coins")
    assert "run coins completed: 50 flips" in played.stdout
    assert ": 1 table (0 empty)" in played.stdout  # its one model, coin_scores
    assert not [line for line in played.stdout.splitlines() if line.endswith(" rows")]
    where = Path("data/runs/coins").resolve()
    assert played.stdout.rstrip().splitlines()[-1] == (
        f"every page: pdbench ui {where}; one HTML file: pdbench report {where}"
    )

    flips = [json.loads(line) for line in (run_dir / "flips.jsonl").read_text().splitlines()]
    assert len(flips) == 50
    expected = {
        player: sum(f["call"] == f["side"] for f in flips if f["player"] == player) / 25
        for player in ("ann", "bob")
    }
    scores = dict(
        duckdb.sql(
            f"select player, right_rate from read_parquet('{run_dir / 'coin_scores.parquet'}')"
        ).fetchall()
    )
    assert scores == pytest.approx(expected, abs=1e-12)
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert (manifest["game"], manifest["status"]) == ("coin", "completed")

    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", "--run-dir", str(run_dir)])
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Coin calls" in caption.value for caption in at.caption)
    (table,) = at.dataframe
    assert list(table.value["player"]) == ["ann", "bob"]
    assert list(table.value["n_right"]) == [
        round(expected["ann"] * 25),
        round(expected["bob"] * 25),
    ]


def test_an_unknown_game_in_a_run_directory_is_one_line(project: Path, coin_game: None):
    Path("coin.yaml").write_text(CONFIG, encoding="utf-8")
    assert _invoke("run", "coin.yaml", "--no-aggregate").exit_code == 0
    games.GAMES.pop("coin")
    result = _invoke("aggregate", "data/runs/coins")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert result.stderr.endswith(
        "data/runs/coins/run_manifest.json: unknown game 'coin' (known: pd, arena)\n"
    )
    assert result.stderr.count("\n") == 1


def test_a_registered_game_adds_its_own_command(project: Path, coin_game: None):
    Path("coin.yaml").write_text(CONFIG, encoding="utf-8")
    assert _invoke("run", "coin.yaml", "--no-aggregate").exit_code == 0
    assert "coin-calls" not in [c.name for c in cli.app.registered_commands]
    app = cli.build_app()
    names = [c.name for c in app.registered_commands]
    # the games' own commands follow aggregate, in the registry's order (pd, arena, coin)
    assert names[names.index("aggregate") :][:6] == [
        "aggregate", "compare", "compare-runs", "leaderboard", "audience", "coin-calls",
    ]  # fmt: skip
    runner = CliRunner()
    listed = runner.invoke(app, ["-h"], env={"COLUMNS": "200"})
    (line,) = [line for line in listed.stdout.splitlines() if "│ coin-calls " in line]
    assert " ".join(line.split()[2:]) == "Each player's right calls, straight from flips.jsonl. │"
    helped = runner.invoke(app, ["coin-calls", "-h"], env={"COLUMNS": "200"})
    assert helped.exit_code == 0
    assert "pdbench coin-calls data/runs/coins" in helped.stdout.split("Examples:", 1)[1]

    called = runner.invoke(app, ["coin-calls", "data/runs/coins"])
    assert called.exit_code == 0, called.stderr
    flips = [
        json.loads(line) for line in Path("data/runs/coins/flips.jsonl").read_text().splitlines()
    ]
    right = {
        player: sum(f["call"] == f["side"] for f in flips if f["player"] == player)
        for player in ("ann", "bob")
    }
    assert called.stdout == (
        f"ann: {right['ann']} of 25 calls right\nbob: {right['bob']} of 25 calls right\n"
    )

    missing = runner.invoke(app, ["coin-calls", "nowhere"])
    assert missing.exit_code == 2
    assert missing.stderr == "error: nowhere/flips.jsonl: no such file (a coin run directory?)\n"
