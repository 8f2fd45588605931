"""The mock's Prisoner's Dilemma player: reads the prompt, answers as a named policy.

It plays through the text interface, like a model would: it reads its own payoffs from the
payoff table of the system prompt and the visible history from the round prompt (both in the
line formats of :mod:`pdbench.pd.transcript`), replays a fresh policy over that history and
answers with the policy's next action, in the action labels of the payoff table (``C``/``D``,
or neutral ones such as ``J``/``F``). It sees exactly what a model sees, so GRIM, for one,
only remembers defections that are still inside the history window.

Asked for its strategy (a statement prompt, :mod:`pdbench.pd.statements`), it answers with
the memory-one table of ``stated_strategy``, by default the policy it plays.
"""

from __future__ import annotations

from random import Random

from pdbench.errors import unknown
from pdbench.pd.actions import Observation
from pdbench.pd.agents.policy import POLICIES, make_policy
from pdbench.pd.moves import ActionFormat
from pdbench.pd.payoff import PayoffView
from pdbench.pd.statements import is_statement_prompt, policy_table
from pdbench.pd.transcript import parse_history, parse_labels, parse_payoff_table

__all__ = ["PDMockPlayer"]

_FALLBACK_PAYOFFS = PayoffView(R=3, S=0, T=5, P=1)


class PDMockPlayer:
    """Answers PD round prompts as policy ``strategy`` (ALLC, ALLD, TFT, GRIM, GTFT, WSLS)."""

    def __init__(
        self,
        *,
        strategy: str,
        output_format: ActionFormat = "token",
        stated_strategy: str | None = None,
    ) -> None:
        if strategy not in POLICIES:
            raise ValueError(unknown("strategy", strategy, POLICIES))
        self.strategy = strategy
        self.output_format = output_format
        self.stated_strategy = stated_strategy or strategy

    def reply(self, *, system: str, prompt: str, rng: Random) -> str:
        payoffs = parse_payoff_table(system) or _FALLBACK_PAYOFFS
        if is_statement_prompt(prompt):
            return policy_table(self.stated_strategy, payoffs).as_json()
        labels = parse_labels(system)
        history = parse_history(prompt, labels)
        policy = make_policy(self.strategy, payoffs=payoffs)
        policy.reset(rng.getrandbits(63))
        for seen in range(len(history)):
            policy.act(Observation(round_index=seen + 1, history=history[:seen]))
        action = labels.label(
            str(policy.act(Observation(round_index=len(history) + 1, history=history)))
        )
        if self.output_format == "json":
            return f'{{"action": "{action}"}}'
        if self.output_format == "reasoning":
            return f"I play as {self.strategy} would, given the rounds shown.\nACTION: {action}"
        return str(action)
