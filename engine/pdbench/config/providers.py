"""The provider settings every game's LLM players share: which model, how to reach it,
how to call it (reasoning, thinking, params), transport retries, prices and the run-wide
provider layer (concurrency, limits, cache)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pdbench.config.base import ApiKeyEnv, StrictModel, one_of
from pdbench.providers.base import PROVIDERS, providers_with
from pdbench.providers.batch_lane import BatchPolling
from pdbench.providers.params import checked_params
from pdbench.providers.reasoning import DEFAULT_REASONING_BUDGET, model_family

NOT_IN_A_REPLY = frozenset({"transport", "cache", "batch", "api_key_env", "base_url"})
"""Fields of an LLM's config that say how a call is made, not what it answers: every other
field joins the response cache's key (the endpoint joins it as the client resolved it)."""


class TransportConfig(StrictModel):
    """How hard the gateway tries one request before the run fails (not game re-prompts)."""

    timeout_s: float = Field(default=60.0, gt=0)
    """Seconds one request may take before it counts as a (transient) timeout."""
    max_retries: int = Field(default=4, ge=0)
    """Retries after a transient failure: timeout, connection error, 429, 5xx, bad body."""
    backoff_base_s: float = Field(default=1.0, ge=0)
    """First back-off in seconds; doubles with each retry, with jitter."""
    backoff_max_s: float = Field(default=30.0, ge=0)
    """Cap on one back-off (a server's Retry-After is honoured even when longer)."""


class ThinkingConfig(StrictModel):
    """Anthropic's extended thinking: the model reasons in thinking blocks before it answers."""

    budget_tokens: int = Field(ge=1024)
    """Most tokens the model may think with (Anthropic's minimum is 1024). A request asks for
    ``max_tokens`` = this budget + the visible reply's ``max_tokens``."""


_THINKING_TOP_P = 0.95


def _names(capability: str) -> str:
    """The providers with ``capability``, for a refusal: ``openai and litellm``."""
    names = providers_with(capability)
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def _is_reasoning(provider: str, model: str, override: bool | None) -> bool:
    """Whether calls of ``provider``/``model`` go out as to a reasoning model."""
    spec = PROVIDERS.get(provider)
    if spec is None or not spec.reasoning:
        return False
    if override is not None:
        return override
    family = model_family(model)
    return family is not None and family.reasoning


class ProviderAccessConfig(StrictModel):
    """How an LLM (a PD agent or an arena player) is reached: provider, model, endpoint, key,
    transport and cache. The provider adapters read these fields."""

    provider: Annotated[str, one_of("provider", PROVIDERS)] = "mock"
    """Provider name: mock, openai, anthropic, litellm."""
    model: str
    """Model identifier passed to the provider."""
    temperature: float = Field(default=0.0, ge=0)
    """Sampling temperature."""
    base_url: str | list[str] | None = None
    """Server URL of an OpenAI-compatible API (vLLM, Ollama, llama.cpp, OpenRouter) or a proxy
    (None: the vendor's default). A list is a pool of servers of the same model: each call
    (and each retry) goes to the next one in turn."""
    api_key_env: ApiKeyEnv = None
    """NAME of the environment variable holding the key (None: the provider's default,
    OPENAI_API_KEY or ANTHROPIC_API_KEY). Never the key itself."""
    transport: TransportConfig = Field(default_factory=TransportConfig)
    """Timeout and transport retries of each request."""
    cache: bool | None = None
    """Use the response cache (None: yes for real providers, no for the mock, which is free)."""
    reasoning: bool | None = None
    """OpenAI and LiteLLM: the model reasons before it answers, so it is sent
    ``max_completion_tokens`` (the visible reply's ``max_tokens`` + ``reasoning_budget_tokens``),
    never ``max_tokens``, and no temperature (it samples at 1). None: from the model table
    (:mod:`pdbench.providers.reasoning`: the o1, o3, o4 and gpt-5 families)."""
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    """Reasoning models only: how much the model reasons (``minimal``: the gpt-5 family only).
    None: the model's default."""
    reasoning_budget_tokens: int | None = Field(default=None, ge=1)
    """Reasoning models only: output tokens the model may spend reasoning on top of its
    visible reply (None: 4096)."""
    thinking: ThinkingConfig | None = None
    """Anthropic only: extended thinking, ``{budget_tokens: N}``; it samples at temperature 1."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Request parameters passed through to the provider's SDK, checked per provider
    (:mod:`pdbench.providers.params`): ``seed``, ``top_p``, ``stop``, ... ."""
    batch: bool = False
    """Send this LLM's requests through the provider's batch API (about half the price,
    answers within a day): openai, anthropic and mock only; the arena only."""

    @field_validator("base_url")
    @classmethod
    def _a_pool_of_distinct_servers(cls, value: str | list[str] | None) -> str | list[str] | None:
        if isinstance(value, list):
            if not value:
                raise ValueError("a pool of servers needs at least one URL")
            if len(set(value)) != len(value):
                raise ValueError("a pool of servers names each URL once")
        return value

    @field_validator("batch")
    @classmethod
    def _a_batch_provider(cls, batch: bool, info: ValidationInfo) -> bool:
        provider = info.data.get("provider")
        if batch and provider not in providers_with("batch"):
            raise ValueError(
                f"applies to providers {', '.join(providers_with('batch'))} only, not {provider}"
            )
        return batch

    @field_validator("reasoning")
    @classmethod
    def _a_reasoning_provider(cls, reasoning: bool | None, info: ValidationInfo) -> bool | None:
        provider = info.data.get("provider")
        if reasoning is not None and provider not in providers_with("reasoning"):
            raise ValueError(
                f"applies to providers {_names('reasoning')} only, not {provider}"
                " (Anthropic's reasoning is thinking: {budget_tokens: N})"
            )
        return reasoning

    @field_validator("reasoning_effort", "reasoning_budget_tokens")
    @classmethod
    def _a_reasoning_model(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None or "model" not in info.data:
            return value
        provider, model = info.data.get("provider", ""), info.data["model"]
        override = info.data.get("reasoning")
        if provider not in providers_with("reasoning"):
            raise ValueError(f"applies to providers {_names('reasoning')} only, not {provider}")
        if not _is_reasoning(provider, model, override):
            if override is False:
                raise ValueError("applies to reasoning models only, and reasoning is false")
            raise ValueError(
                f"applies to reasoning models only, and the model table does not list {model} "
                "as one (set reasoning: true if it is)"
            )
        family = model_family(model)
        efforts = family.efforts if family is not None else ()
        if info.field_name == "reasoning_effort" and efforts and value not in efforts:
            raise ValueError(f"{model} takes {', '.join(efforts)}, not {value!r}")
        return value

    @field_validator("thinking")
    @classmethod
    def _an_anthropic_model(
        cls, thinking: ThinkingConfig | None, info: ValidationInfo
    ) -> ThinkingConfig | None:
        provider = info.data.get("provider")
        if thinking is not None and provider not in providers_with("thinking"):
            raise ValueError(f"applies to provider {_names('thinking')} only, not {provider}")
        return thinking

    @field_validator("params")
    @classmethod
    def _params_the_provider_takes(
        cls, params: dict[str, Any], info: ValidationInfo
    ) -> dict[str, Any]:
        checked = checked_params(info.data.get("provider", "mock"), params)
        if info.data.get("thinking") is not None:
            if "top_k" in checked:
                raise ValueError("top_k cannot be used with thinking")
            if checked.get("top_p", 1.0) < _THINKING_TOP_P:
                raise ValueError(f"top_p must be {_THINKING_TOP_P} to 1 with thinking")
        return checked

    @model_validator(mode="after")
    def _temperature_one_when_reasoning(self, info: ValidationInfo) -> ProviderAccessConfig:
        if self.temperature == 1 or not (self.is_reasoning_model or self.thinking is not None):
            return self
        why = "extended thinking" if self.thinking is not None else "a reasoning model"
        if info.context is not None:
            info.context["warnings"].append(
                (
                    "temperature",
                    f"{self.model} samples at temperature 1 only ({why}): "
                    f"{self.temperature:g} becomes 1",
                )
            )
        # the model is frozen; the config must record the temperature the calls use
        object.__setattr__(self, "temperature", 1.0)
        return self

    @property
    def uses_cache(self) -> bool:
        """Whether these calls go through the response cache (when one is open)."""
        return self.provider != "mock" if self.cache is None else self.cache

    @property
    def is_reasoning_model(self) -> bool:
        """Whether calls go out as to a reasoning model: ``reasoning``, else the model table
        (OpenAI and LiteLLM only)."""
        return _is_reasoning(self.provider, self.model, self.reasoning)

    def reasoning_budget(self) -> int:
        """Output tokens a call may spend reasoning on top of its visible reply: the thinking
        budget, a reasoning model's ``reasoning_budget_tokens`` (default 4096), else 0."""
        if self.thinking is not None:
            return self.thinking.budget_tokens
        if self.is_reasoning_model:
            return self.reasoning_budget_tokens or DEFAULT_REASONING_BUDGET
        return 0

    def reply_settings(self) -> dict[str, Any]:
        """Every field of this config but those in :data:`NOT_IN_A_REPLY`, for the response
        cache's key: a field a config gains later changes the key unless listed there."""
        return self.model_dump(mode="json", exclude=set(NOT_IN_A_REPLY))

    def request_settings(self) -> dict[str, Any]:
        """What shapes a reply besides the prompts, temperature and ``max_tokens``, for the
        response cache's key; empty for a model without reasoning, thinking or params."""
        settings: dict[str, Any] = {}
        if self.is_reasoning_model:
            settings["reasoning"] = {
                "effort": self.reasoning_effort,
                "budget_tokens": self.reasoning_budget(),
            }
        if self.thinking is not None:
            settings["thinking"] = {"budget_tokens": self.thinking.budget_tokens}
        if self.params:
            settings["params"] = self.params
        return settings


class PriceConfig(StrictModel):
    """The price of a model, in USD per million tokens."""

    input_per_mtok: float = Field(ge=0)
    """USD per million prompt tokens."""
    output_per_mtok: float = Field(ge=0)
    """USD per million completion tokens."""


class BatchConfig(StrictModel):
    """How batches (players with ``batch: true``) are waited for and priced."""

    poll_interval_s: float = Field(default=30.0, gt=0)
    """First wait between two polls of a batch's status; doubles after every poll."""
    max_poll_interval_s: float = Field(default=600.0, gt=0)
    """Longest wait between two polls."""
    price_factor: float = Field(default=0.5, gt=0, le=1)
    """A batch request's price as a share of the list price (both OpenAI and Anthropic: half)."""

    def polling(self) -> BatchPolling:
        """These settings as the batch lanes take them."""
        return BatchPolling(
            interval_s=self.poll_interval_s,
            max_interval_s=self.max_poll_interval_s,
            price_factor=self.price_factor,
        )


class ProviderLayerConfig(StrictModel):
    """The provider layer of a run, the same in every game: concurrency, limits, prices, cache."""

    max_concurrency: int = Field(default=8, ge=1)
    """Work in flight at once (1: one by one): PD matches with an LLM agent, or the calls of one
    arena phase. Results do not depend on it."""
    max_concurrency_per_model: dict[str, int] = Field(default_factory=dict)
    """Most provider calls in flight per ``provider/model`` (or ``provider``), e.g.
    ``{"openai/gpt-4o-mini": 4}``; absent: limited by ``max_concurrency`` only."""
    prices: dict[str, PriceConfig] = Field(default_factory=dict)
    """Prices by ``model`` (or ``provider/model``) for ``cost_usd``; LiteLLM's map is the
    fallback when installed; otherwise the cost is unknown (null)."""
    cache_path: str = "data/cache/responses.sqlite"
    """The response cache file (``--no-cache`` turns the cache off for a run)."""
    batches: BatchConfig = Field(default_factory=BatchConfig)
    """Polling and price of batch mode (``batch: true`` on a player)."""

    @model_validator(mode="after")
    def _longest_wait_is_not_the_shortest(self) -> ProviderLayerConfig:
        first, longest = self.batches.poll_interval_s, self.batches.max_poll_interval_s
        if longest < first:
            raise ValueError(
                f"batches.max_poll_interval_s: must be at least poll_interval_s ({first:g})"
            )
        return self

    @field_validator("max_concurrency_per_model")
    @classmethod
    def _positive_limits(cls, limits: dict[str, int]) -> dict[str, int]:
        for key, limit in limits.items():
            if limit < 1:
                raise ValueError(f"{key}: a limit must be at least 1, got {limit}")
        return limits
