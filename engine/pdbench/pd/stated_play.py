"""A stated strategy played as a policy: what the table an agent stated would have earned.

When an LLM agent states its strategy (:mod:`pdbench.pd.statements`) and its opponent is a
policy, pdbench plays the stated table itself against a copy of that opponent, taken before
the match starts (same random draws as the opponent of the real match), for the match's
planned rounds and with the same execution noise streams. The table cooperates with its
stated probability: first, then after each outcome of the round before as executed. The
mean points per round it earns go to the statement's line
(``stated_points_per_round``), beside which ``stated_vs_played.parquet`` puts what the agent
earned. Against an LLM opponent there is no such match: it would cost calls.
"""

from __future__ import annotations

import copy
import random
from typing import ClassVar

from pdbench.pd.agents.base import Agent
from pdbench.pd.agents.policy import Policy
from pdbench.pd.noise import noisy
from pdbench.pd.plan import MatchPlan
from pdbench.pd.statements import StatedStrategy

__all__ = ["StatedPolicy", "opponent_copy", "stated_points_per_round"]


class StatedPolicy(Policy):
    """Cooperates with the stated probability: ``first`` in round 1, then the probability of
    the outcome of the round before, its own action first (``cc``, ``cd``, ``dc``, ``dd``)."""

    name = "STATED"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 1, "stochastic": True}

    def __init__(self, table: StatedStrategy) -> None:
        self.table = table
        self._draw = random.Random(0).random

    def reset(self, seed: int | None = None) -> None:
        self._draw = random.Random(seed).random

    def _choose(self, p_cooperate: float) -> str:
        if p_cooperate >= 1:
            return "C"
        if p_cooperate <= 0:
            return "D"
        return "C" if self._draw() < p_cooperate else "D"

    def first_action(self) -> str:
        return self._choose(self.table.first)

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        return self._choose(self.table.p_cooperate((own + opponent).lower()))


def opponent_copy(agent: Agent) -> Policy | None:
    """A copy of ``agent``, as it stands before its match, when it is a classic policy;
    None otherwise (an LLM agent, or a strategy outside pdbench's own policies)."""
    return copy.deepcopy(agent) if isinstance(agent, Policy) else None


def stated_points_per_round(
    table: StatedStrategy,
    *,
    opponent: Policy,
    side: str,
    plan: MatchPlan,
    payoffs: dict[tuple[str, str], tuple[float, float]],
    seed: int,
) -> float | None:
    """Mean points per round of ``table`` played on ``side`` against ``opponent`` (a copy,
    see :func:`opponent_copy`) for the planned rounds of ``plan``, with its noise streams;
    None for a match of no rounds."""
    if plan.planned_rounds == 0:
        return None
    stated = StatedPolicy(table)
    stated.reset(seed)
    on_a = side == "agent_a"
    noise_a, noise_b = (noisy(noise=plan.noise, seed=plan_seed) for plan_seed in plan.noise_seeds)
    first, second = (stated, opponent) if on_a else (opponent, stated)
    action_a, action_b = noise_a(first.first_action()), noise_b(second.first_action())
    total = 0.0
    for round_index in range(1, plan.planned_rounds + 1):
        if round_index > 1:
            payoff_a, payoff_b = payoffs[action_a, action_b]
            action_a, action_b = (
                noise_a(first.next_action(action_a, action_b, payoff_a)),
                noise_b(second.next_action(action_b, action_a, payoff_b)),
            )
        total += payoffs[action_a, action_b][0 if on_a else 1]
    return total / plan.planned_rounds
