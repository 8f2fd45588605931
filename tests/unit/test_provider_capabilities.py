"""What a provider can do is declared once, on its spec: a provider registered with batch
mode, reasoning models, its params, its key and its maker's words is taken by every check
that reads them, with no other change."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pdbench.arena.diversity_config import EmbeddingConfig
from pdbench.arena.leaks import LeakRule
from pdbench.config.providers import ProviderAccessConfig
from pdbench.providers.base import (
    PROVIDERS,
    ProviderSpec,
    key_problem,
    providers_with,
    sdk_packages,
)
from pdbench.providers.params import param_types
from pydantic import ValidationError

ACME = ProviderSpec(
    name="acme",
    factory="pdbench.providers.mock:build",
    sdk_module="acme_sdk_that_is_not_installed",
    key_env="ACME_API_KEY",
    batch=True,
    reasoning=True,
    params={"seed": int},
    vendor_words=("Acme Labs",),
)


@pytest.fixture
def acme(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProviderSpec]:
    monkeypatch.setitem(PROVIDERS, "acme", ACME)
    param_types.cache_clear()
    yield ACME
    param_types.cache_clear()


def test_the_shipped_providers_declare_what_they_can_do() -> None:
    assert providers_with("batch") == ("openai", "anthropic", "mock")
    assert providers_with("reasoning") == ("openai", "litellm")
    assert providers_with("thinking") == ("anthropic",)
    assert providers_with("embedder") == ("openai", "litellm", "mock")
    assert sdk_packages() == ("openai", "anthropic", "litellm")


def test_a_new_provider_with_batch_and_reasoning_is_configured_from_its_spec(acme) -> None:
    config = ProviderAccessConfig(
        provider="acme", model="acme-1", batch=True, reasoning=True, params={"seed": 3}
    )
    assert config.is_reasoning_model and config.batch and config.params == {"seed": 3}
    with pytest.raises(ValidationError, match=r"unknown parameter 'top_p' for provider acme"):
        ProviderAccessConfig(provider="acme", model="acme-1", params={"top_p": 0.5})


def test_the_refusals_name_the_new_provider_among_those_that_can(acme) -> None:
    with pytest.raises(ValidationError, match="applies to providers openai, anthropic, acme, mock"):
        ProviderAccessConfig(provider="litellm", model="m", batch=True)
    with pytest.raises(ValidationError, match="applies to providers openai, litellm and acme"):
        ProviderAccessConfig(provider="mock", model="m", reasoning=True)
    with pytest.raises(ValidationError, match="acme has no embedding endpoint"):
        EmbeddingConfig(provider="acme", model="acme-embed")


def test_its_key_its_sdk_and_its_makers_words_come_from_the_spec(
    acme, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "acme_sdk_that_is_not_installed" in sdk_packages()
    monkeypatch.setitem(PROVIDERS, "acme", ProviderSpec(**{**_fields(ACME), "sdk_module": None}))
    monkeypatch.delenv("ACME_API_KEY", raising=False)
    settings = ProviderAccessConfig(provider="acme", model="acme-1")
    assert "ACME_API_KEY" in (key_problem("acme", settings=settings) or "")
    monkeypatch.setenv("ACME_API_KEY", "k")
    assert key_problem("acme", settings=settings) is None
    rule = LeakRule.for_players([("p1", "acme", "a1")])
    assert rule.check("Made by Acme Labs, I think.").leaked == ("acme labs",)


def _fields(spec: ProviderSpec) -> dict:
    return {name: getattr(spec, name) for name in ProviderSpec.__dataclass_fields__}
