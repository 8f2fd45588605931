"""The Strategies page of a run whose agents stated their strategies: it names the agent that
says one thing and plays another, and only that one (configs/stated_strategies.yaml: a mock
that plays GRIM and states ALLC, and one that plays TFT and says so)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench.aggregate import aggregate_run
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment

from tests.conftest import CONFIGS
from tests.ui.conftest import open_page


@pytest.fixture(scope="module")
def stated_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stated_page")
    result = run_experiment(
        load_config(CONFIGS / "stated_strategies.yaml"), output_dir=folder / "stated"
    )
    aggregate_run(result.run_dir)
    return result.run_dir


def test_the_strategies_page_names_the_agent_that_plays_otherwise_than_it_states(
    stated_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(monkeypatch, stated_run, "pd_page", "Strategies")
    # the names are escaped Markdown: shown as written, never read as markup
    warnings = [warning.value.replace("\\", "") for warning in at.warning]
    assert "grim-says-allc plays otherwise than it states in cd, dc, dd" in warnings
    assert not any("tft-says-tft" in warning for warning in warnings)
    tables = [frame.value for frame in at.dataframe]
    stated = next(table for table in tables if "stated_p" in table.columns)
    assert len(stated) == 10  # two agents, five states each
    earned = next(table for table in tables if "stated_points_per_round" in table.columns)
    assert earned["agent_name"].tolist() == ["grim-says-allc", "tft-says-tft"]
