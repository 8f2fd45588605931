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

A gateway with a batch lane (:mod:`pdbench.providers.batch_lane`) answers from the lane
before step 2: a request the lane settled is recorded like a call (with its ``batch_id``
and the batch price) and cached; a request it never saw (and the cache does not hold) is
queued for the next batch and :class:`AwaitingBatch` is raised; a request its batch did not
answer goes through step 3 like any call, and its reply is settled in the lane.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn, Protocol

from pdbench.errors import ProviderError
from pdbench.number_text import plural
from pdbench.providers.base import ProviderClient, Usage
from pdbench.providers.batch_lane import AwaitingBatch, BatchLane, Settled
from pdbench.providers.cache import CachedReply, cache_key
from pdbench.providers.calls import CallContext, CallOutcome, CallRequest, Reply, Verdict
from pdbench.providers.failures import Failure, MalformedReply, classify_builtin, describe
from pdbench.providers.identity import reply_identity
from pdbench.providers.keys import scrub
from pdbench.providers.retry import (
    RetriesExhausted,
    RetryPolicy,
    TransportSettings,
    call_with_retries,
)
from pdbench.providers.runtime import ProviderRuntime

__all__ = ["AwaitingBatch", "CallsCancelled", "GatewaySettings", "ProviderGateway", "gateway_for"]

_IN_FLIGHT = "the run stopped while the call was in flight"


class CallsCancelled(Exception):
    """The run was cancelled (Ctrl-C, or another job of the run failed): no call was made."""


@dataclass(frozen=True, slots=True)
class _Attempt:
    """One game attempt while the gateway handles it: what is asked, by whom, since when."""

    request: CallRequest
    context: CallContext
    number: int
    started: float = field(default_factory=time.perf_counter)

    def elapsed_ms(self) -> float:
        """Milliseconds since the attempt started (back-off included)."""
        return (time.perf_counter() - self.started) * 1000


class ProviderGateway:
    """Wraps one provider client for one agent; ``record`` receives each call's record.

    The response cache's key holds everything that can change a reply: ``identity`` (what
    the client answers as, :func:`pdbench.providers.identity.reply_identity`, resolved
    endpoints included, and the LLM's config: see :func:`gateway_for`; None: asked of the
    client), ``request_settings`` (reasoning, thinking, params), temperature, ``max_tokens``,
    both prompts and the sample. ``use_cache`` says whether this agent's calls may be cached
    (the runtime must also have a cache); ``batch`` is the lane this LLM's requests go through
    in batch mode (None: single calls).
    """

    def __init__(
        self,
        *,
        client: ProviderClient,
        provider: str,
        model: str,
        run_id: str,
        record: Callable[[dict[str, Any]], None],
        runtime: ProviderRuntime | None = None,
        retry: RetryPolicy | None = None,
        use_cache: bool = False,
        identity: dict[str, Any] | None = None,
        request_settings: dict[str, Any] | None = None,
        batch: BatchLane | None = None,
    ) -> None:
        self.batch = batch
        self.client = client
        self.provider = provider
        self.model = model
        self.run_id = run_id
        self.runtime = runtime or ProviderRuntime()
        self.retry = retry or RetryPolicy()
        self.use_cache = use_cache and self.runtime.cache is not None
        self.identity = reply_identity(client) if identity is None else identity
        self.request_settings = dict(request_settings or {})
        self._record = record

    def complete(
        self,
        request: CallRequest,
        *,
        context: CallContext,
        attempt: int,
        classify: Callable[[Reply], Verdict],
    ) -> Reply:
        """One game attempt (cached, or called with transport retries), recorded once:
        ``classify`` says what the game made of the reply, which it sees with its truncation."""
        if self.runtime.cancel.is_set():
            raise CallsCancelled("the run was cancelled")
        call = _Attempt(request, context, attempt)
        cache = self.runtime.cache if self.use_cache else None
        key = self._cache_key(call) if cache is not None or self.batch is not None else ""
        cached = cache.get(key) if cache is not None else None
        if self.batch is not None:
            settled = self.batch.settled(key)
            if isinstance(settled, Settled):
                return self._settled(call, key=key, settled=settled, classify=classify)
            if settled is None and cached is None:
                self.batch.queue(key, request)
                raise AwaitingBatch(key)
        if cached is not None:
            usage = cached.replayed_usage()
            reply = Reply(scrub(cached.reply), truncated=usage.truncated)
            self._write(
                call,
                CallOutcome(
                    latency_ms=call.elapsed_ms(),
                    usage=usage,
                    verdict=classify(reply),
                    retries=0,
                    cache_hit=True,
                ),
            )
            return reply
        text, retries = self._call(call)
        latency_ms = call.elapsed_ms()
        usage = self._priced_usage()
        if cache is not None:
            cache.put(key, CachedReply(text, usage))
        if self.batch is not None:  # a request its batch did not answer, asked alone
            self.batch.settle(key, Settled(text, usage, None, latency_ms, retries))
        reply = Reply(text, truncated=usage.truncated)
        self._write(
            call,
            CallOutcome(
                latency_ms=latency_ms, usage=usage, verdict=classify(reply), retries=retries
            ),
        )
        return reply

    def _settled(
        self, call: _Attempt, *, key: str, settled: Settled, classify: Callable[[Reply], Verdict]
    ) -> Reply:
        """The reply the batch lane settled, recorded (and cached) as its call."""
        if self.use_cache and self.runtime.cache is not None and settled.batch_id is not None:
            self.runtime.cache.put(key, CachedReply(settled.reply, settled.usage))
        reply = Reply(settled.reply, truncated=settled.usage.truncated)
        self._write(
            call,
            CallOutcome(
                latency_ms=settled.latency_ms,
                usage=settled.usage,
                verdict=classify(reply),
                retries=settled.retries,
                batch_id=settled.batch_id,
            ),
        )
        return reply

    def _call(self, call: _Attempt) -> tuple[str, int]:
        """The client's reply (keys scrubbed out) and the retries it took, within a slot of
        the model. A call the run abandoned while it was in flight (its record already written)
        ends in :class:`CallsCancelled`; one that failed for good, in a ``ProviderError``."""
        runtime, request = self.runtime, call.request
        token = runtime.start_call(
            lambda: self._write_unanswered(
                call, status="cancelled", retries=0, error=f"cancelled: {_IN_FLIGHT}"
            )
        )
        try:
            with runtime.slot(provider=self.provider, model=self.model):
                outcome: tuple[str, int] | RetriesExhausted = call_with_retries(
                    lambda: _text_of(request.ask(self.client)),
                    policy=self.retry,
                    classify=self._classify_error,
                    sleep=runtime.sleep,
                    rng=runtime.rng,
                    should_stop=runtime.cancel.is_set,
                )
        except RetriesExhausted as exc:
            outcome = exc
        except Exception as exc:  # outside the loop's reach: still recorded, still one line
            outcome = RetriesExhausted(
                error=exc, failure=Failure(False, "internal error"), retries=0
            )
        except BaseException:
            # Ctrl-C (or SIGTERM, or an exit) lands in the thread that waits on the call when
            # the run plays one call at a time (one match left, max_concurrency 1): the call is
            # in flight and gets no reply, as one abandoned by a worker thread would
            if runtime.finish_call(token):
                self._write_unanswered(
                    call, status="cancelled", retries=0, error=f"cancelled: {_IN_FLIGHT}"
                )
            raise
        if not runtime.finish_call(token):
            raise CallsCancelled(_IN_FLIGHT)
        if isinstance(outcome, RetriesExhausted):
            self._fail(outcome, call=call)
        reply, retries = outcome
        # a reply that echoes a key (a prompt injection, a chatty proxy) never reaches a file
        return scrub(reply), retries

    def _priced_usage(self) -> Usage:
        """What the client says the call used, with its cost from the run's prices."""
        reported = getattr(self.client, "last_usage", None) or Usage()
        # tokens_out already holds any reasoning tokens: they are priced once, as output
        cost = self.runtime.prices.cost(reported, provider=self.provider, model=self.model)
        return replace(reported, cost_usd=cost)

    def _classify_error(self, exc: BaseException) -> Failure:
        classify = getattr(self.client, "classify_error", None)
        failure = classify(exc) if classify is not None else None
        return failure if failure is not None else classify_builtin(exc)

    def _fail(self, exc: RetriesExhausted, *, call: _Attempt) -> NoReturn:
        """Record a call that failed for good and raise its one-line ``ProviderError``."""
        detail = scrub(f"{exc.failure.reason}: {describe(exc.error)}")
        self._write_unanswered(call, status="error", retries=exc.retries, error=detail[:500])
        after = f" after {plural(exc.retries, 'retry', 'retries')}" if exc.retries else ""
        raise ProviderError(
            f"provider {self.provider!r} ({self.model}) failed{after}: {detail[:300]}"
        ) from None

    def _write_unanswered(self, call: _Attempt, *, status: str, retries: int, error: str) -> None:
        """The record of an attempt that got no reply: failed for good, or cancelled."""
        outcome = CallOutcome(
            latency_ms=call.elapsed_ms(),
            usage=None,
            verdict=(status, None),
            retries=retries,
            error=error,
        )
        self._write(call, outcome)

    def _cache_key(self, call: _Attempt) -> str:
        request = call.request
        params = {"temperature": request.temperature, "max_tokens": request.max_tokens}
        return cache_key(
            provider=self.provider,
            model=self.model,
            identity=self.identity,
            params={**params, **self.request_settings},
            system=request.system,
            prompt=request.prompt,
            sample=call.context.sample_key(seed=self.runtime.seed, attempt=call.number),
        )

    def _write(self, call: _Attempt, outcome: CallOutcome) -> None:
        self._record(
            call.context.call_record(
                run_id=self.run_id,
                attempt=call.number,
                provider=self.provider,
                model=self.model,
                prompt_sha256=call.request.prompt_sha256,
                outcome=outcome,
            )
        )


def _text_of(reply: object) -> str:
    """The reply a client returned, if it is text (else a transient :class:`MalformedReply`)."""
    if not isinstance(reply, str):
        raise MalformedReply(f"the client returned {type(reply).__name__}, not text")
    return reply


class GatewaySettings(Protocol):
    """What the gateway of one LLM reads from its config (in pdbench:
    :class:`pdbench.config.providers.ProviderAccessConfig`, which every game's LLM players
    extend)."""

    @property
    def provider(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def base_url(self) -> str | list[str] | None: ...
    @property
    def transport(self) -> TransportSettings: ...

    @property
    def uses_cache(self) -> bool: ...
    def request_settings(self) -> dict[str, Any]: ...
    def reply_settings(self) -> dict[str, Any]: ...


def gateway_for(
    settings: GatewaySettings,
    *,
    client: ProviderClient,
    run_id: str,
    record: Callable[[dict[str, Any]], None],
    runtime: ProviderRuntime | None,
    batch: BatchLane | None = None,
) -> ProviderGateway:
    """The gateway of one LLM from its config: provider, model, transport retries, cache use
    and request settings (and its batch lane in batch mode). Its cache key names the client
    (resolved endpoints, the mock's player) and every field of the config that can change a
    reply (``reply_settings``). Every game builds its LLMs' gateways here."""
    return ProviderGateway(
        client=client,
        provider=settings.provider,
        model=settings.model,
        run_id=run_id,
        record=record,
        runtime=runtime,
        retry=RetryPolicy.of(settings.transport),
        use_cache=settings.uses_cache,
        identity={"client": reply_identity(client), "settings": settings.reply_settings()},
        request_settings=settings.request_settings(),
        batch=batch,
    )
