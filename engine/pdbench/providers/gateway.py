"""The one seam around every provider call: cache, limit, retry, time, price, record.

Every call any agent makes goes through :meth:`ProviderGateway.complete`, the only place that
calls ``client.complete``. Per game attempt it:

1. stops if the run is cancelled (:class:`CallsCancelled`);
2. answers from the response cache when it may (``cache_hit: true``, latency of the lookup);
3. otherwise holds a ``provider/model`` slot and calls the client inside the transport retry
   loop (:mod:`pdbench.providers.retry`), the client only *classifying* its errors;
4. writes one ``CallRecord`` line to ``calls.jsonl`` with the retries it took, tokens (and
   the reasoning part of them), cost, latency (of the whole attempt, back-off included), how
   the reply ended (``finish_reason``, ``truncated``) and status;
5. on a fatal error or when retries run out, records the error and raises a one-line
   :class:`pdbench.errors.ProviderError` with every known key scrubbed out.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from pdbench.clock import utc_timestamp
from pdbench.errors import ProviderError
from pdbench.providers.base import ProviderClient, Usage
from pdbench.providers.cache import CachedReply, cache_key
from pdbench.providers.failures import Failure, classify_builtin, describe
from pdbench.providers.keys import scrub
from pdbench.providers.retry import RetriesExhausted, RetryPolicy, call_with_retries
from pdbench.providers.runtime import ProviderRuntime
from pdbench.storage.schema import SCHEMA_VERSION

__all__ = [
    "CallContext",
    "CallsCancelled",
    "ProviderGateway",
    "Verdict",
    "gateway_for",
    "prompt_sha256",
]

CallStatus = Literal["ok", "invalid"]
Verdict = tuple[CallStatus, str | None]
"""What the caller made of a reply: its status and the extraction rule that read it."""


class CallsCancelled(Exception):
    """The run was cancelled (Ctrl-C, or another match failed): no call was made."""


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


def prompt_sha256(system: str, prompt: str) -> str:
    """sha256 of the canonical JSON ``[system, prompt]``."""
    canonical = json.dumps([system, prompt], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ProviderGateway:
    """Wraps one provider client for one agent; ``record`` receives each call's record.

    ``endpoint`` (a base URL) is part of the provider's identity in cache keys; ``use_cache``
    says whether this agent's calls may be cached (the runtime must also have a cache);
    ``request_settings`` (reasoning, thinking, params: whatever else shapes a reply) join
    temperature and ``max_tokens`` in the cache key.
    """

    def __init__(
        self,
        *,
        client: ProviderClient,
        provider: str,
        model: str,
        run_id: str,
        record: Callable[[dict], None],
        runtime: ProviderRuntime | None = None,
        retry: RetryPolicy | None = None,
        use_cache: bool = False,
        endpoint: str | None = None,
        request_settings: dict[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.provider = provider
        self.model = model
        self.run_id = run_id
        self.runtime = runtime or ProviderRuntime()
        self.retry = retry or RetryPolicy()
        self.use_cache = use_cache and self.runtime.cache is not None
        self.endpoint = endpoint
        self.request_settings = dict(request_settings or {})
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
        classify: Callable[[str], Verdict],
    ) -> str:
        """One game attempt (cached, or called with transport retries), recorded once."""
        runtime = self.runtime
        if runtime.cancel.is_set():
            raise CallsCancelled("the run was cancelled")
        started = time.perf_counter()
        key = None
        if self.use_cache:
            key = self._cache_key(
                system=system,
                prompt=prompt,
                temperature=temperature,
                max_tokens=max_tokens,
                context=context,
                attempt=attempt,
            )
            cached = runtime.cache.get(key)  # type: ignore[union-attr]
            if cached is not None:
                cached = replace(cached, reply=scrub(cached.reply))
                self._write(
                    context=context,
                    attempt=attempt,
                    system=system,
                    prompt=prompt,
                    latency_ms=(time.perf_counter() - started) * 1000,
                    usage=Usage(
                        tokens_in=cached.tokens_in,
                        tokens_out=cached.tokens_out,
                        cost_usd=0.0,
                        tokens_reasoning=cached.tokens_reasoning,
                        finish_reason=cached.finish_reason,
                    ),
                    verdict=classify(cached.reply),
                    retries=0,
                    cache_hit=True,
                )
                return cached.reply

        def call() -> str:
            return self.client.complete(
                system=system, prompt=prompt, temperature=temperature, max_tokens=max_tokens
            )

        def record_cancelled() -> None:
            self._write_unanswered(
                context=context,
                attempt=attempt,
                system=system,
                prompt=prompt,
                started=started,
                status="cancelled",
                retries=0,
                error="cancelled: the run stopped while the call was in flight",
            )

        token = runtime.start_call(record_cancelled)
        try:
            with runtime.slot(provider=self.provider, model=self.model):
                reply, retries = call_with_retries(
                    call,
                    policy=self.retry,
                    classify=self._classify_error,
                    sleep=runtime.sleep,
                    rng=runtime.rng,
                    should_stop=runtime.cancel.is_set,
                )
        except RetriesExhausted as exc:
            if not runtime.finish_call(token):
                raise CallsCancelled("the run stopped while the call was in flight") from None
            self._fail(
                exc, context=context, attempt=attempt, system=system, prompt=prompt, started=started
            )
        except BaseException:
            runtime.finish_call(token)
            raise
        if not runtime.finish_call(token):
            raise CallsCancelled("the run stopped while the call was in flight")
        # a reply that echoes a key (a prompt injection, a chatty proxy) never reaches a file
        reply = scrub(reply)
        latency_ms = (time.perf_counter() - started) * 1000
        reported = getattr(self.client, "last_usage", None) or Usage()
        # tokens_out already holds any reasoning tokens: they are priced once, as output
        usage = replace(
            reported,
            cost_usd=runtime.prices.cost(
                provider=self.provider,
                model=self.model,
                tokens_in=reported.tokens_in,
                tokens_out=reported.tokens_out,
                reported=reported.cost_usd,
            ),
        )
        if key is not None:
            runtime.cache.put(  # type: ignore[union-attr]
                key,
                CachedReply(
                    reply,
                    tokens_in=usage.tokens_in,
                    tokens_out=usage.tokens_out,
                    cost_usd=usage.cost_usd,
                    tokens_reasoning=usage.tokens_reasoning,
                    finish_reason=usage.finish_reason,
                ),
            )
        self._write(
            context=context,
            attempt=attempt,
            system=system,
            prompt=prompt,
            latency_ms=latency_ms,
            usage=usage,
            verdict=classify(reply),
            retries=retries,
        )
        return reply

    def _classify_error(self, exc: BaseException) -> Failure:
        classify = getattr(self.client, "classify_error", None)
        failure = classify(exc) if classify is not None else None
        return failure if failure is not None else classify_builtin(exc)

    def _fail(
        self,
        exc: RetriesExhausted,
        *,
        context: CallContext,
        attempt: int,
        system: str,
        prompt: str,
        started: float,
    ) -> None:
        detail = scrub(f"{exc.failure.reason}: {describe(exc.error)}")
        self._write_unanswered(
            context=context,
            attempt=attempt,
            system=system,
            prompt=prompt,
            started=started,
            status="error",
            retries=exc.retries,
            error=detail[:500],
        )
        after = f" after {exc.retries} retries" if exc.retries else ""
        raise ProviderError(
            f"provider {self.provider!r} ({self.model}) failed{after}: {detail[:300]}"
        ) from None

    def _write_unanswered(
        self,
        *,
        context: CallContext,
        attempt: int,
        system: str,
        prompt: str,
        started: float,
        status: str,
        retries: int,
        error: str,
    ) -> None:
        """The record of an attempt that got no reply: failed for good, or cancelled."""
        self._write(
            context=context,
            attempt=attempt,
            system=system,
            prompt=prompt,
            latency_ms=(time.perf_counter() - started) * 1000,
            usage=None,
            verdict=(status, None),
            retries=retries,
            error=error,
        )

    def _cache_key(
        self,
        *,
        system: str,
        prompt: str,
        temperature: float,
        max_tokens: int,
        context: CallContext,
        attempt: int,
    ) -> str:
        return cache_key(
            provider=self.provider if self.endpoint is None else f"{self.provider}@{self.endpoint}",
            model=self.model,
            params={"temperature": temperature, "max_tokens": max_tokens, **self.request_settings},
            system=system,
            prompt=prompt,
            sample=context.sample_key(seed=self.runtime.seed, attempt=attempt),
        )

    def _write(
        self,
        *,
        context: CallContext,
        attempt: int,
        system: str,
        prompt: str,
        latency_ms: float,
        usage: Usage | None,
        verdict: tuple[str, str | None],
        retries: int,
        error: str | None = None,
        cache_hit: bool = False,
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
                "transport_retries": retries,
                "provider": self.provider,
                "model": self.model,
                "prompt_sha256": prompt_sha256(system, prompt),
                "latency_ms": round(latency_ms, 3),
                "tokens_in": usage.tokens_in if usage else None,
                "tokens_out": usage.tokens_out if usage else None,
                "tokens_reasoning": usage.tokens_reasoning if usage else None,
                "cost_usd": usage.cost_usd if usage else None,
                "finish_reason": usage.finish_reason if usage else None,
                "truncated": usage.truncated if usage else False,
                "status": verdict[0],
                "parse_rule": verdict[1],
                "error": error,
                "cache_hit": cache_hit,
                "timestamp_utc": utc_timestamp(),
            }
        )


def gateway_for(
    settings: Any,
    *,
    client: ProviderClient,
    run_id: str,
    record: Callable[[dict], None],
    runtime: ProviderRuntime,
) -> ProviderGateway:
    """The gateway of one LLM (a PD agent or an arena player) from its config: provider,
    model, endpoint, transport retries, cache use and request settings."""
    transport = settings.transport
    return ProviderGateway(
        client=client,
        provider=settings.provider,
        model=settings.model,
        run_id=run_id,
        record=record,
        runtime=runtime,
        retry=RetryPolicy(
            max_retries=transport.max_retries,
            backoff_base_s=transport.backoff_base_s,
            backoff_max_s=transport.backoff_max_s,
        ),
        use_cache=settings.uses_cache,
        endpoint=settings.base_url,
        request_settings=settings.request_settings(),
    )
