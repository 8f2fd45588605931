"""Agent config ``type`` -> the factory that builds a fresh agent for one match."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pdbench.pd.actions import Action
from pdbench.pd.agent_config import LLMAgentConfig, PolicyAgentConfig
from pdbench.pd.agents.axelrod_policy import AxelrodPolicy, is_axelrod
from pdbench.pd.agents.base import Agent
from pdbench.pd.agents.llm import LLMAgent
from pdbench.pd.agents.policy import make_policy
from pdbench.pd.agents.probe import AshlockProbe
from pdbench.pd.agents.prompts import PromptTemplates
from pdbench.pd.labels import DEFAULT_LABELS, ActionLabels
from pdbench.pd.payoff import PayoffMatrix
from pdbench.providers.base import make_provider
from pdbench.providers.calls import CallContext
from pdbench.providers.gateway import gateway_for
from pdbench.providers.runtime import ProviderRuntime
from pdbench.rng import derive_seed

__all__ = ["AGENT_FACTORIES", "MatchSetup", "build_agent"]


@dataclass(frozen=True)
class MatchSetup:
    """What every agent of one match is built from."""

    run_id: str
    seed: int
    """The run seed."""
    match_id: str
    condition: str
    replicate: int
    matrix: PayoffMatrix
    root: Path
    """Folder that relative config paths are read from."""
    record_call: Callable[[dict[str, Any]], None]
    """Receives each provider call's ``calls.jsonl`` record."""
    runtime: ProviderRuntime | None = None
    """Shared by every gateway of the run: cache, prices, limits, back-off clock, cancel."""
    known_length: int | None = None
    """The match length agents may know: the fixed horizon's n (None when geometric)."""
    noise: float = 0.0
    """The match's execution noise (Axelrod strategies are told it, as in ``axl.Match``)."""
    labels: ActionLabels = DEFAULT_LABELS
    """The actions' labels in the LLM agents' prompts and replies (``actions:``)."""


def _policy(config: PolicyAgentConfig, *, side: str, setup: MatchSetup) -> Agent:
    if is_axelrod(config.policy):
        return AxelrodPolicy(
            policy=config.policy,
            params=config.params,
            payoffs=setup.matrix.view(side),
            known_length=setup.known_length,
            noise=setup.noise,
        )
    if config.point is not None:
        return AshlockProbe(x=config.point[0], y=config.point[1])
    return make_policy(
        config.policy,
        payoffs=setup.matrix.view(side),
        generous_prob=config.generous_prob,
        win_threshold=config.win_threshold,
        coop_prob=config.coop_prob,
    )


@lru_cache(maxsize=64)
def _templates(
    *, system: Path, round_: Path, persona: Path | None, strategy: Path | None
) -> PromptTemplates:
    return PromptTemplates.from_files(
        system_path=system, round_path=round_, persona_path=persona, strategy_path=strategy
    )


def _llm(config: LLMAgentConfig, *, side: str, setup: MatchSetup) -> Agent:
    client = make_provider(
        config.provider,
        settings=config,
        seed=derive_seed(setup.seed, "provider", setup.condition, setup.replicate, side),
    )
    gateway = gateway_for(
        config, client=client, run_id=setup.run_id, record=setup.record_call, runtime=setup.runtime
    )
    return LLMAgent(
        name=config.display_name,
        side=side,
        templates=_templates(
            system=setup.root / config.system_prompt,
            round_=setup.root / config.round_prompt,
            persona=config.persona_path(setup.root),
            strategy=setup.root / config.strategy_prompt if config.elicit_strategy else None,
        ),
        matrix=setup.matrix,
        gateway=gateway,
        context=CallContext(
            game="pd",
            phase="pd_round",
            agent=side,
            match_id=setup.match_id,
            condition=setup.condition,
            replicate=setup.replicate,
        ),
        history_window=config.history_window,
        include_totals=config.include_totals,
        output_format=config.output_format,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        max_retries=config.max_retries,
        on_invalid=config.on_invalid,
        fallback_action=Action(config.fallback_action),
        labels=setup.labels,
        strategy_max_tokens=config.strategy_max_tokens,
    )


AGENT_FACTORIES: dict[str, Callable[..., Agent]] = {"policy": _policy, "llm": _llm}
"""Agent config ``type`` -> ``factory(config, *, side, setup)``."""


def build_agent(config: Any, *, side: str, setup: MatchSetup) -> Agent:
    """A fresh agent for ``side`` (``agent_a``/``agent_b``) of the match ``setup`` describes,
    reset with its own seed ``(seed, "agent", condition, replicate, side)``."""
    agent = AGENT_FACTORIES[config.type](config, side=side, setup=setup)
    agent.reset(derive_seed(setup.seed, "agent", setup.condition, setup.replicate, side))
    return agent
