"""The calls, tokens and cost of a PD config before anything is played (``--dry-run``);
:class:`pdbench.run.estimate.CallEstimate` sums and prints them.

- Calls: one per LLM move, i.e. LLM sides x rounds of each match. Match lengths are drawn
  from the seed before anything is played (:func:`plan_matches`), so the rounds are exact,
  not an expectation; matches can only end early by aborting. Upper bounds: every move
  re-prompted ``max_retries`` times, and every request retried ``transport.max_retries``
  times on top.
- Tokens: one system and one round prompt per LLM agent rendered with a full history window,
  counted as characters / 4, times its calls; replies count as ``max_tokens`` (a ceiling).
  A model that reasons before it answers is assumed to spend its whole reasoning budget on
  every call, on top of the reply: the ceiling of a call is what the request allows, i.e.
  ``max_completion_tokens`` (reasoning budget + ``max_tokens``) for an OpenAI reasoning model
  and ``thinking.budget_tokens`` + ``max_tokens`` with Anthropic's thinking. Reasoning tokens
  are billed as output tokens, and priced so.
- A strategy statement (``elicit_strategy``) is one more call per match and agent, its
  prompt counted as a round prompt's and its reply as ``strategy_max_tokens``.
- Cost: from the config's price table (LiteLLM's map when installed); unknown prices are
  named, never guessed. The cache is not consulted: a cached re-run costs less.
"""

from __future__ import annotations

from pdbench.config.loader import LoadedConfig
from pdbench.number_text import plural
from pdbench.pd.actions import C, Turn
from pdbench.pd.agent_config import LLMAgentConfig
from pdbench.pd.agents.prompts import PromptTemplates, render_round, render_system
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.plan import SIDES, MatchPlan
from pdbench.run.estimate import CallEstimate
from pdbench.run.runtime import price_table

__all__ = ["estimate_calls", "prompt_tokens", "total_rounds_line"]


def total_rounds_line(config: ExperimentConfig, *, plans: list[MatchPlan]) -> str:
    """The rounds the plan plays, for ``--dry-run``. A fixed horizon gives every match its
    ``n`` rounds; under a geometric one the lengths drawn from the seed are summed, and beside
    them the expected total of as many matches under the same horizon (the mean length with
    the ``max_rounds`` cap), which another seed would give on average."""
    total = sum(plan.planned_rounds for plan in plans)
    matches = plural(len(plans), "match", "matches", grouped=True)
    horizon = config.horizon
    if horizon.type == "fixed":
        return f"total rounds: {total:,} ({matches} x {plural(horizon.n, 'round')})"
    expected = horizon.expected_rounds()
    return (
        f"total rounds: {total:,} as drawn from the seed; expected {len(plans) * expected:,.1f} "
        f"({matches} x {expected:,.2f}, the mean length with stop_prob {horizon.stop_prob:g} "
        f"capped at {plural(horizon.max_rounds, 'round')})"
    )


def prompt_tokens(
    agent: LLMAgentConfig, *, config: ExperimentConfig, loaded: LoadedConfig, side: str
) -> int:
    """Tokens (characters / 4) of one full-window system + round prompt of an LLM agent."""
    templates = PromptTemplates.from_files(
        system_path=loaded.root / agent.system_prompt,
        round_path=loaded.root / agent.round_prompt,
        persona_path=agent.persona_path(loaded.root),
    )
    window = agent.history_window
    matrix = config.payoffs.to_matrix()
    system = render_system(
        templates,
        matrix=matrix,
        side=side,
        output_format=agent.output_format,
    )
    turns = [Turn(C, C, 3.0, 3.0)] * window
    round_prompt = render_round(
        templates,
        round_index=window + 1,
        turns=turns,
        history_window=window,
        include_totals=agent.include_totals,
        own_total=100.0,
        opponent_total=100.0,
        output_format=agent.output_format,
    )
    return (len(system) + len(round_prompt) + 3) // 4


def estimate_calls(loaded: LoadedConfig, *, plans: list[MatchPlan]) -> CallEstimate:
    """The estimate for ``plans`` (see the module docstring)."""
    config: ExperimentConfig = loaded.config
    prices = price_table(config)
    estimate = CallEstimate(
        unit="one per LLM move and strategy statement"
        if config.elicits_strategy
        else "one per LLM move"
    )
    tokens_cache: dict[tuple[int, str], int] = {}
    for plan in plans:
        condition = config.conditions[plan.condition_index]
        for side in SIDES:
            agent = getattr(condition, side)
            if agent.type != "llm":
                continue
            per_call = tokens_cache.get((plan.condition_index, side))
            if per_call is None:
                per_call = prompt_tokens(agent, config=config, loaded=loaded, side=side)
                tokens_cache[(plan.condition_index, side)] = per_call
            estimate.add(
                provider=agent.provider,
                model=agent.model,
                calls=plan.planned_rounds,
                max_retries=agent.max_retries,
                transport_retries=agent.transport.max_retries,
                tokens_in_per_call=per_call,
                max_tokens=agent.max_tokens,
                prices=prices,
                reasoning_tokens=agent.reasoning_budget(),
            )
            if agent.elicit_strategy:
                estimate.add(
                    provider=agent.provider,
                    model=agent.model,
                    calls=1,
                    max_retries=agent.max_retries,
                    transport_retries=agent.transport.max_retries,
                    tokens_in_per_call=per_call,
                    max_tokens=agent.strategy_max_tokens,
                    prices=prices,
                    reasoning_tokens=agent.reasoning_budget(),
                )
    return estimate
