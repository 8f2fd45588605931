"""Record types of every file in a run directory: the contract between engine and dbt.

A run directory (``data/runs/<run_id>/``) holds:

==========================  ===========================================================
file                        one line / row per
==========================  ===========================================================
``run_manifest.json``       the run (:class:`RunManifest`)
``rounds.jsonl``            PD round (:class:`RoundRecord`)
``matches.jsonl``           finished or aborted PD match (:class:`MatchRecord`)
``calls.jsonl``             provider call attempt, both games (:class:`CallRecord`)
``questions.jsonl``         arena question kept after parsing (:class:`QuestionRecord`)
``question_ratings.jsonl``  arena rating of a question by non-author (:class:`QuestionRatingRecord`)
``answers.jsonl``           arena answer of a kept question (:class:`AnswerRecord`)
``judgments.jsonl``         arena judgement of an answer by a non-author (:class:`JudgmentRecord`)
``*.parquet``               dbt marts (never written by the engine)
==========================  ===========================================================

Conventions, relied on by the SQL models:

- ``round_index`` is 1-based: the first round of a match is round 1.
- ``replicate`` is 0-based: replicates are 0 .. n-1.
- Actions are the strings ``"C"`` and ``"D"``. An invalid reply is never stored as an action:
  the action column holds what was played (a configured fallback) and ``*_valid`` is false.
- Every record carries ``schema_version``; a reader rejects versions it does not know.
- Timestamps are ISO 8601 UTC strings with a ``Z`` suffix.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "SCHEMA_VERSION",
    "Action",
    "AgentKind",
    "AnswerRecord",
    "CallRecord",
    "HorizonType",
    "JudgmentRecord",
    "MatchRecord",
    "MatchStatus",
    "QuestionRatingRecord",
    "QuestionRecord",
    "RoundRecord",
    "RunFiles",
    "RunManifest",
    "RunStatus",
]

SCHEMA_VERSION = 1

Action = Literal["C", "D"]
AgentKind = Literal["policy", "llm"]
HorizonType = Literal["fixed", "geometric"]
MatchStatus = Literal["ok", "aborted"]
RunStatus = Literal["running", "completed", "failed", "interrupted"]


class RunFiles:
    """File names inside a run directory."""

    MANIFEST = "run_manifest.json"
    ROUNDS = "rounds.jsonl"
    MATCHES = "matches.jsonl"
    CALLS = "calls.jsonl"
    QUESTIONS = "questions.jsonl"
    QUESTION_RATINGS = "question_ratings.jsonl"
    ANSWERS = "answers.jsonl"
    JUDGMENTS = "judgments.jsonl"
    AGGREGATES = "aggregates.parquet"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = SCHEMA_VERSION
    """Version of this record layout."""


class PromptPair(BaseModel):
    """The two rendered prompts an LLM agent saw in one round (first attempt)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: str
    round: str


class RoundRecord(_Record):
    """One round of one PD match (a line of ``rounds.jsonl``)."""

    run_id: str
    match_id: str
    """``<condition>/<replicate>``: unique within the run."""
    condition: str
    replicate: int
    round_index: int
    """1-based."""
    match_seed: int
    agent_a_name: str
    agent_b_name: str
    agent_a_kind: AgentKind
    agent_b_kind: AgentKind
    agent_a_intended_action: Action
    """What agent A chose before execution noise (equals the action when noise is 0)."""
    agent_b_intended_action: Action
    agent_a_action: Action
    """What was executed and scored."""
    agent_b_action: Action
    agent_a_payoff: float
    agent_b_payoff: float
    agent_a_cum_payoff: float
    agent_b_cum_payoff: float
    agent_a_valid: bool
    """False when the LLM agent's last attempt was still invalid and a fallback was played."""
    agent_b_valid: bool
    agent_a_attempts: int
    """Provider calls made for this action (0 for a policy)."""
    agent_b_attempts: int
    horizon_type: HorizonType
    fixed_n: int | None
    stop_prob: float | None
    timestamp_utc: str
    prompts: dict[str, PromptPair] | None = None
    """Per agent key (``agent_a``/``agent_b``): prompts, when ``store_prompts`` is on."""
    raw_responses: dict[str, list[str]] | None = None
    """Per agent key: the raw reply of every attempt, when ``store_prompts`` is on."""


class MatchRecord(_Record):
    """One finished or aborted PD match (a line of ``matches.jsonl``)."""

    run_id: str
    match_id: str
    condition: str
    replicate: int
    match_seed: int
    agent_a_name: str
    agent_b_name: str
    agent_a_kind: AgentKind
    agent_b_kind: AgentKind
    horizon_type: HorizonType
    planned_rounds: int
    """Length drawn for this replicate (fixed N, or the geometric draw capped at max_rounds)."""
    rounds_played: int
    status: MatchStatus
    abort_reason: str | None = None
    started_at: str
    finished_at: str


class CallRecord(_Record):
    """One provider call attempt (a line of ``calls.jsonl``), in either game."""

    run_id: str
    call_id: str
    game: Literal["pd", "arena"]
    phase: str
    """``pd_round`` in the PD; ``generate``/``rate``/``answer``/``judge`` in the arena."""
    agent: str
    """Who called: ``agent_a``/``agent_b`` in the PD, the player name in the arena."""
    match_id: str | None = None
    condition: str | None = None
    replicate: int | None = None
    round_index: int | None = None
    item_id: str | None = None
    """Arena: the question or answer the call is about."""
    attempt: int
    """1-based game-level attempt (a re-prompt after invalid output is attempt 2, ...)."""
    transport_retries: int = 0
    """Retries of the transport (timeouts, 429, 5xx) inside this attempt."""
    provider: str
    model: str
    prompt_sha256: str
    latency_ms: float
    tokens_in: int | None = None
    tokens_out: int | None = None
    """Every output token, reasoning or thinking included (what the call is billed for)."""
    tokens_reasoning: int | None = None
    """The part of ``tokens_out`` spent reasoning (OpenAI's ``reasoning_tokens``) or thinking
    (Anthropic's ``thinking_tokens``); None when the provider does not report it."""
    cost_usd: float | None = None
    finish_reason: str | None = None
    """Why the reply ended: ``stop``, ``length`` (cut at the token limit), ``content_filter``,
    ``tool_calls``, or the provider's own word; None when unknown (the mock, errors)."""
    truncated: bool = False
    """The reply was cut at the token limit (``finish_reason`` is ``length``)."""
    status: Literal["ok", "invalid", "error", "cancelled"]
    """``ok``: a valid game reply; ``invalid``: a reply the game could not parse; ``error``;
    ``cancelled``: still in flight when the run stopped (Ctrl-C), never answered."""
    parse_rule: str | None = None
    """The extraction rule that read the reply (:mod:`pdbench.providers.extract`, e.g.
    ``token``, ``words``, ``action_line``; arena answers ``text``, question lists
    ``numbered_list``); None when invalid or on error."""
    error: str | None = None
    cache_hit: bool = False
    timestamp_utc: str


class QuestionRecord(_Record):
    """One arena question kept after parsing and de-duplication."""

    run_id: str
    question_id: str
    """Opaque id: never derived from the author's name."""
    author: str
    category: str
    text: str
    position: int
    """1-based position in the author's list."""
    attempts: int
    prompt_sha256: str
    raw_line: str
    """The line of the generation reply the question was parsed from."""
    prompt: str | None = None
    """The generation prompt of the attempt the question came from (``store_prompts``)."""


class QuestionRatingRecord(_Record):
    """One rating of a question by a player who did not write it."""

    run_id: str
    question_id: str
    rater: str
    score: int | None
    """0..10, or None when the reply stayed invalid after every retry."""
    is_valid: bool
    attempts: int
    presentation_index: int
    """Position of the question in this rater's shuffled order."""
    prompt_sha256: str
    """Of the attempt whose reply is recorded (``raw_reply``), as in ``calls.jsonl``."""
    raw_reply: str
    prompt: str | None = None
    """The rendered prompt of that attempt (``store_prompts``)."""


class AnswerRecord(_Record):
    """One answer to a kept question."""

    run_id: str
    answer_id: str
    """Opaque id: never derived from the answerer's name."""
    question_id: str
    answerer: str
    text: str
    is_valid: bool
    attempts: int
    prompt_sha256: str
    """Of the attempt whose reply is recorded (``raw_reply``), as in ``calls.jsonl``."""
    raw_reply: str
    prompt: str | None = None
    """The rendered prompt of that attempt (``store_prompts``)."""


class JudgmentRecord(_Record):
    """One judgement of an answer by a player who did not write it."""

    run_id: str
    answer_id: str
    question_id: str
    judge: str
    score: int | None
    """0..10, or None when the reply stayed invalid after every retry."""
    is_valid: bool
    attempts: int
    presentation_index: int
    prompt_sha256: str
    """Of the attempt whose reply is recorded (``raw_reply``), as in ``calls.jsonl``."""
    raw_reply: str
    prompt: str | None = None
    """The rendered prompt of that attempt (``store_prompts``)."""


class RunManifest(BaseModel):
    """``run_manifest.json``: everything needed to reproduce and to aggregate a run.

    dbt reads ``metric_params`` (PD) and ``scoring`` (arena) from this file, so the SQL uses
    exactly the parameters the run recorded.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    run_id: str
    game: str
    """The game (its name in :mod:`pdbench.games`)."""
    status: RunStatus
    seed: int
    config_path: str
    config_sha256: str
    """sha256 of the canonical JSON of the resolved config snapshot."""
    config: dict
    """The resolved config (refs expanded, overrides applied); never holds a secret."""
    metric_params: dict = Field(default_factory=dict)
    """PD: ``{"collapse_k": 10, "collapse_threshold": 0.2, "metrics": [...]}``."""
    scoring: dict = Field(default_factory=dict)
    """Arena: normalisation method, question filter, bootstrap settings, players' planted traits."""
    versions: dict[str, str] = Field(default_factory=dict)
    git_commit: str | None = None
    python: str
    platform: str
    started_at: str
    finished_at: str | None = None
    resumed_at: list[str] = Field(default_factory=list)
    """When the run was resumed (``pdbench run --resume``), oldest first."""
    phases_done: list[str] = Field(default_factory=list)
    """Arena: the phases whose record file is complete, in play order (``--resume`` keeps
    them and replays the rest)."""
    failure: str | None = None
    """Why the run ended ``failed`` or ``interrupted`` (one line); None otherwise."""
    counts: dict[str, int] = Field(default_factory=dict)
    """Records written per file, e.g. ``{"rounds": 1200, "matches": 24}``."""
