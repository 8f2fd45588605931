"""A run whose LLM agent's replies are never valid: its summary states the fallback moves and
invalid attempts beside the numbers they make, and never ranks the seat's cooperation as
behaviour.

``llm_vs_tft``: a mock LLM agent (it would play ALLC) whose every reply is invalid, no retry,
fallback D: 12 of 12 moves a fallback D in each of 2 replicates; TFT against it cooperates
once in 12 rounds (8.3%). ``grim_vs_tft``: both cooperate every round (100%)."""

from __future__ import annotations

import shutil

import pytest
from pdbench.aggregate import AggregateSummary, aggregate_run
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment

from tests.conftest import CONFIGS, write_experiment

_TFT = {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> AggregateSummary:
    folder = tmp_path_factory.mktemp("fallbacks")
    shutil.copytree(CONFIGS, folder, dirs_exist_ok=True)
    config = write_experiment(
        folder,
        name="fallbacks.yaml",
        run_id="fallbacks",
        conditions=[
            {
                "name": "llm_vs_tft",
                "agent_a": {
                    "ref": "agents/llm_default.yaml",
                    "overrides": {
                        "name": "smol",
                        "max_retries": 0,
                        "mock": {"strategy": "ALLC", "invalid_rate": 1.0},
                    },
                },
                "agent_b": _TFT,
            },
            {
                "name": "grim_vs_tft",
                "agent_a": {"ref": "agents/policies.yaml", "overrides": {"policy": "GRIM"}},
                "agent_b": _TFT,
            },
        ],
    )
    result = run_experiment(load_config(config), output_dir=folder / "fallbacks")
    return aggregate_run(result.run_dir)


def test_the_summary_says_the_fallbacks_and_ranks_no_fallback_seat(
    built: AggregateSummary,
) -> None:
    lines = built.text.splitlines()
    assert lines[1] == (
        "Invalid replies and fallback moves: A · smol in llm_vs_tft: 24 of 24 moves (100.0%) "
        "were fallbacks after invalid replies, 100.0% of its attempts invalid (mostly "
        "fallbacks: not ranked as behaviour)."
    )
    cooperation = next(line for line in lines if line.startswith("Highest cooperation"))
    assert "smol" not in cooperation
    assert "Lowest: B · TFT in llm_vs_tft, 8.3%" in cooperation
    assert cooperation.endswith(
        "Not ranked: 1 seat whose moves were mostly fallbacks after invalid replies."
    )
