"""The dry-run estimate of a model that reasons: its whole reasoning budget on every call,
priced as output."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench.arena.plan import estimate_arena
from pdbench.games import load_config
from pdbench.pd.estimate import estimate_calls
from pdbench.pd.plan import plan_matches
from pdbench.run.estimate import ModelEstimate

from tests.conftest import write_arena, write_experiment

PRICES = {
    "o3-mini": {"input_per_mtok": 1.0, "output_per_mtok": 4.0},
    "claude-sonnet-4-6": {"input_per_mtok": 3.0, "output_per_mtok": 15.0},
}


def pd_estimate(project: Path, **agent: object) -> tuple[ModelEstimate, list[str]]:
    """The estimate of 5 fixed rounds of one LLM agent (``agent``) against TFT."""
    path = write_experiment(
        project / "configs",
        replicates=1,
        horizon={"type": "fixed", "n": 5},
        prices=PRICES,
        conditions=[
            {
                "name": "llm_vs_tft",
                "agent_a": {"ref": "agents/llm_default.yaml", "overrides": agent},
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            }
        ],
    )
    loaded = load_config(path)
    estimate = estimate_calls(loaded, plans=plan_matches(loaded.config))
    (model,) = estimate.models.values()
    return model, estimate.lines()


def test_a_reasoning_model_may_spend_its_budget_on_every_call(project: Path):
    model, printed = pd_estimate(project, provider="openai", model="o3-mini")
    # max_completion_tokens = 16 + 4096 per call
    assert (model.calls, model.tokens_out_max, model.tokens_reasoning_max) == (5, 20560, 20480)
    assert model.cost_usd == pytest.approx((model.tokens_in * 1.0 + 20560 * 4.0) / 1e6)
    assert printed[1].startswith("tokens: ~")
    assert printed[1].endswith(
        " in, at most 20560 out, of which <= 20480 reasoning (prompts counted as characters / 4;"
        " every call reasoning to its whole budget)"
    )
    assert "<= 20560 out, of which <= 20480 reasoning, cost $" in printed[2]


def test_thinking_counts_its_budget(project: Path):
    model, _ = pd_estimate(
        project, provider="anthropic", model="claude-sonnet-4-6", thinking={"budget_tokens": 2048}
    )
    assert (model.tokens_out_max, model.tokens_reasoning_max) == (5 * (16 + 2048), 5 * 2048)


def test_a_chat_model_is_estimated_as_before(project: Path):
    model, printed = pd_estimate(project, provider="openai", model="gpt-4o-mini")
    assert (model.tokens_out_max, model.tokens_reasoning_max) == (5 * 16, 0)
    assert printed[1].endswith(" in, at most 80 out (prompts counted as characters / 4)")


def test_the_arena_estimate_counts_the_reasoning_budget_in_every_phase(project: Path):
    def estimate(model: str, **reasoning: object) -> ModelEstimate:
        players = [
            {"ref": "agents/arena_player.yaml", "overrides": {"name": "p0"}},
            {"ref": "agents/arena_player.yaml", "overrides": {"name": "p1"}},
            {
                "ref": "agents/arena_player.yaml",
                "overrides": {"name": "p2", "provider": "openai", "model": model,
                              "base_url": "http://127.0.0.1:9/v1", **reasoning},
            },
        ]  # fmt: skip
        loaded = load_config(write_arena(project / "configs", players=players))
        return estimate_arena(loaded).models[f"openai/{model}"]

    plain = estimate("gpt-4o-mini")
    reasoning = estimate("o4-mini", reasoning_budget_tokens=100)
    assert plain.calls == reasoning.calls > 0 and plain.tokens_reasoning_max == 0
    # every call of p2, in every phase, may reason 100 tokens on top of the phase's max_tokens
    assert reasoning.tokens_reasoning_max == 100 * reasoning.calls
    assert reasoning.tokens_out_max == plain.tokens_out_max + 100 * reasoning.calls
