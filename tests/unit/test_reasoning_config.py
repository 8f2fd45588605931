"""Reasoning models, thinking and params in a config: the model table, the override, and one
line for every mistake."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.pd.agent_config import LLMAgentConfig
from pdbench.providers.reasoning import REASONING_MODELS, model_family

from tests.conftest import write_experiment


@pytest.mark.parametrize(
    "model",
    ["o1", "o1-mini", "o1-2024-12-17", "o3-mini", "o3-mini-2025-01-31", "o3", "o4-mini",
     "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-2025-08-07", "gpt-5.1", "GPT-5-Mini",
     "openai/o3-mini", "azure/gpt-5-mini"],
)  # fmt: skip
def test_the_table_knows_reasoning_models_by_prefix(model: str):
    family = model_family(model)
    assert family is not None and family.reasoning


@pytest.mark.parametrize(
    "model",
    ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-5-chat-latest", "o10", "gpt-50", "llama-o1",
     "claude-sonnet-4-6", "meta-llama/Llama-3.1-8B-Instruct", "mock-pd"],
)  # fmt: skip
def test_the_table_leaves_other_models_alone(model: str):
    family = model_family(model)
    assert family is None or not family.reasoning


def test_gpt_5_takes_minimal_effort_and_the_o_series_does_not():
    assert model_family("gpt-5-mini").efforts == ("minimal", "low", "medium", "high")  # type: ignore[union-attr]
    assert "minimal" not in model_family("o4-mini").efforts  # type: ignore[union-attr]


def agent_config(project: Path, name: str = "agent.yaml", **overrides: object) -> Path:
    """An experiment whose only condition pits an LLM agent (``overrides``) against TFT."""
    return write_experiment(
        project / "configs",
        name,
        conditions=[
            {
                "name": "llm_vs_tft",
                "agent_a": {"ref": "agents/llm_default.yaml", "overrides": overrides},
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            }
        ],
    )


def agent(project: Path, **overrides: object) -> LLMAgentConfig:
    return load_config(agent_config(project, **overrides)).config.conditions[0].agent_a


def error(project: Path, **overrides: object) -> str:
    path = agent_config(project, **overrides)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "\n" not in message
    return message.removeprefix(f"{path}: conditions[0].agent_a.")


def test_a_plain_model_adds_nothing_to_its_requests_or_its_cache_key(project: Path):
    plain = agent(project, provider="openai", model="gpt-4o-mini")
    assert (plain.is_reasoning_model, plain.reasoning_budget(), plain.temperature) == (
        False,
        0,
        0.0,
    )
    # the cache keys of configs written before reasoning models existed do not change
    assert plain.request_settings() == {}


def test_a_reasoning_model_samples_at_temperature_one_with_a_warning(project: Path):
    path = agent_config(project, provider="openai", model="o3-mini", reasoning_effort="high")
    loaded = load_config(path)
    reasoning = loaded.config.conditions[0].agent_a
    assert reasoning.is_reasoning_model and reasoning.temperature == 1.0
    assert reasoning.reasoning_budget() == 4096
    assert reasoning.request_settings() == {"reasoning": {"effort": "high", "budget_tokens": 4096}}
    assert loaded.warnings == [
        f"{path}: temperature: o3-mini samples at temperature 1 only (a reasoning model): "
        "0 becomes 1"
    ]


def test_one_warning_for_one_agent_file_referenced_twice(project: Path):
    overrides = {"provider": "openai", "model": "gpt-5-mini"}
    path = write_experiment(
        project / "configs",
        conditions=[
            {
                "name": f"llm_{i}",
                "agent_a": {"ref": "agents/llm_default.yaml", "overrides": overrides},
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            }
            for i in range(2)
        ],
    )
    assert len(load_config(path).warnings) == 1


def test_temperature_one_needs_no_warning(project: Path):
    path = agent_config(project, provider="openai", model="gpt-5", temperature=1)
    assert load_config(path).warnings == []


def test_the_override_beats_the_table(project: Path):
    chat = agent(project, provider="openai", model="o3-mini", reasoning=False)
    assert not chat.is_reasoning_model and chat.temperature == 0.0
    local = agent(
        project,
        provider="openai",
        model="deepseek-r1",
        base_url="http://localhost:8000/v1",
        reasoning=True,
        reasoning_budget_tokens=1000,
    )
    assert local.is_reasoning_model and local.reasoning_budget() == 1000


def test_thinking_budget_and_temperature(project: Path):
    claude = agent(
        project, provider="anthropic", model="claude-sonnet-4-6", thinking={"budget_tokens": 2048}
    )
    assert (claude.temperature, claude.reasoning_budget()) == (1.0, 2048)
    assert claude.request_settings() == {"thinking": {"budget_tokens": 2048}}


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (
            {"provider": "openai", "model": "gpt-4o-mini", "reasoning_effort": "low"},
            "reasoning_effort: applies to reasoning models only, and the model table does not "
            "list gpt-4o-mini as one (set reasoning: true if it is)",
        ),
        (
            {"provider": "openai", "model": "o3-mini", "reasoning_effort": "minimal"},
            "reasoning_effort: o3-mini takes low, medium, high, not 'minimal'",
        ),
        (
            {"provider": "openai", "model": "o3-mini", "reasoning_effort": "max"},
            "reasoning_effort: Input should be 'minimal', 'low', 'medium' or 'high' (got 'max')",
        ),
        (
            {"provider": "openai", "model": "o3", "reasoning": False, "reasoning_budget_tokens": 9},
            "reasoning_budget_tokens: applies to reasoning models only, and reasoning is false",
        ),
        (
            {"provider": "anthropic", "model": "claude-sonnet-4-6", "reasoning": True},
            "reasoning: applies to providers openai and litellm only, not anthropic "
            "(Anthropic's reasoning is thinking: {budget_tokens: N})",
        ),
        (
            {"provider": "anthropic", "model": "claude-sonnet-4-6", "reasoning_effort": "low"},
            "reasoning_effort: applies to providers openai and litellm only, not anthropic",
        ),
        (
            {"provider": "openai", "model": "gpt-5", "thinking": {"budget_tokens": 2048}},
            "thinking: applies to provider anthropic only, not openai",
        ),
        (
            {"provider": "anthropic", "model": "c", "thinking": {"budget_tokens": 1000}},
            "thinking.budget_tokens: Input should be greater than or equal to 1024 (got 1000)",
        ),
        (
            {"provider": "openai", "model": "gpt-4o", "params": {"logprobs": True}},
            "params: unknown parameter 'logprobs' for provider openai (allowed: extra_body, "
            "frequency_penalty, presence_penalty, seed, stop, top_p)",
        ),
        (
            {"provider": "openai", "model": "gpt-4o", "params": {"max_tokens": 5}},
            "params: 'max_tokens' is set by pdbench, not by params (use max_tokens)",
        ),
        (
            {"provider": "anthropic", "model": "c", "params": {"temperature": 0.2}},
            "params: 'temperature' is set by pdbench, not by params (use temperature)",
        ),
        (
            {"provider": "openai", "model": "o3",
             "params": {"extra_body": {"reasoning_effort": 1}}},
            "params: extra_body: 'reasoning_effort' is set by pdbench, not by params "
            "(use reasoning_effort)",
        ),
        (
            {"provider": "openai", "model": "gpt-4o", "params": {"top_p": 1.5}},
            "params: top_p: Input should be less than or equal to 1 (got 1.5)",
        ),
        (
            {"provider": "openai", "model": "gpt-4o", "params": {"seed": "7"}},
            "params: seed: Input should be a valid integer (got '7')",
        ),
        (
            {"provider": "anthropic", "model": "c", "params": {"seed": 7}},
            "params: unknown parameter 'seed' for provider anthropic (allowed: stop_sequences, "
            "top_k, top_p)",
        ),
        (
            {"provider": "anthropic", "model": "c", "thinking": {"budget_tokens": 1024},
             "params": {"top_k": 5}},
            "params: top_k cannot be used with thinking",
        ),
        (
            {"provider": "anthropic", "model": "c", "thinking": {"budget_tokens": 1024},
             "params": {"top_p": 0.5}},
            "params: top_p must be 0.95 to 1 with thinking",
        ),
        (
            {"provider": "mock", "params": {"seed": 1}},
            "params: unknown parameter 'seed' for provider mock (allowed: none)",
        ),
    ],
)  # fmt: skip
def test_every_mistake_is_one_line_naming_the_field(project: Path, overrides: dict, expected: str):
    assert error(project, **overrides) == expected


def test_params_keep_their_checked_values(project: Path):
    openai_agent = agent(
        project,
        provider="openai",
        model="gpt-4o",
        params={"seed": 3, "top_p": 1, "stop": "\n", "extra_body": {"top_k": 5}},
    )
    assert openai_agent.params == {
        "seed": 3,
        "top_p": 1.0,
        "stop": "\n",
        "extra_body": {"top_k": 5},
    }
    assert openai_agent.request_settings() == {"params": openai_agent.params}


def _docs_page() -> str:
    """The page of the documentation on reasoning models and provider parameters."""
    page = Path(__file__).resolve().parents[2] / "docs" / "reasoning_models.md"
    return page.read_text(encoding="utf-8")


def test_the_docs_examples_validate_as_shown(project: Path):
    section = _docs_page()
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    assert len(blocks) == 3
    for block in blocks:
        overrides = yaml.safe_load(block)["agent_a"]["overrides"]
        loaded = load_config(agent_config(project, **overrides))
        assert loaded.warnings == [], block
    (shown,) = re.findall(r"```\n(error: .*?)\n```", section)
    path = agent_config(project, "experiment.yaml", provider="openai", model="gpt-4o-mini",
                        params={"best_of": 3})  # fmt: skip
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert f"error: {caught.value}" == shown


def test_the_docs_table_is_the_model_table():
    table = _docs_page().split("```yaml", 1)[0]
    shown = {}
    for row in re.findall(r"^\| (`.+)\|$", table, re.M):
        prefixes, _, reasoning, efforts = (cell.strip() for cell in row.split("|"))
        for prefix in re.findall(r"`([^`]+)`", prefixes):
            shown[prefix] = (reasoning == "yes", tuple(re.findall(r"`([^`]+)`", efforts)))
    assert shown == {
        family.prefix: (family.reasoning, family.efforts) for family in REASONING_MODELS
    }
