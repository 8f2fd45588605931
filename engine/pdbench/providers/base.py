"""The provider protocol and the registry that builds providers by name.

A provider has one job: turn a system prompt and a prompt into a reply string, and (as a
hook with a safe default) say whether an exception of its SDK is transient or fatal:
``classify_error(exc) -> Failure`` (:mod:`pdbench.providers.failures`). Everything around the
call (latency, usage, price, the ``calls.jsonl`` record, retries, back-off, the cache and
concurrency limits) lives once, in :mod:`pdbench.providers.gateway`.

What a provider can do is declared once, on its :class:`ProviderSpec` in :data:`PROVIDERS`:
its SDK and extra, its key's variable, batch mode, reasoning models, extended thinking,
embeddings, the ``params`` it takes and the words that name its maker. Every other module
(the config's checks, the manifest's versions, the embedder, the arena's leak rule) reads
them there: a new provider is its adapter module and one entry here.

Vendor SDKs are optional extras, imported only when a config names their provider; a known
provider whose SDK is missing fails with the command that installs it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol, runtime_checkable

from pydantic import Field

from pdbench.errors import ConfigError, unknown
from pdbench.providers.keys import api_key

__all__ = [
    "OPENAI_PARAMS",
    "PROVIDERS",
    "ProviderClient",
    "ProviderSpec",
    "Usage",
    "key_env",
    "key_problem",
    "make_provider",
    "provider_problem",
    "providers_with",
    "sdk_packages",
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


_Probability = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
_Penalty = Annotated[float, Field(ge=-2, le=2, allow_inf_nan=False)]
_Stop = str | Annotated[list[str], Field(min_length=1, max_length=4)]

OPENAI_PARAMS: dict[str, Any] = {
    "seed": int,
    "top_p": _Probability,
    "stop": _Stop,
    "frequency_penalty": _Penalty,
    "presence_penalty": _Penalty,
    "extra_body": dict[str, Any],
}
"""The ``params`` of OpenAI's chat completions (``extra_body``: merged into the request body,
for a server's own options), with the type each value must have."""


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """How to build one provider, and what it can do.

    ``factory`` (and ``embedder``) are ``"module:function"``, imported lazily."""

    name: str
    factory: str
    sdk_module: str | None = None
    """The vendor package the adapter imports (None: no SDK needed); its version goes into
    every run's manifest."""
    extra: str | None = None
    """The optional extra of pdbench that installs the SDK."""
    key_env: str | None = None
    """The environment variable holding the API key when a config names none (None: the
    provider needs no key of pdbench's finding)."""
    key_optional_with_base_url: bool = False
    """Whether a server at ``base_url`` may be reached without a key (a local server)."""
    batch: bool = False
    """Whether ``batch: true`` applies: the adapter's client is a
    :class:`pdbench.providers.batch.BatchClient`."""
    reasoning: bool = False
    """Whether ``reasoning`` and its effort and budget apply (OpenAI-style reasoning models)."""
    thinking: bool = False
    """Whether ``thinking`` applies (Anthropic-style extended thinking)."""
    embedder: str | None = None
    """``"module:function"``: ``function(settings) -> Embedder`` for ``diversity``'s
    embeddings (None: the provider has no embedding endpoint)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """The request ``params`` it takes, each with the type its value must have
    (:mod:`pdbench.providers.params`)."""
    vendor_words: tuple[str, ...] = ()
    """Words naming the provider's maker or its models, scrubbed from what arena players
    write (:mod:`pdbench.arena.leaks`)."""


PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec(
            name="mock",
            factory="pdbench.providers.mock:build",
            batch=True,
            embedder="pdbench.providers.embeddings:mock_embedder",
        ),
        ProviderSpec(
            name="openai",
            factory="pdbench.providers.openai:build",
            sdk_module="openai",
            extra="openai",
            key_env="OPENAI_API_KEY",
            key_optional_with_base_url=True,
            batch=True,
            reasoning=True,
            embedder="pdbench.providers.embeddings:openai_embedder",
            params=OPENAI_PARAMS,
            vendor_words=("OpenAI", "ChatGPT", "GPT"),
        ),
        ProviderSpec(
            name="anthropic",
            factory="pdbench.providers.anthropic:build",
            sdk_module="anthropic",
            extra="anthropic",
            key_env="ANTHROPIC_API_KEY",
            batch=True,
            thinking=True,
            params={
                "top_p": _Probability,
                "top_k": Annotated[int, Field(ge=1)],
                "stop_sequences": Annotated[list[str], Field(min_length=1)],
            },
            vendor_words=("Anthropic", "Claude"),
        ),
        ProviderSpec(
            name="litellm",
            factory="pdbench.providers.litellm:build",
            sdk_module="litellm",
            extra="litellm",
            reasoning=True,
            embedder="pdbench.providers.embeddings:litellm_embedder",
            params={key: kind for key, kind in OPENAI_PARAMS.items() if key != "extra_body"},
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


def providers_with(capability: str) -> tuple[str, ...]:
    """The providers whose spec declares ``capability`` (a field of :class:`ProviderSpec`
    that is true or not empty), in registry order, the mock last."""
    names = [name for name, spec in PROVIDERS.items() if getattr(spec, capability)]
    return tuple(sorted(names, key=lambda name: name == "mock"))


def sdk_packages() -> tuple[str, ...]:
    """The vendor packages of every provider, in registry order."""
    return tuple(spec.sdk_module for spec in PROVIDERS.values() if spec.sdk_module)


def key_env(name: str, settings: Any) -> str | None:
    """The environment variable holding the key of provider ``name`` for ``settings``: the
    config's ``api_key_env``, else the provider's default."""
    spec = PROVIDERS.get(name)
    return getattr(settings, "api_key_env", None) or (spec.key_env if spec else None)


def key_problem(name: str, *, settings: Any) -> str | None:
    """Why provider ``name`` has no API key for ``settings`` here, or None (also when the
    provider needs no key, or cannot be built at all: see :func:`provider_problem`)."""
    spec = PROVIDERS.get(name)
    if spec is None or spec.key_env is None or provider_problem(name) is not None:
        return None
    env_var = key_env(name, settings) or spec.key_env
    if api_key(env_var) or (spec.key_optional_with_base_url and settings.base_url):
        return None
    return f"provider {name!r} needs the environment variable {env_var} (set it, or put it in .env)"


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
