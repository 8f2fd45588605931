"""A misspelt key or name gets the closest valid one ("did you mean"), in one line naming
the file and the field; a missing ref says what its path was resolved against."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pdbench.errors import ConfigError, unknown
from pdbench.games import load_config

from tests.conftest import edit, write_experiment

EXPERIMENT = "configs/experiment.yaml"
ARENA = "configs/arena.yaml"


def _error(path: str | Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_misspelt_top_level_key(project: Path):
    edit(project / EXPERIMENT, "replicates: 2", "replicatse: 2")
    assert _error(EXPERIMENT) == (
        f"{EXPERIMENT}: replicatse: unknown key; did you mean 'replicates'?"
    )


def test_a_misspelt_key_in_a_tagged_union_beats_the_missing_key_it_causes(project: Path):
    edit(project / EXPERIMENT, "stop_prob: 0.05", "stop_prb: 0.05")
    assert _error(EXPERIMENT).startswith(
        f"{EXPERIMENT}: horizon.stop_prb: unknown key; did you mean 'stop_prob'?"
    )


def test_a_misspelt_key_in_an_override(project: Path):
    edit(project / EXPERIMENT, "overrides: {policy: TFT}", "overrides: {polcy: TFT}")
    assert _error(EXPERIMENT) == (
        f"{EXPERIMENT}: conditions[0].agent_a.polcy: unknown key; did you mean 'policy'?"
    )


def test_a_misspelt_key_in_a_referenced_file_names_that_file(project: Path):
    edit(project / "configs/agents/llm_default.yaml", "max_tokens: 16", "max_tokns: 16")
    message = _error(EXPERIMENT)
    assert message.startswith(
        "configs/agents/llm_default.yaml: max_tokns: unknown key; did you mean 'max_tokens'?"
    )


def test_an_arena_player_key(project: Path):
    edit(project / ARENA, "      name: ember\n", "      name: ember\n      modle: x\n")
    assert _error(ARENA) == f"{ARENA}: players[4].modle: unknown key; did you mean 'model'?"


def test_a_key_like_no_other_gets_no_guess(project: Path):
    edit(project / EXPERIMENT, "replicates: 2", "replicates: 2\nzzz: 1")
    assert _error(EXPERIMENT) == f"{EXPERIMENT}: zzz: unknown key"


def test_a_misspelt_condition_in_comparisons(project: Path):
    path = write_experiment(
        project / "configs",
        comparisons=[["tft_vs_alld", "tft_vs_aldl"]],
    )
    message = _error(path)
    assert message.startswith("configs/small.yaml: comparisons: unknown condition 'tft_vs_aldl'")
    assert message.endswith("; did you mean 'tft_vs_alld'?")


def test_a_missing_ref_says_what_it_was_resolved_against(project: Path, tmp_path: Path):
    # a config copied away from its agents/ folder
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(project / EXPERIMENT, elsewhere / "experiment.yaml")
    assert _error("elsewhere/experiment.yaml") == (
        "elsewhere/experiment.yaml: conditions[0].agent_a.ref: file not found: "
        "agents/policies.yaml (resolved against elsewhere/, the folder of "
        "elsewhere/experiment.yaml: elsewhere/agents/policies.yaml)"
    )


def test_unknown_guesses_only_a_close_name():
    assert unknown("condition", "tft_vs_aldd", ["tft_vs_alld", "grim_vs_tft"]) == (
        "unknown condition 'tft_vs_aldd' (known: tft_vs_alld, grim_vs_tft); "
        "did you mean 'tft_vs_alld'?"
    )
    assert unknown("game", "chess", ["pd", "arena"]) == "unknown game 'chess' (known: pd, arena)"
    many = [f"{word}_{i}" for word in ("atlas", "borealis", "cirrus", "dynamo") for i in range(5)]
    assert unknown("player", "borealls_3", many).endswith("; did you mean 'borealis_3'?")
