"""Config files: pydantic models of every YAML file, and the loader that resolves them.

Loading a config (``load_config``) is the same for every game:

1. read the YAML (a syntax error names the file and line);
2. pick the model from ``game:`` (``GAME_CONFIGS``; default ``pd``);
3. resolve refs: a mapping ``{ref: "agents/llm_default.yaml", overrides: {...}}`` is replaced
   by that file (relative to the folder of the file that holds the ref) deep-merged with
   ``overrides``, so overrides are validated exactly like the file itself;
4. validate, with the config's folder as the root that relative paths (prompts, personas)
   are read from;
5. turn the first validation error into ONE line: ``<file>: <field path>: <message>``.

Payoff tables that are not a Prisoner's Dilemma are allowed, with a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

try:
    from yaml.cyaml import CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    CParser = None  # type: ignore[assignment, misc]
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pdbench.agents.axelrod_policy import (
    axelrod_strategy,
    check_axelrod_params,
    is_axelrod,
)
from pdbench.agents.policy import POLICIES
from pdbench.agents.prompts import ROUND_PLACEHOLDERS, SYSTEM_PLACEHOLDERS, template_problem
from pdbench.core.metrics import (
    DEFAULT_COLLAPSE_K,
    DEFAULT_COLLAPSE_THRESHOLD,
    PD_METRICS,
    metric_params,
)
from pdbench.core.payoff import PayoffMatrix
from pdbench.errors import ConfigError
from pdbench.providers.base import PROVIDERS
from pdbench.providers.params import checked_params
from pdbench.providers.reasoning import DEFAULT_REASONING_BUDGET, model_family
from pdbench.runners.round_robin import pairing_name, pairings

__all__ = [
    "GAME_CONFIGS",
    "AgentConfig",
    "CollapseConfig",
    "ConditionConfig",
    "ExperimentConfig",
    "FixedHorizonConfig",
    "GeometricHorizonConfig",
    "LLMAgentConfig",
    "LoadedConfig",
    "MetricsConfig",
    "MockConfig",
    "PayoffsConfig",
    "PolicyAgentConfig",
    "PriceConfig",
    "ProviderAccessConfig",
    "ProviderLayerConfig",
    "RoundRobinConfig",
    "StrictModel",
    "ThinkingConfig",
    "TransportConfig",
    "deep_merge",
    "load_config",
    "read_text_file",
    "read_yaml",
    "resolve_refs",
    "tagged_union",
]

_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")
"""A key or name that needs no quoting in an error (and, for a persona, stays in its folder)."""

# Limits on what a config may ask for: each guards against a typo or a hostile file that would
# hang or exhaust the machine before anything useful happens. README: "Guarantees".
MAX_CONFIG_BYTES = 1 << 20
"""A config or agent file larger than 1 MiB is refused."""
MAX_YAML_ALIASES = 100
"""YAML aliases (``*name``) per file: a handful are handy, thousands are a "billion laughs"."""
MAX_YAML_DEPTH = 50
"""Nesting depth of a YAML document."""
MAX_YAML_VALUES = 100_000
"""Values of a YAML document once its aliases are expanded (nine aliases to a list of nine
aliases, eight deep, would be 43 million)."""
MAX_NAME_LENGTH = 100
"""Characters of a run id (it names a directory)."""
MAX_MATCHES = 1_000_000
"""Default cap on conditions x replicates (``max_matches`` raises it)."""
MAX_ROUNDS_PER_MATCH = 100_000_000
"""Rounds of one match (a fixed horizon's ``n``, a geometric horizon's ``max_rounds``)."""
MAX_PAYOFF = 1e12
"""Largest payoff magnitude: running totals stay exact-enough finite floats."""
Seed = Annotated[int, Field(strict=True, ge=-(2**63), lt=2**63)]
"""A seed: an integer (not a boolean, not a string) that fits in 64 bits."""
_TAG_PREFIX = "<tag>"


class StrictModel(BaseModel):
    """Base of every config model: unknown keys are errors, field docstrings are docs."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, frozen=True)


def tagged_union(*models: type[BaseModel], key: str = "type") -> Any:
    """A union of models told apart by their ``key`` field (a ``Literal``).

    Error paths stay readable: the tag never shows up in them (see ``_field_path``).
    """
    tags: dict[str, type[BaseModel]] = {}
    for model in models:
        (tag,) = model.model_fields[key].annotation.__args__  # type: ignore[union-attr]
        tags[tag] = model

    def pick(value: Any) -> str | None:
        tag = value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)
        return f"{_TAG_PREFIX}{tag}" if isinstance(tag, str) and tag in tags else None

    members = tuple(Annotated[m, Tag(f"{_TAG_PREFIX}{t}")] for t, m in tags.items())
    return Annotated[
        members[0] if len(members) == 1 else _union(members),
        Discriminator(
            pick,
            custom_error_type="invalid_tag",
            custom_error_message=f"{key} must be one of: {', '.join(tags)}",
        ),
    ]


def _union(members: tuple[Any, ...]) -> Any:
    from typing import Union

    return Union[members]  # noqa: UP007 - built from a runtime tuple


# ---------------------------------------------------------------------------------------------
# the game: payoffs, horizon, metrics

Number = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-MAX_PAYOFF, le=MAX_PAYOFF)]


class PayoffsConfig(StrictModel):
    """The payoff matrix: ``[payoff of A, payoff of B]`` for each pair of actions."""

    CC: tuple[Number, Number] = (3, 3)
    """Both cooperate."""
    CD: tuple[Number, Number] = (0, 5)
    """A cooperates, B defects."""
    DC: tuple[Number, Number] = (5, 0)
    """A defects, B cooperates."""
    DD: tuple[Number, Number] = (1, 1)
    """Both defect."""

    @model_validator(mode="before")
    @classmethod
    def _all_four_cells(cls, data: object) -> object:
        if isinstance(data, dict) and data:
            missing = [cell for cell in ("CC", "CD", "DC", "DD") if cell not in data]
            if missing:
                raise ValueError(
                    f"missing payoff cell {', '.join(missing)}: give all four (CC, CD, DC, DD) "
                    "or none for the classic 3/0/5/1"
                )
        return data

    @model_validator(mode="after")
    def _warn_when_not_a_pd(self, info: ValidationInfo) -> PayoffsConfig:
        problems = self.to_matrix().pd_violations()
        if problems and info.context is not None:
            info.context["warnings"].append(
                ("payoffs", "not a prisoner's dilemma: " + "; ".join(problems))
            )
        return self

    def to_matrix(self) -> PayoffMatrix:
        """The core payoff matrix (floats, as ``rounds.jsonl`` records payoffs)."""
        return PayoffMatrix(
            cc=_floats(self.CC), cd=_floats(self.CD), dc=_floats(self.DC), dd=_floats(self.DD)
        )


def _floats(pair: tuple[float, float]) -> tuple[float, float]:
    return float(pair[0]), float(pair[1])


class FixedHorizonConfig(StrictModel):
    """Every match lasts exactly ``n`` rounds."""

    type: Literal["fixed"]
    """``fixed``."""
    n: int = Field(ge=1, le=MAX_ROUNDS_PER_MATCH)
    """Rounds per match."""

    def describe(self) -> str:
        """One line for summaries."""
        return f"fixed, {self.n} rounds"


class GeometricHorizonConfig(StrictModel):
    """After each round the match stops with probability ``stop_prob``."""

    type: Literal["geometric"]
    """``geometric``."""
    stop_prob: float = Field(gt=0, le=1)
    """Probability of stopping after each round, in (0, 1]; mean length 1 / stop_prob."""
    max_rounds: int = Field(default=1000, ge=1, le=MAX_ROUNDS_PER_MATCH)
    """Cap on the length of a match."""

    def describe(self) -> str:
        """One line for summaries."""
        return f"geometric, stop_prob {self.stop_prob:g}, at most {self.max_rounds} rounds"


HorizonConfig = tagged_union(FixedHorizonConfig, GeometricHorizonConfig)


class CollapseConfig(StrictModel):
    """Parameters of ``time_to_collapse``."""

    k: int = Field(default=DEFAULT_COLLAPSE_K, ge=1)
    """Length of the window of rounds that must have low cooperation."""
    threshold: float = Field(default=DEFAULT_COLLAPSE_THRESHOLD, ge=0, le=1)
    """Cooperation rate of both agents at or below which the window counts as collapsed."""


class MetricsConfig(StrictModel):
    """The metrics this run is for (recorded in the manifest), and their parameters. dbt
    builds every metric whatever ``names`` says."""

    names: list[str] = Field(default_factory=lambda: list(PD_METRICS))
    """Metric names, validated and recorded in the manifest's ``metric_params`` (default:
    all). The marts carry every metric regardless."""
    collapse: CollapseConfig = Field(default_factory=CollapseConfig)
    """Parameters of ``time_to_collapse``."""

    @field_validator("names")
    @classmethod
    def _known_metrics(cls, names: list[str]) -> list[str]:
        for name in names:
            if name not in PD_METRICS:
                raise ValueError(f"unknown metric {name!r} (known: {', '.join(PD_METRICS)})")
        return names


# ---------------------------------------------------------------------------------------------
# agents


class PolicyAgentConfig(StrictModel):
    """A classic policy (``configs/agents/policies.yaml``)."""

    type: Literal["policy"]
    """``policy``."""
    policy: str
    """One of ALLC, ALLD, TFT, GRIM, GTFT, WSLS; or ``axelrod:<Strategy>``, any strategy of
    the Axelrod library by class name (optional extra: ``uv sync --extra axelrod``)."""
    name: str | None = None
    """Name in the records (default: the policy name)."""
    params: dict[str, Any] | None = None
    """Axelrod strategies only: keyword arguments of the strategy's constructor."""
    generous_prob: float | None = Field(default=None, ge=0, le=1)
    """GTFT only: probability of forgiving a defection (default from the payoffs; 1/3)."""
    win_threshold: float | None = None
    """WSLS only: a payoff >= this is a win (default R)."""

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, policy: str) -> str:
        if is_axelrod(policy):
            axelrod_strategy(policy)
        elif policy not in POLICIES:
            raise ValueError(
                f"unknown policy {policy!r} (known: {', '.join(POLICIES)}, or axelrod:<Strategy>)"
            )
        return policy

    @model_validator(mode="after")
    def _parameters_fit_the_policy(self) -> PolicyAgentConfig:
        if self.params is not None:
            if not is_axelrod(self.policy):
                raise ValueError(f"params apply to axelrod: strategies only, not {self.policy}")
            check_axelrod_params(self.policy, self.params)
        if self.generous_prob is not None and self.policy != "GTFT":
            raise ValueError(f"generous_prob applies to GTFT only, not {self.policy}")
        if self.win_threshold is not None and self.policy != "WSLS":
            raise ValueError(f"win_threshold applies to WSLS only, not {self.policy}")
        return self

    @property
    def display_name(self) -> str:
        """The name written to the records."""
        return self.name or self.policy


class MockConfig(StrictModel):
    """How the ``mock`` provider behaves (ignored by other providers)."""

    strategy: str = "TFT"
    """The policy the mock plays through the prompt: ALLC, ALLD, TFT, GRIM, GTFT, WSLS."""
    invalid_rate: float = Field(default=0.0, ge=0, le=1)
    """Probability that a reply is invalid (seeded)."""
    latency_ms: float = Field(default=0.0, ge=0)
    """Simulated latency per call."""
    seed: int | None = None
    """Fixed seed for the mock (default: derived from the run seed, condition and replicate)."""

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, strategy: str) -> str:
        if strategy not in POLICIES:
            raise ValueError(f"unknown strategy {strategy!r} (known: {', '.join(POLICIES)})")
        return strategy


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


_ENV_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _root(info: ValidationInfo) -> Path:
    return Path(info.context["root"]) if info.context else Path.cwd()


class ThinkingConfig(StrictModel):
    """Anthropic's extended thinking: the model reasons in thinking blocks before it answers."""

    budget_tokens: int = Field(ge=1024)
    """Most tokens the model may think with (Anthropic's minimum is 1024). A request asks for
    ``max_tokens`` = this budget + the visible reply's ``max_tokens``."""


_REASONING_PROVIDERS = ("openai", "litellm")
_THINKING_TOP_P = 0.95


def _is_reasoning(provider: str, model: str, override: bool | None) -> bool:
    """Whether calls of ``provider``/``model`` go out as to a reasoning model."""
    if provider not in _REASONING_PROVIDERS:
        return False
    if override is not None:
        return override
    family = model_family(model)
    return family is not None and family.reasoning


class ProviderAccessConfig(StrictModel):
    """How an LLM (a PD agent or an arena player) is reached: provider, model, endpoint, key,
    transport and cache. The provider adapters read these fields."""

    provider: str = "mock"
    """Provider name: mock, openai, anthropic, litellm."""
    model: str
    """Model identifier passed to the provider."""
    temperature: float = Field(default=0.0, ge=0)
    """Sampling temperature."""
    base_url: str | None = None
    """Server URL of an OpenAI-compatible API (vLLM, Ollama, llama.cpp, OpenRouter) or a proxy
    (None: the vendor's default)."""
    api_key_env: str | None = None
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

    @field_validator("api_key_env")
    @classmethod
    def _an_env_var_name(cls, name: str | None) -> str | None:
        if name is not None and not _ENV_VAR.match(name):
            raise ValueError(
                "must be the NAME of an environment variable (e.g. OPENAI_API_KEY), "
                "never the key itself"
            )
        return name

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, provider: str) -> str:
        if provider not in PROVIDERS:
            raise ValueError(f"unknown provider {provider!r} (known: {', '.join(PROVIDERS)})")
        return provider

    @field_validator("reasoning")
    @classmethod
    def _a_reasoning_provider(cls, reasoning: bool | None, info: ValidationInfo) -> bool | None:
        provider = info.data.get("provider")
        if reasoning is not None and provider not in _REASONING_PROVIDERS:
            raise ValueError(
                f"applies to providers {' and '.join(_REASONING_PROVIDERS)} only, not {provider}"
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
        if provider not in _REASONING_PROVIDERS:
            raise ValueError(
                f"applies to providers {' and '.join(_REASONING_PROVIDERS)} only, not {provider}"
            )
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
        if thinking is not None and provider != "anthropic":
            raise ValueError(f"applies to provider anthropic only, not {provider}")
        return thinking

    @field_validator("params")
    @classmethod
    def _params_the_provider_takes(cls, params: dict[str, Any], info: ValidationInfo) -> dict:
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


class LLMAgentConfig(ProviderAccessConfig):
    """An LLM agent (``configs/agents/llm_default.yaml``). Paths are relative to the folder of
    the experiment file."""

    type: Literal["llm"]
    """``llm``."""
    name: str | None = None
    """Name in the records (default: ``<provider>/<model>`` plus ``:<persona>``)."""
    max_tokens: int = Field(default=16, ge=1)
    """Most tokens a reply may have."""
    system_prompt: str = "prompts/pd_system.md"
    """System prompt template."""
    round_prompt: str = "prompts/pd_round.md"
    """Round prompt template."""
    personas_dir: str = "prompts/personas"
    """Folder of persona fragments (``<persona>.md``)."""
    persona: str | None = None
    """Persona fragment put into the system prompt (None: no persona)."""
    history_window: int = Field(default=5, ge=0)
    """How many past rounds the round prompt shows."""
    include_totals: bool = True
    """Whether the round prompt states both running totals."""
    output_format: Literal["token", "json", "lenient", "reasoning"] = "token"
    """How a reply is read (:mod:`pdbench.providers.extract`): ``token`` (strict: C or D),
    ``json`` (strict: ``{"action": "C"}``), ``lenient`` (asked for a letter, read by the
    documented lenient rules) or ``reasoning`` (asked to reason, then a final ``ACTION: C``
    line)."""
    max_retries: int = Field(default=2, ge=0)
    """Re-prompts after an invalid reply (attempts per round = 1 + max_retries)."""
    on_invalid: Literal["abort", "fallback"] = "fallback"
    """When every attempt is invalid: ``abort`` the match, or play ``fallback_action``."""
    fallback_action: Literal["C", "D"] = "D"
    """The action played (and recorded as invalid) when ``on_invalid`` is ``fallback``."""
    mock: MockConfig = Field(default_factory=MockConfig)
    """Settings of the mock provider."""

    @field_validator("system_prompt", "round_prompt")
    @classmethod
    def _template_exists(cls, value: str, info: ValidationInfo) -> str:
        path = _root(info) / value
        if not path.is_file():
            raise ValueError(f"prompt file not found: {value}")
        allowed = SYSTEM_PLACEHOLDERS if info.field_name == "system_prompt" else ROUND_PLACEHOLDERS
        problem = template_problem(read_text_file(path, shown=value), allowed)
        if problem:
            raise ValueError(f"{value}: {problem}")
        return value

    @field_validator("personas_dir")
    @classmethod
    def _personas_dir_exists(cls, value: str, info: ValidationInfo) -> str:
        if not (_root(info) / value).is_dir():
            raise ValueError(f"folder not found: {value}")
        return value

    @field_validator("persona")
    @classmethod
    def _known_persona(cls, persona: str | None, info: ValidationInfo) -> str | None:
        if persona is None or "personas_dir" not in info.data:
            return persona
        folder = _root(info) / info.data["personas_dir"]
        if not _PLAIN_KEY.fullmatch(persona) or not (folder / f"{persona}.md").is_file():
            known = sorted(p.stem for p in folder.glob("*.md"))
            raise ValueError(f"unknown persona {persona!r} (known: {', '.join(known)})")
        read_text_file(folder / f"{persona}.md", shown=f"{info.data['personas_dir']}/{persona}.md")
        return persona

    @property
    def display_name(self) -> str:
        """The name written to the records."""
        if self.name:
            return self.name
        suffix = f":{self.persona}" if self.persona else ""
        return f"{self.provider}/{self.model}{suffix}"

    def persona_path(self, root: Path) -> Path | None:
        """The persona fragment file, or None."""
        return root / self.personas_dir / f"{self.persona}.md" if self.persona else None


AgentConfig = tagged_union(PolicyAgentConfig, LLMAgentConfig)


# ---------------------------------------------------------------------------------------------
# the experiment


class PriceConfig(StrictModel):
    """The price of a model, in USD per million tokens."""

    input_per_mtok: float = Field(ge=0)
    """USD per million prompt tokens."""
    output_per_mtok: float = Field(ge=0)
    """USD per million completion tokens."""


class ConditionConfig(StrictModel):
    """One matchup: agent A against agent B."""

    name: str = Field(pattern=_NAME_PATTERN)
    """Unique name (letters, digits, ``_ . -``); part of every match id."""
    agent_a: AgentConfig
    """The first player (a ref, or an inline agent)."""
    agent_b: AgentConfig
    """The second player."""
    noise: float | None = Field(default=None, ge=0, le=1)
    """Probability of flipping each intended action (None: the experiment's ``noise``)."""


def _agent_entry(entry: Any) -> Any:
    """A round-robin entry: an agent mapping, or a policy name as shorthand."""
    if isinstance(entry, str):
        return {"type": "policy", "policy": entry}
    return entry


class RoundRobinConfig(StrictModel):
    """Every pairing of ``agents`` as a condition named ``<a>_vs_<b>`` (list order)."""

    agents: list[AgentConfig] = Field(min_length=1)
    """The players: agents (a ref, or inline) or policy names (``TFT``, ``axelrod:Grudger``);
    each needs a distinct name (set ``name`` when two would share one)."""
    self_play: bool = False
    """Also pair every agent with itself (two instances, each with its own seeds)."""
    noise: float | None = Field(default=None, ge=0, le=1)
    """Noise of every pairing (None: the experiment's ``noise``)."""

    @field_validator("agents", mode="before")
    @classmethod
    def _shorthand(cls, agents: Any) -> Any:
        return [_agent_entry(a) for a in agents] if isinstance(agents, list) else agents

    @model_validator(mode="after")
    def _enough_and_distinct(self) -> RoundRobinConfig:
        names = [agent.display_name for agent in self.agents]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"two agents are named {name!r}: give them distinct 'name's")
        if len(names) < 2 and not self.self_play:
            raise ValueError("a round robin needs two agents, or self_play: true")
        return self

    def conditions(self) -> list[ConditionConfig]:
        """The pairings as conditions, in order: (0, 1), (0, 2), ..., then (1, 2), ..."""
        names = [agent.display_name for agent in self.agents]
        return [
            ConditionConfig(
                name=pairing_name(names[i], names[j]),
                agent_a=self.agents[i],
                agent_b=self.agents[j],
                noise=self.noise,
            )
            for i, j in pairings(len(self.agents), self_play=self.self_play)
        ]


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

    @field_validator("max_concurrency_per_model")
    @classmethod
    def _positive_limits(cls, limits: dict[str, int]) -> dict[str, int]:
        for key, limit in limits.items():
            if limit < 1:
                raise ValueError(f"{key}: a limit must be at least 1, got {limit}")
        return limits


class ExperimentConfig(ProviderLayerConfig):
    """An iterated PD experiment (``configs/experiment.yaml``)."""

    game: Literal["pd"] = "pd"
    """The game: ``pd``."""
    run_id: str = Field(pattern=_NAME_PATTERN, max_length=MAX_NAME_LENGTH)
    """Name of the run; the run directory defaults to ``data/runs/<run_id>``."""
    seed: Seed
    """The one seed every random stream is derived from."""
    output_dir: str | None = None
    """Run directory, relative to the working directory (default ``data/runs/<run_id>``)."""
    replicates: int = Field(default=1, ge=1, le=MAX_MATCHES)
    """Matches per condition, each with its own seeds (``--replicates`` overrides)."""
    max_matches: int = Field(default=MAX_MATCHES, ge=1)
    """The most matches (conditions x replicates) a run may plan; a guard against a typo
    that would plan billions. Raise it to play more."""
    store_prompts: bool = False
    """Write every LLM prompt and raw reply into ``rounds.jsonl``."""
    payoffs: PayoffsConfig = Field(default_factory=PayoffsConfig)
    """The payoff matrix."""
    horizon: HorizonConfig
    """How long matches last: ``fixed`` or ``geometric``."""
    metrics: MetricsConfig = Field(default_factory=MetricsConfig)
    """Metrics dbt computes, and their parameters."""
    noise: float = Field(default=0.0, ge=0, le=1)
    """Probability of flipping each intended action (execution noise); conditions override."""
    conditions: list[ConditionConfig] = Field(default_factory=list)
    """The matchups written by hand; after validation, followed by the round robin's."""
    round_robin: RoundRobinConfig | None = None
    """Agents to pair with each other; every pairing is appended to ``conditions``."""

    @field_validator("conditions")
    @classmethod
    def _unique_names(cls, conditions: list[ConditionConfig]) -> list[ConditionConfig]:
        seen: set[str] = set()
        for condition in conditions:
            if condition.name in seen:
                raise ValueError(f"condition name {condition.name!r} is used twice")
            seen.add(condition.name)
        return conditions

    @model_validator(mode="after")
    def _expand_round_robin(self) -> ExperimentConfig:
        expanded = list(self.conditions)
        if self.round_robin is not None:
            by_name = {c.name: c for c in expanded}
            for condition in self.round_robin.conditions():
                same = by_name.get(condition.name)
                if same == condition:
                    continue  # a snapshot that already holds the expansion
                if same is not None:
                    raise ValueError(
                        f"condition name {condition.name!r} is used twice (a hand-written "
                        "condition and a round_robin pairing)"
                    )
                expanded.append(condition)
        if not expanded:
            raise ValueError("no conditions: give 'conditions', 'round_robin', or both")
        # the model is frozen; the expansion is part of validation, as a default would be
        object.__setattr__(self, "conditions", expanded)
        return self

    @property
    def round_robin_conditions(self) -> list[str]:
        """Names of the conditions the round robin added."""
        if self.round_robin is None:
            return []
        return [c.name for c in self.round_robin.conditions()]

    def run_dir(self, override: str | Path | None = None) -> Path:
        """Where this run writes: ``override``, else ``output_dir``, else data/runs/<run_id>."""
        if override is not None:
            return Path(override)
        return Path(self.output_dir) if self.output_dir else Path("data/runs") / self.run_id

    def metric_params(self) -> dict:
        """The manifest's ``metric_params``."""
        return metric_params(
            metrics=self.metrics.names,
            collapse_k=self.metrics.collapse.k,
            collapse_threshold=self.metrics.collapse.threshold,
        )


GAME_CONFIGS: dict[str, type[StrictModel]] = {"pd": ExperimentConfig}
"""``game:`` value -> the model of that game's experiment file (``arena`` is added at the end
of this module, once everything the arena config builds on is defined)."""


# ---------------------------------------------------------------------------------------------
# loading


@dataclass(frozen=True)
class RefSite:
    """Where a ref was expanded: the field path, the file it brought in, its overrides."""

    loc: tuple[str | int, ...]
    file: str
    overrides: dict


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config and what it took to get it."""

    path: str
    """The file as the user named it."""
    root: Path
    """Its folder: relative paths inside the config are read from here."""
    config: Any
    """The validated model (``ExperimentConfig`` for ``game: pd``, ``ArenaConfig`` for
    ``game: arena``)."""
    warnings: list[str] = field(default_factory=list)
    """One line each, ``<file>: <field>: <message>``."""

    @property
    def snapshot(self) -> dict:
        """The resolved config as JSON data (refs expanded, overrides applied)."""
        return self.config.model_dump(mode="json")


def read_text_file(path: Path, *, shown: str) -> str:
    """A prompt or persona file as text; a ``ValueError`` naming it (``shown``) when it is not
    UTF-8, is larger than ``MAX_CONFIG_BYTES`` or cannot be read."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{shown}: cannot read the file: {exc.strerror or exc}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(
            f"{shown}: {len(data):,} bytes; a prompt holds at most {MAX_CONFIG_BYTES:,}"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{shown}: not UTF-8 text (byte {exc.start})") from None


def _display(path: str | os.PathLike[str]) -> str:
    return os.path.normpath(os.fspath(path))


def read_yaml(path: str | os.PathLike[str]) -> dict:
    """A YAML file that must hold a mapping; errors name the file (and line). Duplicate keys,
    more than ``MAX_YAML_ALIASES`` aliases, nesting deeper than ``MAX_YAML_DEPTH`` and files
    over ``MAX_CONFIG_BYTES`` are refused."""
    shown = _display(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigError("file not found", path=shown) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the file: {exc.strerror or exc}", path=shown) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"the file is {len(data):,} bytes; a config holds at most {MAX_CONFIG_BYTES:,}",
            path=shown,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text (byte {exc.start})", path=shown) from None
    try:
        content = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"invalid YAML: {problem}", path=shown, field=where) from None
    except ValueError as exc:  # an integer of thousands of digits
        problem = str(exc).split(":")[0].splitlines()[0]
        raise ConfigError(f"invalid YAML: {problem}", path=shown) from None
    if content is None:
        raise ConfigError("the file is empty", path=shown)
    if not isinstance(content, dict):
        raise ConfigError("expected a mapping of keys at the top level", path=shown)
    return content


if yaml.__with_libyaml__:

    class _SafeBase(Composer, CParser, SafeConstructor, Resolver):  # type: ignore[misc]
        """libyaml's scanner and parser (8x faster than PyYAML's) under PyYAML's own composer,
        so that the composing below can be bounded, and its safe constructor."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            Composer.__init__(self)

else:  # pragma: no cover - PyYAML built without libyaml
    _SafeBase = yaml.SafeLoader  # type: ignore[misc, assignment]


class _StrictLoader(_SafeBase):
    """A safe loader refusing duplicate keys and bounding aliases, depth and expanded size."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None, None, f"more than {MAX_YAML_ALIASES} aliases (*name)", mark
                )
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_document(self) -> Any:
        node = super().compose_document()
        if _expanded_size(node, {}) > MAX_YAML_VALUES:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"expands to more than {MAX_YAML_VALUES:,} values through its aliases",
                node.start_mark,
            )
        return node

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, list | dict):
                continue
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _expanded_size(node: Any, sizes: dict[int, int]) -> int:
    """Values in ``node`` with every alias expanded; each shared node is sized once."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes) + _expanded_size(v, sizes) for k, v in node.value)
    sizes[id(node)] = size
    return size


def deep_merge(base: Mapping, overrides: Mapping) -> dict:
    """``base`` with ``overrides`` applied: mappings merge key by key, anything else replaces."""
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def resolve_refs(
    node: Any,
    *,
    file: str,
    loc: tuple[str | int, ...] = (),
    sites: list[RefSite] | None = None,
    chain: tuple[str, ...] = (),
    files: dict[str, dict] | None = None,
) -> Any:
    """``node`` with every ``{ref, overrides}`` mapping replaced by the merged file content.

    ``file`` is the (displayed) file holding ``node``; refs are relative to its folder.
    Expanded refs are appended to ``sites`` so errors can name the file a value came from.
    ``files`` keeps each referenced file as read, so a file many conditions refer to is read
    once (resolving builds new containers and never changes what it read).
    """
    if sites is None:
        sites = []
    if files is None:
        files = {}
    if isinstance(node, list):
        return [
            resolve_refs(item, file=file, loc=(*loc, i), sites=sites, chain=chain, files=files)
            for i, item in enumerate(node)
        ]
    if not isinstance(node, dict):
        return node
    if "ref" not in node:
        return {
            key: resolve_refs(
                value, file=file, loc=(*loc, key), sites=sites, chain=chain, files=files
            )
            for key, value in node.items()
        }
    where = _field_path(loc)
    extra = sorted(set(node) - {"ref", "overrides"})
    if extra:
        raise ConfigError(
            f"a ref takes only 'ref' and 'overrides', not {extra[0]!r}", path=file, field=where
        )
    ref = node["ref"]
    overrides = node.get("overrides") or {}
    if not isinstance(ref, str) or not ref:
        raise ConfigError("ref must be a relative file path", path=file, field=f"{where}.ref")
    if not isinstance(overrides, dict):
        raise ConfigError("overrides must be a mapping", path=file, field=f"{where}.overrides")
    target = _display(Path(os.path.dirname(file)) / ref)
    if target in chain:
        raise ConfigError(f"refs form a cycle through {ref}", path=file, field=f"{where}.ref")
    if not Path(target).is_file():
        raise ConfigError(f"file not found: {ref}", path=file, field=f"{where}.ref")
    if target not in files:
        files[target] = read_yaml(target)
    content = resolve_refs(
        files[target], file=target, loc=loc, sites=sites, chain=(*chain, file), files=files
    )
    sites.append(RefSite(loc=loc, file=target, overrides=overrides))
    return deep_merge(content, overrides)


def _field_path(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.startswith(_TAG_PREFIX):
            continue
        else:
            name = str(part)
            if not _PLAIN_KEY.fullmatch(name):
                name = repr(name)
            out += f".{name}" if out else name
    return out


def _in_overrides(overrides: Any, rest: tuple[str | int, ...]) -> bool:
    node = overrides
    for part in rest:
        if isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return False
    return True


def _message(error: Mapping[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required key is missing"
    message = str(error["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    value = error.get("input")
    if kind not in {"value_error", "invalid_tag"} and isinstance(value, str | int | float | bool):
        message += f" (got {value!r})"
    elif kind == "invalid_tag" and isinstance(value, Mapping) and "type" in value:
        message += f" (got {value['type']!r})"
    return message


def _config_error(exc: ValidationError, *, file: str, sites: list[RefSite]) -> ConfigError:
    errors = exc.errors()
    error = errors[0]
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith(_TAG_PREFIX)))
    message = _message(error)
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more)"
    site = max(
        (s for s in sites if loc[: len(s.loc)] == s.loc),
        key=lambda s: len(s.loc),
        default=None,
    )
    if site is not None:
        rest = loc[len(site.loc) :]
        if rest and not _in_overrides(site.overrides, rest):
            referenced = f"referenced from {file}: {_field_path(site.loc)}"
            return ConfigError(
                f"{message} ({referenced})", path=site.file, field=_field_path(rest) or None
            )
    return ConfigError(message, path=file, field=_field_path(loc) or None)


def load_config(path: str | os.PathLike[str]) -> LoadedConfig:
    """Read, resolve and validate the experiment file at ``path`` (any game)."""
    file = _display(path)
    raw = read_yaml(path)
    game = raw.get("game", "pd")
    model = GAME_CONFIGS.get(game) if isinstance(game, str) else None
    if model is None:
        raise ConfigError(
            f"unknown game {game!r} (known: {', '.join(GAME_CONFIGS)})", path=file, field="game"
        )
    sites: list[RefSite] = []
    resolved = resolve_refs(raw, file=file, sites=sites)
    root = Path(os.path.dirname(file) or ".")
    context: dict[str, Any] = {"root": root, "warnings": []}
    try:
        config = model.model_validate(resolved, context=context)
    except ValidationError as exc:
        raise _config_error(exc, file=file, sites=sites) from None
    # one agent file referenced by many conditions would say the same thing many times
    warnings = list(
        dict.fromkeys(f"{file}: {where}: {message}" for where, message in context["warnings"])
    )
    return LoadedConfig(path=file, root=root, config=config, warnings=warnings)


# The arena's config builds on StrictModel above; importing it here (and not at the top) keeps
# the two modules free of an import cycle whichever is imported first.
from pdbench.arena.config import ArenaConfig  # noqa: E402

GAME_CONFIGS["arena"] = ArenaConfig
