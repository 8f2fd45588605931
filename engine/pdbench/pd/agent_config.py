"""The PD's agent configs: a policy, or an LLM agent (with its mock for keyless runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pdbench.config.base import (
    PLAIN_KEY,
    StrictModel,
    config_root,
    one_of,
    read_text_file,
    tagged_union,
)
from pdbench.config.providers import ProviderAccessConfig
from pdbench.errors import unknown
from pdbench.pd.agents.axelrod_policy import (
    axelrod_strategy,
    check_axelrod_params,
    is_axelrod,
)
from pdbench.pd.agents.policy import POLICIES
from pdbench.pd.agents.probe import PROBE
from pdbench.pd.agents.prompts import (
    ROUND_PLACEHOLDERS,
    STRATEGY_PLACEHOLDERS,
    SYSTEM_PLACEHOLDERS,
    template_problem,
)
from pdbench.pd.mock_player import PDMockPlayer
from pdbench.pd.statements import STATED_POLICIES
from pdbench.providers.mock import MockSetup

UnitFloat = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class PolicyAgentConfig(StrictModel):
    """A classic policy (``configs/agents/policies.yaml``)."""

    type: Literal["policy"]
    """``policy``."""
    policy: str
    """One of ALLC, ALLD, TFT, GRIM, GTFT, WSLS, URND (random, ``coop_prob``), ALT
    (alternates C, D, ...), DEFECT_ONCE (D in round 1, then C); ``PROBE``, Ashlock's
    fingerprint probe (:mod:`pdbench.pd.agents.probe`); or ``axelrod:<Strategy>``, any
    strategy of the Axelrod library by class name (optional extra: ``uv sync --extra
    axelrod``)."""
    name: str | None = None
    """Name in the records (default: the policy name)."""
    params: dict[str, Any] | None = None
    """Axelrod strategies only: keyword arguments of the strategy's constructor."""
    generous_prob: float | None = Field(default=None, ge=0, le=1)
    """GTFT only: probability of forgiving a defection (default from the payoffs; 1/3)."""
    win_threshold: float | None = None
    """WSLS only: a payoff >= this is a win (default R)."""
    coop_prob: float | None = Field(default=None, ge=0, le=1)
    """URND only (and required): the probability of cooperating in each round (Fontana et
    al.'s alpha)."""
    point: tuple[UnitFloat, UnitFloat] | None = None
    """PROBE only (and required): the fingerprint point ``[x, y]`` in the unit square."""

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, policy: str) -> str:
        if is_axelrod(policy):
            axelrod_strategy(policy)
        elif policy not in POLICIES and policy != PROBE:
            known = [*POLICIES, PROBE, "or axelrod:<Strategy>"]
            raise ValueError(unknown("policy", policy, known))
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
        if (self.coop_prob is None) == (self.policy == "URND"):
            raise ValueError(
                "a URND needs its coop_prob (0..1)"
                if self.coop_prob is None
                else f"coop_prob applies to URND only, not {self.policy}"
            )
        if (self.point is None) == (self.policy == PROBE):
            raise ValueError(
                "a PROBE needs its point: [x, y]"
                if self.point is None
                else f"point applies to PROBE only, not {self.policy}"
            )
        return self

    @property
    def display_name(self) -> str:
        """The name written to the records (a probe's default: ``PROBE(x,y)``)."""
        if self.name:
            return self.name
        if self.point is not None:
            return f"{PROBE}({self.point[0]:g},{self.point[1]:g})"
        if self.coop_prob is not None:
            return f"URND({self.coop_prob:g})"
        return self.policy


class MockConfig(StrictModel):
    """How the ``mock`` provider behaves (ignored by other providers)."""

    strategy: Annotated[str, one_of("strategy", POLICIES)] = "TFT"
    """The policy the mock plays through the prompt: ALLC, ALLD, TFT, GRIM, GTFT, WSLS."""
    invalid_rate: float = Field(default=0.0, ge=0, le=1)
    """Probability that a reply is invalid (seeded)."""
    truncated_rate: float = Field(default=0.0, ge=0, le=1)
    """Probability that a reply runs long (seeded): the prompt echoed, then the move, cut at
    ``max_tokens`` and reported cut at the token limit, as a small model's reply often is."""
    latency_ms: float = Field(default=0.0, ge=0)
    """Simulated latency per call."""
    seed: int | None = None
    """Fixed seed for the mock (default: derived from the run seed, condition and replicate)."""
    stated_strategy: Annotated[str, one_of("stated_strategy", STATED_POLICIES)] | None = None
    """The strategy the mock states when asked (``elicit_strategy``): ALLC, ALLD, TFT, GRIM,
    GTFT, WSLS; default: ``strategy``, the one it plays. Another one plants a lie."""


def _checked_template(value: str, info: ValidationInfo, allowed: frozenset[str]) -> str:
    path = config_root(info) / value
    if not path.is_file():
        raise ValueError(f"prompt file not found: {value}")
    problem = template_problem(read_text_file(path, shown=value), allowed)
    if problem:
        raise ValueError(f"{value}: {problem}")
    return value


class LLMAgentConfig(ProviderAccessConfig):
    """An LLM agent (``configs/agents/llm_default.yaml``). Paths are relative to the folder of
    the experiment file."""

    type: Literal["llm"]
    """``llm``."""
    name: str | None = None
    """Name in the records (default: ``<provider>/<model>`` plus ``:<persona>``)."""
    max_tokens: int = Field(default=16, ge=1)
    """Most tokens a reply may have."""
    system_prompt: str = Field(default="prompts/pd_system.md", validate_default=True)
    """System prompt template."""
    round_prompt: str = Field(default="prompts/pd_round.md", validate_default=True)
    """Round prompt template."""
    personas_dir: str = Field(default="prompts/personas", validate_default=True)
    """Folder of persona fragments (``<persona>.md``)."""
    persona: str | None = None
    """Persona fragment put into the system prompt (None: no persona)."""
    history_window: int = Field(default=5, ge=0)
    """How many past rounds the round prompt shows."""
    include_totals: bool = True
    """Whether the round prompt states both running totals."""
    output_format: Literal["token", "json", "lenient", "reasoning"] = "token"
    """How a reply is read (:mod:`pdbench.pd.moves`): ``token`` (strict: C or D),
    ``json`` (strict: ``{"action": "C"}``), ``lenient`` (asked for a letter, read by the
    documented lenient rules) or ``reasoning`` (asked to reason, then a final ``ACTION: C``
    line)."""
    max_retries: int = Field(default=2, ge=0)
    """Re-prompts after an invalid reply (attempts per round = 1 + max_retries)."""
    on_invalid: Literal["abort", "fallback"] = "fallback"
    """When every attempt is invalid: ``abort`` the match, or play ``fallback_action``."""
    fallback_action: Literal["C", "D"] = "D"
    """The action played (and recorded as invalid) when ``on_invalid`` is ``fallback``."""
    elicit_strategy: bool = False
    """Ask the agent once per match, before its first move, to state its strategy as a
    memory-one table (``statements.jsonl``; held against its play in
    ``stated_vs_played.parquet``, docs/strategy.md)."""
    strategy_prompt: str = "prompts/pd_strategy.md"
    """The strategy statement's template (read only with ``elicit_strategy``)."""
    strategy_max_tokens: int = Field(default=80, ge=1)
    """Most tokens a strategy statement may have."""
    mock: MockConfig = Field(default_factory=MockConfig)
    """Settings of the mock provider."""

    @field_validator("batch")
    @classmethod
    def _no_batch_in_matches(cls, batch: bool) -> bool:
        if batch:
            raise ValueError(
                "PD matches are sequential (every move waits for the one before), so batch mode "
                "is refused here; it is for the arena's players"
            )
        return batch

    @field_validator("system_prompt", "round_prompt")
    @classmethod
    def _template_exists(cls, value: str, info: ValidationInfo) -> str:
        allowed = SYSTEM_PLACEHOLDERS if info.field_name == "system_prompt" else ROUND_PLACEHOLDERS
        return _checked_template(value, info, allowed)

    @model_validator(mode="after")
    def _strategy_template_exists(self, info: ValidationInfo) -> LLMAgentConfig:
        if self.elicit_strategy:
            try:
                _checked_template(self.strategy_prompt, info, STRATEGY_PLACEHOLDERS)
            except ValueError as exc:
                raise ValueError(f"strategy_prompt: {exc}") from None
        return self

    @field_validator("personas_dir")
    @classmethod
    def _personas_dir_exists(cls, value: str, info: ValidationInfo) -> str:
        if not (config_root(info) / value).is_dir():
            raise ValueError(f"folder not found: {value}")
        return value

    @field_validator("persona")
    @classmethod
    def _known_persona(cls, persona: str | None, info: ValidationInfo) -> str | None:
        if persona is None or "personas_dir" not in info.data:
            return persona
        folder = config_root(info) / info.data["personas_dir"]
        if not PLAIN_KEY.fullmatch(persona) or not (folder / f"{persona}.md").is_file():
            known = sorted(p.stem for p in folder.glob("*.md"))
            raise ValueError(unknown("persona", persona, known))
        read_text_file(folder / f"{persona}.md", shown=f"{info.data['personas_dir']}/{persona}.md")
        return persona

    @property
    def display_name(self) -> str:
        """The name written to the records."""
        if self.name:
            return self.name
        suffix = f":{self.persona}" if self.persona else ""
        return f"{self.provider}/{self.model}{suffix}"

    def mock_setup(self) -> MockSetup:
        """The mock that stands in for this agent (:class:`pdbench.providers.mock.MockSource`):
        it plays ``mock.strategy`` in the agent's output format."""
        return MockSetup(
            player=PDMockPlayer(
                strategy=self.mock.strategy,
                output_format=self.output_format,
                stated_strategy=self.mock.stated_strategy,
            ),
            seed=self.mock.seed,
            invalid_rate=self.mock.invalid_rate,
            latency_ms=self.mock.latency_ms,
            truncated_rate=self.mock.truncated_rate,
        )

    def persona_path(self, root: Path) -> Path | None:
        """The persona fragment file, or None."""
        return root / self.personas_dir / f"{self.persona}.md" if self.persona else None


AgentConfig = tagged_union(PolicyAgentConfig, LLMAgentConfig)


def distinct_names(agents: list[PolicyAgentConfig | LLMAgentConfig]) -> list[str]:
    """The agents' display names, in order; ``ValueError`` when two agents share one."""
    names = [agent.display_name for agent in agents]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"two agents are named {name!r}: give them distinct 'name's")
    return names


# ---------------------------------------------------------------------------------------------
# the experiment
