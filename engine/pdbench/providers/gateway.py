"""The one seam around every provider call: time it, read its usage, record it.

Every call any agent makes goes through :meth:`ProviderGateway.complete`, which writes one
``CallRecord`` line to ``calls.jsonl`` per attempt. Transport retries, back-off, caching and
concurrency limits belong here too, so that providers stay one method each.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pdbench.core.clock import utc_timestamp
from pdbench.errors import ProviderError
from pdbench.providers.base import ProviderClient, Usage
from pdbench.storage.schema import SCHEMA_VERSION

__all__ = ["CallContext", "ProviderGateway", "prompt_sha256"]

CallStatus = Literal["ok", "invalid"]


@dataclass(frozen=True, slots=True)
class CallContext:
    """Who calls and about what; becomes the identifying fields of the ``CallRecord``."""

    game: Literal["pd", "arena"]
    phase: str
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


def prompt_sha256(system: str, prompt: str) -> str:
    """sha256 of the canonical JSON ``[system, prompt]``."""
    canonical = json.dumps([system, prompt], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ProviderGateway:
    """Wraps one provider client for one agent; ``record`` receives each call's record."""

    def __init__(
        self,
        *,
        client: ProviderClient,
        provider: str,
        model: str,
        run_id: str,
        record: Callable[[dict], None],
    ) -> None:
        self.client = client
        self.provider = provider
        self.model = model
        self.run_id = run_id
        self._record = record

    def complete(
        self,
        *,
        system: str,
        prompt: str,
        temperature: float,
        max_tokens: int,
        context: CallContext,
        attempt: int,
        classify: Callable[[str], CallStatus],
    ) -> str:
        """Call the provider once and record the attempt; ``classify`` judges the reply."""
        started = time.perf_counter()
        try:
            reply = self.client.complete(
                system=system, prompt=prompt, temperature=temperature, max_tokens=max_tokens
            )
        except Exception as exc:
            latency_ms = (time.perf_counter() - started) * 1000
            self._write(
                context=context,
                attempt=attempt,
                system=system,
                prompt=prompt,
                latency_ms=latency_ms,
                usage=None,
                status="error",
                error=repr(exc)[:500],
            )
            raise ProviderError(f"provider {self.provider!r} ({self.model}) failed: {exc}") from exc
        latency_ms = (time.perf_counter() - started) * 1000
        usage = getattr(self.client, "last_usage", None)
        self._write(
            context=context,
            attempt=attempt,
            system=system,
            prompt=prompt,
            latency_ms=latency_ms,
            usage=usage,
            status=classify(reply),
            error=None,
        )
        return reply

    def _write(
        self,
        *,
        context: CallContext,
        attempt: int,
        system: str,
        prompt: str,
        latency_ms: float,
        usage: Usage | None,
        status: str,
        error: str | None,
    ) -> None:
        self._record(
            {
                "schema_version": SCHEMA_VERSION,
                "run_id": self.run_id,
                "call_id": context.call_id(attempt),
                "game": context.game,
                "phase": context.phase,
                "agent": context.agent,
                "match_id": context.match_id,
                "condition": context.condition,
                "replicate": context.replicate,
                "round_index": context.round_index,
                "item_id": context.item_id,
                "attempt": attempt,
                "transport_retries": 0,
                "provider": self.provider,
                "model": self.model,
                "prompt_sha256": prompt_sha256(system, prompt),
                "latency_ms": round(latency_ms, 3),
                "tokens_in": usage.tokens_in if usage else None,
                "tokens_out": usage.tokens_out if usage else None,
                "cost_usd": usage.cost_usd if usage else None,
                "status": status,
                "error": error,
                "cache_hit": False,
                "timestamp_utc": utc_timestamp(),
            }
        )
