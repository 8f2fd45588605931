"""One PD match: two agents, the planned rounds, a round line per round, a match line.

A match with an LLM agent plays round by round through the agents' ``act`` and writes each
round line as a dict (``json.dumps``), flushed at once. A policy-only match runs the hot loop
of :mod:`pdbench.pd.policy_match` over a :class:`~pdbench.pd.round_lines.RoundLineTemplate`:
the same lines, byte for byte, formatted from pre-serialised pieces. Either way a line holds
the keys of :data:`~pdbench.pd.round_lines.ROUND_KEYS` in their order, and the match line
those of :data:`~pdbench.pd.round_lines.MATCH_KEYS`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from pdbench.clock import utc_timestamp
from pdbench.pd.actions import Action, Observation, Turn
from pdbench.pd.agents.base import POLICY_DECISION, Agent, MatchAborted
from pdbench.pd.agents.llm import LLMAgent, Statement
from pdbench.pd.noise import noisy
from pdbench.pd.payoff import PayoffMatrix
from pdbench.pd.plan import SIDES, MatchPlan
from pdbench.pd.policy_match import play_policy_rounds
from pdbench.pd.round_lines import MATCH_KEYS, ROUND_KEYS, MatchFields, RoundLineTemplate
from pdbench.pd.stated_play import opponent_copy, stated_points_per_round
from pdbench.pd.statements import STATES
from pdbench.rng import derive_seed
from pdbench.storage.jsonl import JsonlWriter
from pdbench.storage.records.fields import SCHEMA_VERSION

__all__ = ["match_fields", "play_match", "statement_line"]

Noise = Callable[[str], str] | None
"""Turns an intended action into the executed one; None: no noise."""
Payoffs = dict[tuple[str, str], tuple[float, float]]


def match_fields(
    plan: MatchPlan, *, run_id: str, names: tuple[str, str], kinds: tuple[str, str], horizon: Any
) -> MatchFields:
    """What every line of the match of ``plan`` says alike."""
    return MatchFields(
        run_id=run_id,
        match_id=plan.match_id,
        condition=plan.condition,
        replicate=plan.replicate,
        match_seed=plan.match_seed,
        names=names,
        kinds=kinds,
        horizon_type=horizon.type,
        fixed_n=horizon.n if horizon.type == "fixed" else None,
        stop_prob=horizon.stop_prob if horizon.type == "geometric" else None,
    )


def play_match(
    plan: MatchPlan,
    *,
    run_id: str,
    agent_a: Agent,
    agent_b: Agent,
    names: tuple[str, str],
    matrix: PayoffMatrix,
    horizon: Any,
    rounds: JsonlWriter,
    store_prompts: bool = False,
    statements: JsonlWriter | None = None,
) -> dict[str, Any]:
    """Play one match, append its round lines to ``rounds``; return its ``matches.jsonl`` line.

    An LLM agent asked to state its strategy (``elicit_strategy``) does so before the first
    round, and the statement's line goes to ``statements``."""
    started_at = utc_timestamp()
    match = match_fields(
        plan, run_id=run_id, names=names, kinds=(agent_a.kind, agent_b.kind), horizon=horizon
    )
    table = matrix.table()
    seed_a, seed_b = plan.noise_seeds
    noise: tuple[Noise, Noise] = (
        noisy(noise=plan.noise, seed=seed_a) if plan.noise else None,
        noisy(noise=plan.noise, seed=seed_b) if plan.noise else None,
    )
    played, status, abort_reason = 0, "ok", None
    try:
        if "llm" in match.kinds:
            if statements is not None:
                _state_strategies(plan, match, (agent_a, agent_b), table, statements, store_prompts)
            for record in _llm_rounds(
                plan, match, agents=(agent_a, agent_b), payoffs=table, noise=noise
            ):
                if store_prompts:
                    _add_prompts(record, match.kinds, agents=(agent_a, agent_b))
                rounds.write(record)
                played = record["round_index"]
        else:
            played, _, _ = play_policy_rounds(
                agent_a=agent_a,  # type: ignore[arg-type]
                agent_b=agent_b,  # type: ignore[arg-type]
                template=RoundLineTemplate(match, payoffs=table),
                payoffs=table,
                rounds=plan.planned_rounds,
                write_text=rounds.write_text,
                noise_a=noise[0],
                noise_b=noise[1],
            )
    except MatchAborted as exc:
        status, abort_reason = "aborted", str(exc)
    finally:
        rounds.flush()
    line = match.line_fields() | {
        "planned_rounds": plan.planned_rounds,
        "rounds_played": played,
        "status": status,
        "abort_reason": abort_reason,
        "started_at": started_at,
        "finished_at": utc_timestamp(),
    }
    return {key: line[key] for key in MATCH_KEYS}


def _state_strategies(
    plan: MatchPlan,
    match: MatchFields,
    agents: tuple[Agent, Agent],
    payoffs: Payoffs,
    statements: JsonlWriter,
    store_prompts: bool,
) -> None:
    """Each LLM agent asked for its strategy states it, before the first round; where its
    opponent is a policy, the stated table is played against a copy of it
    (:mod:`pdbench.pd.stated_play`)."""
    for side, agent, other in zip(SIDES, agents, agents[::-1], strict=True):
        if not (isinstance(agent, LLMAgent) and agent.elicits_strategy):
            continue
        opponent = opponent_copy(other)
        statement = agent.state_strategy()
        points = None
        if statement.table is not None and opponent is not None:
            points = stated_points_per_round(
                statement.table,
                opponent=opponent,
                side=side,
                plan=plan,
                payoffs=payoffs,
                seed=derive_seed(plan.match_seed, "stated", side),
            )
        statements.write(statement_line(match, side, agent.name, statement, points, store_prompts))


def statement_line(
    match: MatchFields,
    side: str,
    name: str,
    statement: Statement,
    points: float | None,
    store_prompts: bool,
) -> dict[str, Any]:
    """The ``statements.jsonl`` line of ``side``'s statement in ``match``; ``points``: what
    the stated table earned per round played against a copy of the opponent."""
    table = statement.table
    line: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "run_id": match.run_id,
        "match_id": match.match_id,
        "condition": match.condition,
        "replicate": match.replicate,
        "side": side,
        "agent_name": name,
        "valid": table is not None,
        "attempts": statement.attempts,
        "truncated": statement.truncated,
    }
    for state in STATES:
        line[f"{state}_p"] = None if table is None else table.p_cooperate(state)
    line["stated_points_per_round"] = points
    line["timestamp_utc"] = utc_timestamp()
    if store_prompts:
        line["prompt"] = statement.prompt
        line["raw_responses"] = list(statement.raw_responses)
    return line


def _llm_rounds(
    plan: MatchPlan,
    match: MatchFields,
    *,
    agents: tuple[Agent, Agent],
    payoffs: Payoffs,
    noise: tuple[Noise, Noise],
) -> Iterator[dict[str, Any]]:
    """The round lines of a match with an LLM agent, each played when it is asked for; an
    agent that gives up raises :class:`MatchAborted` from here."""
    agent_a, agent_b = agents
    noise_a, noise_b = noise
    llm_a, llm_b = (kind == "llm" for kind in match.kinds)
    needs = (agent_a.history_needed, agent_b.history_needed)
    capacity = None if None in needs else max(max(needs), 1)  # type: ignore[type-var]
    history_a: deque[Turn] = deque(maxlen=capacity)
    history_b: deque[Turn] = deque(maxlen=capacity)
    obs_a = Observation(round_index=1, history=history_a)
    obs_b = Observation(round_index=1, history=history_b)
    fixed = match.line_fields()
    total_a = total_b = 0.0
    decision_a = decision_b = POLICY_DECISION
    for round_index in range(1, plan.planned_rounds + 1):
        obs_a.round_index = obs_b.round_index = round_index
        intended_a, intended_b = agent_a.act(obs_a), agent_b.act(obs_b)
        # the noise flips plain strings (the policies' hot loop); an LLM round keeps Actions
        action_a = Action(noise_a(intended_a)) if noise_a else intended_a
        action_b = Action(noise_b(intended_b)) if noise_b else intended_b
        decision_a = agent_a.last_decision if llm_a else decision_a
        decision_b = agent_b.last_decision if llm_b else decision_b
        payoff_a, payoff_b = payoffs[action_a, action_b]
        total_a += payoff_a
        total_b += payoff_b
        line = fixed | {
            "round_index": round_index,
            "agent_a_intended_action": intended_a,
            "agent_b_intended_action": intended_b,
            "agent_a_action": action_a,
            "agent_b_action": action_b,
            "agent_a_payoff": payoff_a,
            "agent_b_payoff": payoff_b,
            "agent_a_cum_payoff": total_a,
            "agent_b_cum_payoff": total_b,
            "agent_a_valid": decision_a.valid,
            "agent_b_valid": decision_b.valid,
            "agent_a_attempts": decision_a.attempts,
            "agent_b_attempts": decision_b.attempts,
            "agent_a_truncated": decision_a.truncated,
            "agent_b_truncated": decision_b.truncated,
            "timestamp_utc": utc_timestamp(),
        }
        yield {key: line[key] for key in ROUND_KEYS}
        history_a.append(Turn(action_a, action_b, payoff_a, payoff_b))
        history_b.append(Turn(action_b, action_a, payoff_b, payoff_a))
        obs_a.own_total = obs_b.opponent_total = total_a
        obs_b.own_total = obs_a.opponent_total = total_b


def _add_prompts(
    record: dict[str, Any], kinds: tuple[str, str], *, agents: tuple[Agent, Agent]
) -> None:
    """The prompts and raw replies of the LLM agents' last decisions, per agent key."""
    prompts, raw = {}, {}
    for key, kind, agent in zip(("agent_a", "agent_b"), kinds, agents, strict=True):
        if kind == "llm":
            decision = agent.last_decision
            prompts[key] = {"system": decision.system_prompt, "round": decision.round_prompt}
            raw[key] = list(decision.raw_responses)
    record["prompts"] = prompts
    record["raw_responses"] = raw
