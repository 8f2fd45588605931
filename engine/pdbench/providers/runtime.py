"""What every provider call of a run shares: the cache, prices, limits, the clock, the stop.

One :class:`ProviderRuntime` is built per run and handed to every
:class:`pdbench.providers.gateway.ProviderGateway`. Tests inject ``sleep`` so back-off costs
no time, and set ``cancel`` to stop every call in flight at its next retry or call.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

from pdbench.providers.cache import ResponseCache
from pdbench.providers.pricing import PriceTable

__all__ = ["ProviderRuntime"]


@dataclass
class ProviderRuntime:
    """Shared services of the gateways of one run."""

    seed: int = 0
    """The run seed: part of every cache key's sample key."""
    cache: ResponseCache | None = None
    """The response cache (None: off, e.g. ``--no-cache``)."""
    prices: PriceTable = field(default_factory=PriceTable)
    """Prices for ``calls.jsonl``'s ``cost_usd``."""
    limits: Mapping[str, int] = field(default_factory=dict)
    """Most calls in flight at once per ``provider/model`` or ``provider`` (absent: no limit)."""
    sleep: Callable[[float], None] = time.sleep
    """How back-off waits (tests pass a recorder)."""
    rng: random.Random = field(default_factory=random.Random)
    """Jitter of the back-off (not part of any result)."""
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set to stop: no new call starts, no retry is attempted."""
    _semaphores: dict[str, threading.BoundedSemaphore] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _in_flight: dict[int, Callable[[], None]] = field(default_factory=dict, repr=False)
    _calls: itertools.count[int] = field(default_factory=itertools.count, repr=False)

    def start_call(self, record_cancelled: Callable[[], None]) -> int:
        """Register a call going out; ``record_cancelled`` writes its record should the run
        stop before it answers. Returns the token :meth:`finish_call` takes."""
        with self._lock:
            token = next(self._calls)
            self._in_flight[token] = record_cancelled
        return token

    def finish_call(self, token: int) -> bool:
        """The call answered (or failed): False when it was already recorded as cancelled,
        and must then record nothing more."""
        with self._lock:
            return self._in_flight.pop(token, None) is not None

    def abandon_in_flight(self) -> int:
        """Record every call still in flight as cancelled (the run is stopping and will not
        wait for them); returns how many. Their threads record nothing when they answer."""
        with self._lock:
            abandoned = list(self._in_flight.values())
            self._in_flight.clear()
        for record_cancelled in abandoned:
            record_cancelled()
        return len(abandoned)

    def slot(self, *, provider: str, model: str) -> AbstractContextManager[object]:
        """A context that holds one of the ``provider/model`` (or ``provider``) call slots."""
        key = f"{provider}/{model}"
        if key not in self.limits:
            key = provider
        limit = self.limits.get(key)
        if limit is None:
            return nullcontext()
        with self._lock:
            semaphore = self._semaphores.get(key)
            if semaphore is None:
                semaphore = self._semaphores[key] = threading.BoundedSemaphore(limit)
        return semaphore
