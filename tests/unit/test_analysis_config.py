"""The config's ``analysis.primary``: the primary family of the comparisons' correction."""

from pathlib import Path

import pytest
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.metric_catalogue import load_game_catalogue
from pdbench.pd.analysis import DEFAULT_PRIMARY, comparable_metrics

from tests.conftest import write_experiment


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_without_the_key_the_primary_family_is_the_cooperation_of_each_seat(project: Path):
    config = load_config(write_experiment(project / "configs")).config
    assert config.analysis.primary == ["cooperation_rate_a", "cooperation_rate_b"]
    assert DEFAULT_PRIMARY == ("cooperation_rate_a", "cooperation_rate_b")


def test_the_primary_metrics_are_read_and_kept_in_the_snapshot(project: Path):
    path = write_experiment(
        project / "configs", analysis={"primary": ["payoff_per_round_a", "cooperation_rate"]}
    )
    config = load_config(path).config
    assert config.analysis.primary == ["payoff_per_round_a", "cooperation_rate"]
    dumped = config.model_dump(mode="json")
    assert dumped["analysis"] == {"primary": ["payoff_per_round_a", "cooperation_rate"]}


def test_an_unknown_metric_is_refused_in_one_line_naming_file_and_field(project: Path):
    path = write_experiment(project / "configs", analysis={"primary": ["cooperation_rat_a"]})
    message = _error(path)
    assert message.startswith(
        "configs/small.yaml: analysis.primary: unknown metric 'cooperation_rat_a' ("
    )
    assert message.endswith("did you mean 'cooperation_rate_a'?")


def test_a_metric_without_an_interval_is_not_comparable(project: Path):
    # n_fallback_moves has no interval: comparisons.parquet never holds it
    assert "n_fallback_moves_a" not in comparable_metrics()
    path = write_experiment(project / "configs", analysis={"primary": ["n_fallback_moves_a"]})
    assert "unknown metric 'n_fallback_moves_a'" in _error(path)


def test_an_unknown_key_and_an_empty_family_are_refused(project: Path):
    path = write_experiment(project / "configs", analysis={"primry": ["cooperation_rate_a"]})
    assert _error(path) == (
        "configs/small.yaml: analysis.primry: unknown key; did you mean 'primary'?"
    )
    path = write_experiment(project / "configs", analysis={"primary": []})
    assert _error(path).startswith("configs/small.yaml: analysis.primary: ")


def test_the_comparable_metrics_are_the_catalogue_columns_with_an_interval():
    catalogue = load_game_catalogue("pd_metrics.csv")
    with_interval = {c for m in catalogue.metrics if m.interval != "none" for c in m.columns()}
    assert set(comparable_metrics()) == with_interval
    assert {"cooperation_rate_a", "cooperation_rate_b", "cooperation_rate"} <= with_interval
