"""One PD run and one arena run per session, played by the real engine and aggregated by the
real dbt models, for the viewer's tests (which only read them)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.storage.schema import RunFiles
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from tests.conftest import CONFIGS, write_arena, write_experiment
from tests.servers.local import SAFETY_NET_S

APP = Path(cli.STREAMLIT_APP)


def open_page(monkeypatch: pytest.MonkeyPatch, run_dir: Path, key: str, page: str) -> AppTest:
    """The viewer on ``run_dir``, on ``page`` of the radio ``key``, having raised nothing."""
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", "--run-dir", str(run_dir)])
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    at.run()
    at.radio(key=key).set_value(page)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


REPO = Path(__file__).resolve().parents[2]


def _play(config: Path, run_dir: Path) -> Path:
    result = CliRunner().invoke(
        cli.app, ["run", str(config), "--output-dir", str(run_dir), "--overwrite"]
    )
    assert result.exit_code == 0, result.output
    return run_dir


@pytest.fixture(scope="session")
def ui_configs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``configs/`` to write the small experiments into."""
    folder = tmp_path_factory.mktemp("ui") / "configs"
    shutil.copytree(CONFIGS, folder)
    return folder


@pytest.fixture(scope="session")
def pd_run(ui_configs: Path) -> Path:
    """Three conditions (policies, LLM vs policy with invalid replies, LLM vs LLM), two
    replicates, 12 rounds, prompts stored."""
    config = write_experiment(ui_configs, "viewer_pd.yaml", run_id="viewer-pd")
    return _play(config, ui_configs.parent / "runs" / "viewer-pd")


@pytest.fixture(scope="session")
def pd_round_robin_run(ui_configs: Path) -> Path:
    """Three policies in a round robin with self-play, one replicate of 10 rounds: a run with
    evolutionary dynamics."""
    config = write_experiment(
        ui_configs,
        "viewer_round_robin.yaml",
        run_id="viewer-round-robin",
        conditions=[],
        replicates=1,
        horizon={"type": "fixed", "n": 10},
        round_robin={"agents": ["ALLC", "ALLD", "TFT"], "self_play": True},
        metrics={"evolution": {"generations": 20, "population": 5, "repetitions": 100}},
    )
    # apart from the runs the sidebar test lists
    return _play(config, ui_configs.parent / "round_robin_runs" / "viewer-round-robin")


@pytest.fixture(scope="session")
def pd_noisy_round_robin_run(ui_configs: Path) -> Path:
    """Five policies in a round robin with 5% execution noise, four replicates of 30 rounds:
    standings whose means have intervals (the Overview's screenshot)."""
    config = write_experiment(
        ui_configs,
        "viewer_noisy_round_robin.yaml",
        run_id="viewer-noisy-round-robin",
        conditions=[],
        replicates=4,
        noise=0.05,
        horizon={"type": "fixed", "n": 30},
        round_robin={"agents": ["ALLC", "ALLD", "TFT", "GRIM", "WSLS"], "self_play": False},
    )
    # apart from the runs the sidebar test lists
    return _play(config, ui_configs.parent / "round_robin_runs" / "viewer-noisy-round-robin")


@pytest.fixture(scope="session")
def arena_run(ui_configs: Path) -> Path:
    """Three mock players, three questions each (one a trick), a small bootstrap."""
    config = write_arena(
        ui_configs,
        "viewer_arena.yaml",
        players=3,
        run_id="viewer-arena",
        self_assessment=True,
        tricks={"share": 0.34},
        diversity={"near_duplicate": 0.9},
        bootstrap={"n": 30},
        anomaly={"permutations": 30},
    )
    return _play(config, ui_configs.parent / "runs" / "viewer-arena")


@pytest.fixture(scope="session")
def arena_roles_run(ui_configs: Path) -> Path:
    """Two players, a judge-only referee and an answerer-only participant."""
    entries = [("p0", "player", 0.9), ("ref", "judge", 1.0), ("p1", "player", 0.5),
               ("ans", "answerer", 0.7)]  # fmt: skip
    config = write_arena(
        ui_configs,
        "viewer_arena_roles.yaml",
        players=[
            {
                "ref": "agents/arena_player.yaml",
                "overrides": {"name": name, "role": role, "mock": {"answer_skill": skill}},
            }
            for name, role, skill in entries
        ],
        run_id="viewer-arena-roles",
        bootstrap={"n": 30},
        anomaly={"permutations": 30},
    )
    # apart from the runs the sidebar test lists
    return _play(config, ui_configs.parent / "runs_roles" / "viewer-arena-roles")


def _import(run_dir: Path, *args: str) -> Path:
    result = CliRunner().invoke(cli.app, ["import", *args, "--output-dir", str(run_dir)])
    assert result.exit_code == 0, result.output
    return run_dir


@pytest.fixture(scope="session")
def akata_run(ui_configs: Path) -> Path:
    """The Akata et al. excerpt the repository ships, imported as docs/commands.md shows: a
    PD run whose source never recorded attempts, reply validity, prompts or calls."""
    return _import(
        ui_configs.parent / "imported" / "akata_excerpt",
        "csv",
        str(REPO / "tests" / "data" / "import" / "akata_pd_excerpt.csv"),
        "--mapping",
        str(REPO / "configs" / "import" / "akata_pd.yaml"),
    )


@pytest.fixture(scope="session")
def council_run(ui_configs: Path) -> Path:
    """The Language Model Council's sample verdicts imported: a pairwise-only arena run."""
    return _import(
        ui_configs.parent / "imported" / "council",
        "lm-council",
        str(REPO / "tests" / "data" / "lm_council" / "lmc_ei.jsonl"),
    )


@pytest.fixture(scope="session")
def arena_demo_run(ui_configs: Path) -> Path:
    """The arena demo of the README, ``configs/arena.yaml``."""
    return _play(ui_configs / "arena.yaml", ui_configs.parent / "demos" / "arena-demo")


@pytest.fixture(scope="session")
def peerrank_run(ui_configs: Path) -> Path:
    """The PeerRank fixture imported: absolute scores with the name and position arms."""
    run_dir = ui_configs.parent / "imported" / "peerrank"
    fixture = Path(__file__).resolve().parents[1] / "data" / "peerrank"
    result = CliRunner().invoke(
        cli.app, ["import", "peerrank", str(fixture), "--output-dir", str(run_dir)]
    )
    assert result.exit_code == 0, result.output
    return run_dir


@pytest.fixture(scope="session")
def series_run(arena_run: Path, ui_configs: Path) -> Path:
    """A series of three tournaments: copies of the arena run, each its own run_id and start."""
    runs = ui_configs.parent / "series_runs"
    for index in range(3):
        copy = runs / f"season-{index}"
        shutil.copytree(arena_run, copy)
        manifest = json.loads((copy / RunFiles.MANIFEST).read_text())
        manifest["run_id"] = f"season-{index}"
        manifest["started_at"] = f"2026-0{index + 1}-01T00:00:00Z"
        (copy / RunFiles.MANIFEST).write_text(json.dumps(manifest))
    output = ui_configs.parent / "series"
    result = CliRunner().invoke(cli.app, ["leaderboard", str(runs), "--output-dir", str(output)])
    assert result.exit_code == 0, result.output
    return output
