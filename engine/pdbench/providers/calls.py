"""What one provider call is: the request, who makes it and about what, and what the caller
made of the reply. The gateway (:mod:`pdbench.providers.gateway`) turns these into the call's
cache key and its ``calls.jsonl`` record.

The provider layer knows no game: ``game`` and ``phase`` are the names the game gives them,
and the identifying fields a game does not use stay None.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from pdbench.clock import utc_timestamp
from pdbench.providers.base import ProviderClient, Usage
from pdbench.redact import redacted, scrub
from pdbench.storage.schema import SCHEMA_VERSION

__all__ = [
    "CallContext",
    "CallOutcome",
    "CallRequest",
    "CallStatus",
    "Reply",
    "Verdict",
    "prompt_sha256",
]

CallStatus = Literal["ok", "invalid"]
Verdict = tuple[CallStatus, str | None]
"""What the caller made of a reply: its status and the extraction rule that read it."""


@dataclass(frozen=True, slots=True)
class Reply:
    """A provider's reply as a game reads it: the text, and whether it was cut short."""

    text: str
    truncated: bool = False
    """The reply was cut at the token limit (``finish_reason`` ``length``): what it holds may
    not be what the model meant to say."""


def prompt_sha256(system: str, prompt: str) -> str:
    """sha256 of the canonical JSON ``[system, prompt]``."""
    canonical = json.dumps([system, prompt], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CallRequest:
    """What a provider client is asked: the prompts and how to sample the reply."""

    system: str
    prompt: str
    temperature: float
    max_tokens: int

    @property
    def prompt_sha256(self) -> str:
        """sha256 of the canonical JSON ``[system, prompt]`` (:func:`prompt_sha256`)."""
        return prompt_sha256(self.system, self.prompt)

    def ask(self, client: ProviderClient) -> str:
        """``client``'s reply to this request."""
        return self.pass_to(client.complete)

    def pass_to[T](self, take: Callable[..., T]) -> T:
        """What ``take`` (a client's ``complete``, an adapter's request builder) makes of this
        request's system prompt, prompt, temperature and token limit, passed by keyword."""
        return take(
            system=self.system,
            prompt=self.prompt,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CallOutcome:
    """How one attempt ended; becomes the measured fields of the ``CallRecord``."""

    latency_ms: float
    usage: Usage | None
    """What the reply used; None: no reply, nothing known of tokens or cost."""
    verdict: tuple[str, str | None]
    """The status and the extraction rule that read the reply."""
    retries: int
    """Transport retries the attempt took."""
    error: str | None = None
    cache_hit: bool = False
    batch_id: str | None = None


@dataclass(frozen=True, slots=True)
class CallContext:
    """Who calls and about what; becomes the identifying fields of the ``CallRecord``."""

    game: str
    """The name of the game that calls (as its config and manifest write it)."""
    phase: str
    """The game's name for the step the call belongs to."""
    agent: str
    match_id: str | None = None
    condition: str | None = None
    replicate: int | None = None
    round_index: int | None = None
    item_id: str | None = None

    def call_id(self, attempt: int) -> str:
        """A deterministic id: ``<phase>/<match_id>/<round>/<item>/<agent>/<attempt>``."""
        parts = (self.phase, self.match_id, self.round_index, self.item_id, self.agent, attempt)
        return "/".join(str(p) for p in parts if p is not None)

    def record_fields(self) -> dict[str, Any]:
        """The fields as the ``CallRecord`` names them, in its order."""
        return asdict(self)

    def call_record(
        self,
        *,
        run_id: str,
        attempt: int,
        provider: str,
        model: str,
        prompt_sha256: str,
        outcome: CallOutcome,
    ) -> dict[str, Any]:
        """The ``calls.jsonl`` line of one attempt, in the ``CallRecord``'s order (usage None:
        no reply, nothing known of tokens or cost), every secret in it masked
        (:func:`pdbench.redact.redacted`; known keys are looked for in ``error`` only, the one
        field that quotes what a server said)."""
        usage = outcome.usage
        line: dict[str, Any] = redacted(
            {
                "schema_version": SCHEMA_VERSION,
                "run_id": run_id,
                "call_id": self.call_id(attempt),
                **self.record_fields(),
                "attempt": attempt,
                "transport_retries": outcome.retries,
                "provider": provider,
                "model": model,
                "prompt_sha256": prompt_sha256,
                "latency_ms": round(outcome.latency_ms, 3),
                "tokens_in": usage.tokens_in if usage else None,
                "tokens_out": usage.tokens_out if usage else None,
                "tokens_reasoning": usage.tokens_reasoning if usage else None,
                "cost_usd": usage.cost_usd if usage else None,
                "finish_reason": usage.finish_reason if usage else None,
                "truncated": usage.truncated if usage else False,
                "status": outcome.verdict[0],
                "parse_rule": outcome.verdict[1],
                "error": scrub(outcome.error) if outcome.error else outcome.error,
                "cache_hit": outcome.cache_hit,
                "batch_id": outcome.batch_id,
                "timestamp_utc": utc_timestamp(),
            },
            known=[],
        )
        return line

    def sample_key(self, *, seed: int, attempt: int) -> dict[str, Any]:
        """Which draw a call is, for the cache key: same prompt, other sample, other key."""
        return {
            "seed": seed,
            "game": self.game,
            "phase": self.phase,
            "condition": self.condition,
            "replicate": self.replicate,
            "round_index": self.round_index,
            "item_id": self.item_id,
            "agent": self.agent,
            "attempt": attempt,
        }
