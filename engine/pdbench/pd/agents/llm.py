"""The LLM agent: renders the prompts, asks its provider, parses, re-asks, records.

One ``act`` is one round: up to ``1 + max_retries`` attempts, each a provider call through the
gateway (so each lands in ``calls.jsonl``). A reply cut at the token limit is invalid whatever
it holds: a cut reply is not what the model meant to say, and a lenient rule would read a
history echo ("You chose D, the other player played D; you got 1.") as a move. A reply that
still does not parse after the last attempt is never counted as a move: the agent either
aborts the match (``on_invalid: abort``) or plays ``fallback_action`` with ``valid=False`` in
its decision.

An agent built with a strategy template (``elicit_strategy``) also answers
:meth:`LLMAgent.state_strategy` once per match, before its first move: the same attempts and
re-asks, read by :func:`pdbench.pd.statements.parse_statement`; a statement that stays
invalid is recorded as such and never aborts the match (:mod:`pdbench.pd.statements`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Literal

from pdbench.pd.actions import Action, Observation
from pdbench.pd.agents.base import Decision, MatchAborted
from pdbench.pd.agents.prompts import (
    PromptTemplates,
    correction_prompt,
    render_round,
    render_strategy,
    render_system,
    strategy_correction_prompt,
)
from pdbench.pd.labels import DEFAULT_LABELS, ActionLabels
from pdbench.pd.moves import ActionFormat, extract_action
from pdbench.pd.payoff import PayoffMatrix
from pdbench.pd.statements import StatedStrategy, parse_statement
from pdbench.pd.transcript import last_rounds
from pdbench.providers.calls import CallContext, CallRequest, Reply, Verdict
from pdbench.providers.gateway import ProviderGateway
from pdbench.replies import INVALID, Extraction

__all__ = ["LLMAgent", "Statement"]


@dataclass(frozen=True, slots=True)
class Statement:
    """What an agent said of its strategy: the table (None when every reply was invalid),
    the attempts, whether a reply was cut, the prompt and the raw replies."""

    table: StatedStrategy | None
    attempts: int
    truncated: bool
    prompt: str
    raw_responses: tuple[str, ...]


class LLMAgent:
    """An agent whose moves come from a provider's replies to rendered prompts."""

    kind: ClassVar[Literal["llm"]] = "llm"

    def __init__(
        self,
        *,
        name: str,
        side: str,
        templates: PromptTemplates,
        matrix: PayoffMatrix,
        gateway: ProviderGateway,
        context: CallContext,
        history_window: int,
        include_totals: bool = True,
        output_format: ActionFormat = "token",
        temperature: float = 0.0,
        max_tokens: int = 16,
        max_retries: int = 2,
        on_invalid: Literal["abort", "fallback"] = "fallback",
        fallback_action: Action = Action.D,
        labels: ActionLabels = DEFAULT_LABELS,
        strategy_max_tokens: int = 80,
    ) -> None:
        self.name = name
        self.side = side
        self.templates = templates
        self.gateway = gateway
        self.context = context
        self.history_window = history_window
        self.history_needed: int | None = history_window
        self.include_totals = include_totals
        self.output_format: ActionFormat = output_format
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self.on_invalid = on_invalid
        self.fallback_action = Action(fallback_action)
        self.labels = labels
        self.strategy_max_tokens = strategy_max_tokens
        self.elicits_strategy = bool(templates.strategy)
        self.system_prompt = render_system(
            templates, matrix=matrix, side=side, output_format=output_format, labels=labels
        )
        self.last_decision = Decision()

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget: everything the agent knows is in the prompt."""
        self.last_decision = Decision()

    def render_round_prompt(self, obs: Observation) -> str:
        """The round prompt for ``obs``: exactly the last ``history_window`` rounds."""
        return render_round(
            self.templates,
            round_index=obs.round_index,
            turns=last_rounds(obs.history, self.history_window),
            history_window=self.history_window,
            include_totals=self.include_totals,
            own_total=obs.own_total,
            opponent_total=obs.opponent_total,
            output_format=self.output_format,
            labels=self.labels,
        )

    def read(self, reply: Reply) -> Extraction[str]:
        """The move in ``reply``; none in a reply cut at the token limit (module docstring)."""
        if reply.truncated:
            return INVALID
        return extract_action(reply.text, output_format=self.output_format, labels=self.labels)

    def _classify(self, reply: Reply) -> Verdict:
        found = self.read(reply)
        return ("ok" if found.valid else "invalid"), found.rule

    def act(self, obs: Observation) -> Action:
        """Ask until a reply parses or attempts run out; see the module docstring."""
        round_prompt = self.render_round_prompt(obs)
        context = replace(self.context, round_index=obs.round_index)
        replies: list[Reply] = []
        request = CallRequest(
            system=self.system_prompt,
            prompt=round_prompt,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )
        for attempt in range(1, self.max_retries + 2):
            reply = self.gateway.complete(
                request, context=context, attempt=attempt, classify=self._classify
            )
            replies.append(reply)
            found = self.read(reply)
            if found.value is not None:
                self.last_decision = self._decision(
                    valid=True, round_prompt=round_prompt, replies=replies
                )
                return Action(found.value)
            request = replace(request, prompt=correction_prompt(round_prompt))
        self.last_decision = self._decision(valid=False, round_prompt=round_prompt, replies=replies)
        if self.on_invalid == "abort":
            raise MatchAborted(
                f"{self.context.agent} ({self.name}) gave no valid reply in round "
                f"{obs.round_index} after {len(replies)} attempts"
            )
        return self.fallback_action

    def state_strategy(self) -> Statement:
        """Ask for the agent's strategy as a memory-one table until a reply reads as one or
        attempts run out (``1 + max_retries``); see the module docstring."""
        prompt = render_strategy(self.templates, self.labels)
        context = replace(self.context, phase="pd_strategy", round_index=None)
        request = CallRequest(
            system=self.system_prompt,
            prompt=prompt,
            temperature=self.temperature,
            max_tokens=self.strategy_max_tokens,
        )
        replies: list[Reply] = []
        table: StatedStrategy | None = None
        for attempt in range(1, self.max_retries + 2):
            reply = self.gateway.complete(
                request, context=context, attempt=attempt, classify=self._classify_statement
            )
            replies.append(reply)
            table = self.read_statement(reply).value
            if table is not None:
                break
            request = replace(request, prompt=strategy_correction_prompt(prompt))
        return Statement(
            table=table,
            attempts=len(replies),
            truncated=any(reply.truncated for reply in replies),
            prompt=prompt,
            raw_responses=tuple(reply.text for reply in replies),
        )

    @staticmethod
    def read_statement(reply: Reply) -> Extraction[StatedStrategy]:
        """The table in ``reply``; none in a reply cut at the token limit, as for a move."""
        return INVALID if reply.truncated else parse_statement(reply.text)

    def _classify_statement(self, reply: Reply) -> Verdict:
        found = self.read_statement(reply)
        return ("ok" if found.valid else "invalid"), found.rule

    def _decision(self, *, valid: bool, round_prompt: str, replies: list[Reply]) -> Decision:
        return Decision(
            valid=valid,
            attempts=len(replies),
            truncated=any(reply.truncated for reply in replies),
            system_prompt=self.system_prompt,
            round_prompt=round_prompt,
            raw_responses=tuple(reply.text for reply in replies),
        )
