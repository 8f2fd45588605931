"""One LLM's requests on their way through the provider's batch API.

A gateway with a :class:`BatchLane` (:mod:`pdbench.providers.gateway`) never calls the
provider for a request it has not seen: it queues it under its cache key (:meth:`queue`)
and raises :class:`AwaitingBatch`; the caller gathers every request of a step that way,
then :meth:`BatchLane.submit` sends them as one or more batches (split to the provider's
limits), :meth:`BatchLane.collect` polls until each has ended (waiting
``interval_s``, doubling up to ``max_interval_s``) and settles every outcome, and the caller
asks again: this time the gateway finds the reply settled and records it as a call, with
the batch id and the batch price (``price_factor`` times the list price).

A request the batch did not answer (errored, expired, cancelled) is asked alone, through the
gateway's normal retry path, at the list price; its reply is settled too, so that asking
again never calls twice. So is a request missing from the results of a batch this lane
submitted (a batch that failed as a whole: an input the provider refused); one missing from
a batch a stopped run submitted (a batch the provider no longer knows) stays unsettled and
goes into the next batch. No request is submitted twice by one process.

Every call to the batch API itself goes through the transport retry loop. A batch a stopped
run submitted that the provider refuses to tell about (:meth:`BatchLane.adopt`: a 404 once
its files are gone, another account) is given up, and its requests go into new batches; a
failure that outlasts the retries stops the run (resume it later).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from pdbench.errors import ProviderError
from pdbench.providers.base import Usage
from pdbench.providers.batch import BatchAnswer, BatchClient, BatchFailure, BatchItem, split_items
from pdbench.providers.calls import CallRequest
from pdbench.providers.failures import Failure, classify_builtin, describe
from pdbench.providers.keys import scrub
from pdbench.providers.retry import RetriesExhausted, RetryPolicy, call_with_retries
from pdbench.providers.runtime import ProviderRuntime

__all__ = ["AwaitingBatch", "BatchLane", "BatchPolling", "BatchRefused", "Settled", "Unanswered"]


class AwaitingBatch(Exception):
    """The request was queued for the next batch: whoever asked must wait for it."""


class BatchRefused(ProviderError):
    """The batch API refused a request for good (a fatal failure, not one retries outlast)."""


@dataclass(frozen=True, slots=True)
class BatchPolling:
    """How often a batch's status is asked, and what a batch request costs."""

    interval_s: float = 30.0
    """First wait between two polls of a batch."""
    max_interval_s: float = 600.0
    """The wait doubles after every poll, up to this."""
    price_factor: float = 0.5
    """A batch request's price as a share of the list price."""


@dataclass(frozen=True, slots=True)
class Settled:
    """A request's reply, from a batch (``batch_id``) or from a single call (None)."""

    reply: str
    usage: Usage
    """Priced: the batch price for a batch's reply."""
    batch_id: str | None
    latency_ms: float
    """From submitting the batch to reading its results (a single call: the call's time)."""
    retries: int = 0


@dataclass(frozen=True, slots=True)
class Unanswered:
    """A request a batch did not answer: it is asked alone."""

    failure: BatchFailure
    batch_id: str


class BatchLane:
    """The batches of one ``provider/model`` of a run (see the module); thread-safe."""

    def __init__(
        self,
        *,
        client: BatchClient,
        provider: str,
        model: str,
        runtime: ProviderRuntime,
        polling: BatchPolling,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.client = client
        self.provider = provider
        self.model = model
        self.runtime = runtime
        self.polling = polling
        self.retry = retry or RetryPolicy()
        self._lock = threading.Lock()
        self._queued: dict[str, CallRequest] = {}
        self._settled: dict[str, Settled | Unanswered] = {}
        self._submitted_at: dict[str, float] = {}
        self._keys: dict[str, list[str]] = {}
        """The keys of every batch this lane submitted."""

    def settled(self, key: str) -> Settled | Unanswered | None:
        """What became of the request under ``key``, or None when it was never in a batch."""
        with self._lock:
            return self._settled.get(key)

    def settle(self, key: str, entry: Settled) -> None:
        """Keep the reply of a request asked alone, so that asking again reuses it."""
        with self._lock:
            self._settled[key] = entry

    def queue(self, key: str, request: CallRequest) -> None:
        """Put the request under ``key`` into the next batch."""
        with self._lock:
            self._queued[key] = request

    @property
    def queued(self) -> int:
        """Requests waiting for the next batch."""
        with self._lock:
            return len(self._queued)

    def submit(self, on_submitted: Callable[[str], None]) -> list[str]:
        """Send the queued requests as batches; ``on_submitted(batch_id)`` runs after each
        (to write the id down before anything else can go wrong). The ids, in order."""
        with self._lock:
            items = [BatchItem(custom_id=key, request=r) for key, r in self._queued.items()]
            self._queued.clear()
        ids = []
        for chunk in split_items(items, client=self.client):
            batch_id = self._api(partial(self.client.submit_batch, chunk))
            self._submitted_at[batch_id] = time.perf_counter()
            self._keys[batch_id] = [item.custom_id for item in chunk]
            on_submitted(batch_id)
            ids.append(batch_id)
        return ids

    def collect(self, batch_ids: list[str]) -> None:
        """Wait for every batch of ``batch_ids`` to end and settle its outcomes."""
        for batch_id in batch_ids:
            self._submitted_at.setdefault(batch_id, time.perf_counter())
            self._wait(batch_id)
            outcomes = self._api(partial(self.client.batch_results, batch_id))
            latency_ms = (time.perf_counter() - self._submitted_at[batch_id]) * 1000
            missing = BatchFailure("missing", "not in the batch's results")
            for key in self._keys.get(batch_id, ()):
                outcomes.setdefault(key, missing)
            with self._lock:
                for key, outcome in outcomes.items():
                    self._settled[key] = self._settled_outcome(
                        outcome, batch_id=batch_id, latency_ms=latency_ms
                    )

    def adopt(self, batch_id: str) -> str | None:
        """:meth:`collect` a batch a stopped run submitted; when the provider refuses to tell
        about it, why (its requests, unsettled, go into the next batch), else None."""
        try:
            self.collect([batch_id])
        except BatchRefused as exc:
            return str(exc)
        return None

    def _settled_outcome(
        self, outcome: BatchAnswer | BatchFailure, *, batch_id: str, latency_ms: float
    ) -> Settled | Unanswered:
        if isinstance(outcome, BatchFailure):
            return Unanswered(failure=outcome, batch_id=batch_id)
        cost = self.runtime.prices.cost(outcome.usage, provider=self.provider, model=self.model)
        usage = replace(
            outcome.usage, cost_usd=None if cost is None else cost * self.polling.price_factor
        )
        return Settled(
            reply=scrub(outcome.reply), usage=usage, batch_id=batch_id, latency_ms=latency_ms
        )

    def _wait(self, batch_id: str) -> None:
        """Poll ``batch_id`` with back-off until it has ended."""
        delay = self.polling.interval_s
        while not self._api(lambda: self.client.batch_ended(batch_id)):
            self.runtime.sleep(delay)
            delay = min(delay * 2, self.polling.max_interval_s)

    def _api[T](self, call: Callable[[], T]) -> T:
        """One call of the batch API, with transport retries; a one-line ``ProviderError``
        when it fails for good."""
        try:
            result, _ = call_with_retries(
                call,
                policy=self.retry,
                classify=self._classify,
                sleep=self.runtime.sleep,
                rng=self.runtime.rng,
            )
        except RetriesExhausted as exc:
            detail = scrub(f"{exc.failure.reason}: {describe(exc.error)}")
            error = ProviderError if exc.failure.transient else BatchRefused
            raise error(
                f"provider {self.provider!r} ({self.model}) batch API failed: {detail[:300]}"
            ) from None
        return result

    def _classify(self, exc: BaseException) -> Failure:
        classify = getattr(self.client, "classify_error", None)
        failure = classify(exc) if classify is not None else None
        return failure if failure is not None else classify_builtin(exc)
