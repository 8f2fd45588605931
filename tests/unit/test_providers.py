import importlib.util

import pytest
from pdbench.errors import ConfigError
from pdbench.providers.base import PROVIDERS, ProviderClient, make_provider, provider_problem
from pdbench.providers.mock import MockProvider


def test_registered_names():
    assert set(PROVIDERS) == {"mock", "openai", "anthropic", "litellm"}


def test_unknown_provider_is_a_config_error():
    with pytest.raises(ConfigError, match=r"^x.yaml: unknown provider 'gpt' \(known: mock"):
        make_provider("gpt", settings=None, seed=0, where="x.yaml")


def hide_module(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make ``name`` look uninstalled to ``importlib.util.find_spec``."""
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda module, *a: None if module == name else real(module, *a)
    )


def test_a_missing_sdk_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch):
    hide_module(monkeypatch, "litellm")
    assert provider_problem("litellm") == (
        "provider 'litellm' needs the 'litellm' package: uv sync --extra litellm"
    )


def test_the_mock_needs_nothing():
    assert provider_problem("mock") is None


def test_the_mock_is_built_through_the_registry():
    from pdbench.pd.agent_config import LLMAgentConfig

    settings = LLMAgentConfig.model_validate(
        {"type": "llm", "model": "m", "mock": {"strategy": "ALLD", "invalid_rate": 0}},
        context={"root": __import__("tests.conftest").conftest.CONFIGS, "warnings": []},
    )
    provider = make_provider("mock", settings=settings, seed=3)
    assert isinstance(provider, MockProvider)
    assert isinstance(provider, ProviderClient)
    assert provider.complete(system="", prompt="Round 1.", temperature=0, max_tokens=1) == "D"
