"""The provider protocol and the registry that builds providers by name.

A provider has one job: turn a system prompt and a prompt into a reply string, and (as a
hook with a safe default) say whether an exception of its SDK is transient or fatal:
``classify_error(exc) -> Failure`` (:mod:`pdbench.providers.failures`). Everything around the
call (latency, usage, price, the ``calls.jsonl`` record, retries, back-off, the cache and
concurrency limits) lives once, in :mod:`pdbench.providers.gateway`.

Vendor SDKs are optional extras, imported only when a config names their provider; a known
provider whose SDK is missing fails with the command that installs it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pdbench.errors import ConfigError, unknown

__all__ = [
    "PROVIDERS",
    "ProviderClient",
    "ProviderSpec",
    "Usage",
    "key_problem",
    "make_provider",
    "provider_problem",
]


@runtime_checkable
class ProviderClient(Protocol):
    """Anything that completes a prompt. Optional: a ``last_usage: Usage | None`` attribute."""

    def complete(
        self,
        *,
        system: str,
        prompt: str,
        temperature: float,
        max_tokens: int,
    ) -> str: ...


@dataclass(frozen=True, slots=True)
class Usage:
    """What the last call used and how its reply ended, as far as the provider says."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    """Every output token, reasoning or thinking included: what the call is billed for."""
    cost_usd: float | None = None
    tokens_reasoning: int | None = None
    """The part of ``tokens_out`` spent reasoning (OpenAI) or thinking (Anthropic); None when
    the provider does not report it."""
    finish_reason: str | None = None
    """Why the reply ended, normalised to ``stop``, ``length`` (cut at the token limit),
    ``content_filter`` or ``tool_calls``, else the provider's own word; None when unknown."""

    @property
    def truncated(self) -> bool:
        """Whether the reply was cut at the token limit."""
        return self.finish_reason == "length"


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """How to build one provider: ``factory`` is ``"module:function"``, imported lazily."""

    name: str
    factory: str
    sdk_module: str | None = None
    """The vendor package the adapter imports (None: no SDK needed)."""
    extra: str | None = None
    """The optional extra of pdbench that installs the SDK."""
    key_check: str | None = None
    """``"module:function"``: ``function(settings)`` says why no key is found, or None."""


PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec(name="mock", factory="pdbench.providers.mock:build"),
        ProviderSpec(
            name="openai",
            factory="pdbench.providers.openai:build",
            sdk_module="openai",
            extra="openai",
            key_check="pdbench.providers.openai:key_problem",
        ),
        ProviderSpec(
            name="anthropic",
            factory="pdbench.providers.anthropic:build",
            sdk_module="anthropic",
            extra="anthropic",
            key_check="pdbench.providers.anthropic:key_problem",
        ),
        ProviderSpec(
            name="litellm",
            factory="pdbench.providers.litellm:build",
            sdk_module="litellm",
            extra="litellm",
        ),
    )
}
"""Provider name (as configs write it) -> how to build it."""


def provider_problem(name: str) -> str | None:
    """Why provider ``name`` cannot be built here, or None when it can."""
    spec = PROVIDERS.get(name)
    if spec is None:
        return unknown("provider", name, PROVIDERS)
    if spec.sdk_module and importlib.util.find_spec(spec.sdk_module) is None:
        return (
            f"provider {name!r} needs the {spec.sdk_module!r} package: uv sync --extra {spec.extra}"
        )
    module_name = spec.factory.partition(":")[0]
    if importlib.util.find_spec(module_name) is None:
        return f"provider {name!r} has no adapter in this version of pdbench yet"
    return None


def key_problem(name: str, *, settings: Any) -> str | None:
    """Why provider ``name`` has no API key for ``settings`` here, or None (also when the
    provider needs no key, or cannot be built at all: see :func:`provider_problem`)."""
    spec = PROVIDERS.get(name)
    if spec is None or spec.key_check is None or provider_problem(name) is not None:
        return None
    module_name, _, function_name = spec.key_check.partition(":")
    check: Callable[[Any], str | None] = getattr(
        importlib.import_module(module_name), function_name
    )
    return check(settings)


def make_provider(name: str, *, settings: Any, seed: int, where: str = "") -> ProviderClient:
    """Build provider ``name`` from an agent's ``settings`` (its config), seeded with ``seed``.

    ``where`` (``"<file>: <field>"``) prefixes the error when the provider cannot be built.
    """
    problem = provider_problem(name)
    if problem is not None:
        raise ConfigError(problem, path=where or None)
    module_name, _, function_name = PROVIDERS[name].factory.partition(":")
    factory: Callable[..., ProviderClient] = getattr(
        importlib.import_module(module_name), function_name
    )
    return factory(settings=settings, seed=seed)
