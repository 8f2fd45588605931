"""The record of a provider call attempt (``calls.jsonl``), in either game."""

from __future__ import annotations

from typing import Literal

from pdbench.storage.records.fields import Count, GameName, Ordinal, Record, TokenCount

__all__ = ["CallRecord"]


class CallRecord(Record):
    """One provider call attempt (a line of ``calls.jsonl``), in either game."""

    run_id: str
    """The run's id (``run_id`` of the config)."""
    call_id: str
    """Deterministic id: ``<phase>/<match_id>/<round>/<item>/<agent>/<attempt>``, the parts
    that apply."""
    game: GameName
    """``pd`` or ``arena``."""
    phase: str
    """``pd_round`` in the PD; ``generate``/``rate``/``answer``/``judge`` in the arena."""
    agent: str
    """Who called: ``agent_a``/``agent_b`` in the PD, the player name in the arena."""
    match_id: str | None = None
    """PD: the match of the call."""
    condition: str | None = None
    """PD: the condition of the match."""
    replicate: Count | None = None
    """PD: the 0-based replicate of the match."""
    round_index: Ordinal | None = None
    """PD: the 1-based round of the call."""
    item_id: str | None = None
    """Arena: the question or answer the call is about."""
    attempt: Ordinal
    """1-based game-level attempt (a re-prompt after invalid output is attempt 2, ...)."""
    transport_retries: Count = 0
    """Retries of the transport (timeouts, 429, 5xx) inside this attempt."""
    provider: str
    """Provider name (``mock``, ``openai``, ``anthropic``, ...)."""
    model: str
    """Model name as sent to the provider."""
    prompt_sha256: str
    """sha256 of the canonical JSON ``[system, prompt]`` of the attempt."""
    latency_ms: float
    """Time of the whole attempt, transport retries and their back-off included."""
    tokens_in: TokenCount | None = None
    """Prompt tokens; null when the provider does not report them."""
    tokens_out: TokenCount | None = None
    """Every output token, reasoning or thinking included (what the call is billed for)."""
    tokens_reasoning: TokenCount | None = None
    """The part of ``tokens_out`` spent reasoning (OpenAI's ``reasoning_tokens``) or thinking
    (Anthropic's ``thinking_tokens``); null when the provider does not report it."""
    cost_usd: float | None = None
    """Price of the call in US dollars; null when unknown."""
    finish_reason: str | None = None
    """Why the reply ended: ``stop``, ``length`` (cut at the token limit), ``content_filter``,
    ``tool_calls``, or the provider's own word; null when unknown (errors, a provider that
    does not say)."""
    truncated: bool = False
    """The reply was cut at the token limit (``finish_reason`` is ``length``); a PD reply cut
    there is read as invalid, whatever it holds."""
    status: Literal["ok", "invalid", "error", "cancelled"]
    """``ok``: a valid game reply; ``invalid``: a reply the game could not parse; ``error``;
    ``cancelled``: still in flight when the run stopped (Ctrl-C), never answered."""
    parse_rule: str | None = None
    """The extraction rule that read the reply (``token``, ``words``, ``action_line``; arena
    answers ``text``, question lists ``numbered_list``); null when invalid or on error."""
    error: str | None = None
    """What went wrong (one line, no secret); null when the call was answered."""
    cache_hit: bool = False
    """The reply came from the response cache (no provider call was made)."""
    batch_id: str | None = None
    """The provider's batch the request was answered in (batch mode, priced at the batch
    price); null for a single call."""
    timestamp_utc: str
    """When the attempt ended (ISO 8601, UTC, ``Z`` suffix)."""
