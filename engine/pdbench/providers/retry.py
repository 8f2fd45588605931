"""The one transport retry loop: exponential back-off with jitter, honouring Retry-After.

Used by :class:`pdbench.providers.gateway.ProviderGateway` around every provider call. These
retries repeat the *same* request after a transport failure; they are counted in
``CallRecord.transport_retries`` and never mixed up with the game's re-prompts after an
invalid reply (``CallRecord.attempt``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pdbench.providers.failures import MAX_RETRY_AFTER_S, Failure, describe

__all__ = [
    "RetriesExhausted",
    "RetryPolicy",
    "TransportSettings",
    "backoff_delay",
    "call_with_retries",
]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to try one request."""

    max_retries: int = 4
    """Retries after a transient failure (0: try once)."""
    backoff_base_s: float = 1.0
    """First back-off; doubles with every retry."""
    backoff_max_s: float = 30.0
    """Cap on one back-off (a server's Retry-After is honoured even when longer)."""

    @classmethod
    def of(cls, transport: TransportSettings) -> RetryPolicy:
        """The policy an LLM's ``transport`` config asks for."""
        return cls(
            max_retries=transport.max_retries,
            backoff_base_s=transport.backoff_base_s,
            backoff_max_s=transport.backoff_max_s,
        )


class TransportSettings(Protocol):
    """The retry settings of an LLM's ``transport`` config."""

    @property
    def max_retries(self) -> int: ...
    @property
    def backoff_base_s(self) -> float: ...
    @property
    def backoff_max_s(self) -> float: ...


class RetriesExhausted(Exception):
    """The last failure of a request that will not be tried again."""

    def __init__(self, *, error: BaseException, failure: Failure, retries: int) -> None:
        super().__init__(failure.reason)
        self.error = error
        self.failure = failure
        self.retries = retries


def backoff_delay(
    *, retry: int, policy: RetryPolicy, rng: random.Random, retry_after_s: float | None = None
) -> float:
    """Seconds to wait before retry number ``retry`` (1-based).

    The server's Retry-After wins when it gave a finite one (cut to ``MAX_RETRY_AFTER_S``);
    otherwise "equal jitter": half of ``min(max, base * 2**(retry-1))`` plus a uniform draw of
    up to the other half.
    """
    if retry_after_s is not None and math.isfinite(retry_after_s):
        return min(max(retry_after_s, 0.0), MAX_RETRY_AFTER_S)
    ceiling = min(policy.backoff_max_s, policy.backoff_base_s * 2.0 ** (retry - 1))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


def call_with_retries[T](
    call: Callable[[], T],
    *,
    policy: RetryPolicy,
    classify: Callable[[BaseException], Failure],
    sleep: Callable[[float], None],
    rng: random.Random,
    should_stop: Callable[[], bool] = lambda: False,
) -> tuple[T, int]:
    """``call()`` and the number of retries it took.

    Raises :class:`RetriesExhausted` on a fatal failure or when retries run out, and stops
    retrying (re-raising the failure the same way) once ``should_stop()`` is true.
    """
    retries = 0
    while True:
        try:
            return call(), retries
        except Exception as exc:
            failure = _classified(exc, classify)
            if not failure.transient or retries >= policy.max_retries or should_stop():
                raise RetriesExhausted(error=exc, failure=failure, retries=retries) from exc
            retries += 1
            sleep(
                backoff_delay(
                    retry=retries, policy=policy, rng=rng, retry_after_s=failure.retry_after_s
                )
            )


def _classified(exc: BaseException, classify: Callable[[BaseException], Failure]) -> Failure:
    """``classify(exc)``; a classifier that itself fails makes the error fatal, with a reason."""
    try:
        return classify(exc)
    except Exception:
        return Failure(False, f"unclassified error ({describe(exc)})")
