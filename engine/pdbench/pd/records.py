"""The records of the PD: a round (``rounds.jsonl``) and a match (``matches.jsonl``).

The PD hands them to the core as :data:`PD_RECORDS` (:attr:`pdbench.game.Game.records`): the
JSON schema (``pdbench schema rounds``) and the dbt source tables follow from the models.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from pdbench.storage.records.fields import Count, Ordinal, Record, stored_prompt
from pdbench.storage.records.files import RecordFile, RecordSource

__all__ = [
    "PD_RECORDS",
    "Action",
    "AgentKind",
    "HorizonType",
    "MatchRecord",
    "MatchStatus",
    "PDFiles",
    "PromptPair",
    "RoundRecord",
    "StatementRecord",
]

Action = Literal["C", "D"]
AgentKind = Literal["policy", "llm"]
HorizonType = Literal["fixed", "geometric"]
MatchStatus = Literal["ok", "aborted"]


class PDFiles:
    """The PD's files in a run directory (besides every run's,
    :class:`~pdbench.storage.records.files.RunFiles`)."""

    ROUNDS = "rounds.jsonl"
    MATCHES = "matches.jsonl"
    STATEMENTS = "statements.jsonl"


class PromptPair(BaseModel):
    """The two rendered prompts an LLM agent saw in one round (first attempt)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    system: str
    """The system prompt: rules, payoffs and persona."""
    round: str
    """The prompt of the round: history and the question."""


class RoundRecord(Record):
    """One round of one PD match (a line of ``rounds.jsonl``)."""

    run_id: str
    """The run's id (``run_id`` of the config)."""
    match_id: str
    """``<condition>/<replicate>``: unique within the run."""
    condition: str
    """Name of the condition (the pairing of two agents)."""
    replicate: Count
    """0-based replicate of the condition."""
    round_index: Ordinal
    """1-based round number within the match."""
    match_seed: int | None
    """Seed of the match, derived from the run seed, condition and replicate; null in an
    imported run (not recorded)."""
    agent_a_name: str
    """Display name of agent A."""
    agent_b_name: str
    """Display name of agent B."""
    agent_a_kind: AgentKind
    """``policy`` or ``llm``."""
    agent_b_kind: AgentKind
    """``policy`` or ``llm``."""
    agent_a_intended_action: Action
    """What agent A chose before execution noise (equals the action when noise is 0)."""
    agent_b_intended_action: Action
    """What agent B chose before execution noise (equals the action when noise is 0)."""
    agent_a_action: Action
    """What agent A played and was scored for (``C`` or ``D``, after noise)."""
    agent_b_action: Action
    """What agent B played and was scored for (``C`` or ``D``, after noise)."""
    agent_a_payoff: float
    """Agent A's payoff of this round."""
    agent_b_payoff: float
    """Agent B's payoff of this round."""
    agent_a_cum_payoff: float
    """Agent A's total payoff up to and including this round."""
    agent_b_cum_payoff: float
    """Agent B's total payoff up to and including this round."""
    agent_a_valid: bool | None
    """False when agent A's last reply was still invalid and a fallback was played; null in
    an imported run whose source does not say (not recorded)."""
    agent_b_valid: bool | None
    """False when agent B's last reply was still invalid and a fallback was played; null in
    an imported run whose source does not say (not recorded)."""
    agent_a_attempts: Count | None
    """Provider calls agent A made for this action (0 for a policy); null in an imported run
    (not recorded)."""
    agent_b_attempts: Count | None
    """Provider calls agent B made for this action (0 for a policy); null in an imported run
    (not recorded)."""
    agent_a_truncated: bool | None = None
    """Whether one of agent A's replies this round was cut at the token limit (such a reply
    is read as invalid, never as a move); false for a policy; null when not recorded (lines
    of schema version 1)."""
    agent_b_truncated: bool | None = None
    """Whether one of agent B's replies this round was cut at the token limit (read as
    invalid); false for a policy; null when not recorded (schema version 1)."""
    horizon_type: HorizonType
    """``fixed`` (every match has ``fixed_n`` rounds) or ``geometric`` (ends with
    ``stop_prob`` after each round)."""
    fixed_n: Count | None
    """Rounds of a fixed horizon; null for a geometric one."""
    stop_prob: float | None
    """Stop probability of a geometric horizon; null for a fixed one."""
    timestamp_utc: str | None
    """When the round was played (ISO 8601, UTC, ``Z`` suffix); null in an imported run (not
    recorded)."""
    prompts: dict[str, PromptPair] | None = stored_prompt()
    """Per LLM agent key (``agent_a``/``agent_b``): the prompts it saw; only with
    ``store_prompts``."""
    raw_responses: dict[str, list[str]] | None = stored_prompt()
    """Per LLM agent key: the raw reply of every attempt; only with ``store_prompts``."""


class MatchRecord(Record):
    """One finished or aborted PD match (a line of ``matches.jsonl``)."""

    run_id: str
    """The run's id (``run_id`` of the config)."""
    match_id: str
    """``<condition>/<replicate>``: unique within the run."""
    condition: str
    """Name of the condition (the pairing of two agents)."""
    replicate: Count
    """0-based replicate of the condition."""
    match_seed: int | None
    """Seed of the match, derived from the run seed, condition and replicate; null in an
    imported run (not recorded)."""
    agent_a_name: str
    """Display name of agent A."""
    agent_b_name: str
    """Display name of agent B."""
    agent_a_kind: AgentKind
    """``policy`` or ``llm``."""
    agent_b_kind: AgentKind
    """``policy`` or ``llm``."""
    horizon_type: HorizonType
    """``fixed`` or ``geometric``."""
    planned_rounds: Count
    """Length drawn for this replicate (fixed N, or the geometric draw capped at max_rounds)."""
    rounds_played: Count
    """Rounds in ``rounds.jsonl``: ``planned_rounds`` unless the match was aborted."""
    status: MatchStatus
    """``ok``, or ``aborted`` (``abort_reason`` says why)."""
    abort_reason: str | None = None
    """Why the match was aborted (one line); null when it ended ``ok``."""
    started_at: str | None
    """When the match started (ISO 8601, UTC); null in an imported run (not recorded)."""
    finished_at: str | None
    """When the match ended (ISO 8601, UTC); null in an imported run (not recorded)."""


class StatementRecord(Record):
    """An LLM agent's stated strategy, asked once per match before its first move (a line of
    ``statements.jsonl``; only agents with ``elicit_strategy: true``). The table gives the
    probability of cooperating first and after each outcome of the round before, from the
    agent's own view: ``cc`` both cooperated, ``cd`` it cooperated and the other defected,
    ``dc`` it defected and the other cooperated, ``dd`` both defected
    (:mod:`pdbench.pd.statements`)."""

    run_id: str
    """The run's id (``run_id`` of the config)."""
    match_id: str
    """The match the statement opens (``<condition>/<replicate>``)."""
    condition: str
    """Name of the condition."""
    replicate: Count
    """0-based replicate of the condition."""
    side: Literal["agent_a", "agent_b"]
    """The seat of the agent that stated it."""
    agent_name: str
    """Display name of that agent."""
    valid: bool
    """Whether a reply read as a table (the last attempt's, when the others were invalid);
    false: every attempt was invalid and the table is null."""
    attempts: Count
    """Provider calls made for the statement (1 + re-asks)."""
    truncated: bool
    """Whether one of the replies was cut at the token limit (read as invalid)."""
    first_p: float | None
    """Stated probability of cooperating in the first round; null when invalid."""
    cc_p: float | None
    """Stated probability of cooperating after both cooperated; null when invalid."""
    cd_p: float | None
    """Stated probability of cooperating after it cooperated and the other defected."""
    dc_p: float | None
    """Stated probability of cooperating after it defected and the other cooperated."""
    dd_p: float | None
    """Stated probability of cooperating after both defected; null when invalid."""
    stated_points_per_round: float | None
    """Mean points per round the stated table earns when pdbench plays it against a copy of
    the same opponent, taken before the match (same draws, planned rounds and noise;
    :mod:`pdbench.pd.stated_play`); null when the statement is invalid or the opponent is
    not one of pdbench's policies (an LLM opponent would cost calls)."""
    timestamp_utc: str
    """When the statement was read (ISO 8601, UTC, ``Z`` suffix)."""
    prompt: str | None = stored_prompt()
    """The statement prompt (first attempt); only with ``store_prompts``."""
    raw_responses: list[str] | None = stored_prompt()
    """The raw reply of every attempt; only with ``store_prompts``."""


PD_RECORDS = RecordSource(
    name="pd",
    description=(
        "The PD's raw records: one line per round, one per match, one per stated strategy."
    ),
    records=(
        RecordFile("rounds", PDFiles.ROUNDS, RoundRecord, required=True),
        RecordFile("matches", PDFiles.MATCHES, MatchRecord, required=True),
        RecordFile("statements", PDFiles.STATEMENTS, StatementRecord, required=False),
    ),
)
"""The PD's records, as its dbt source ``pd`` declares them."""
