"""How a provider says what went wrong: a transient failure (retry) or a fatal one (stop).

Providers never retry: each only *classifies* the exceptions of its SDK into a
:class:`Failure`; the one retry loop (:mod:`pdbench.providers.retry`) acts on it.

- transient: timeouts, connection errors, 408/409/429, 5xx, a malformed reply body;
- fatal: bad key (401/403), unknown model (404), bad request (400/422), quota exhausted,
  anything the classifier does not recognise.

A malformed body counts as transient: proxies and overloaded servers do send truncated or
garbled replies, and a retry costs one call; if it persists, retries run out and the run
fails like any other persistent error.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "TRANSIENT_STATUS",
    "Failure",
    "classify_builtin",
    "classify_status",
    "describe",
    "headers_of",
    "parse_retry_after",
]

TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
"""HTTP statuses below 500 worth retrying (every 5xx is too)."""


@dataclass(frozen=True, slots=True)
class Failure:
    """What a provider error means for the retry loop."""

    transient: bool
    """True: retry (after back-off); False: fail the run now."""
    reason: str
    """Short label for ``calls.jsonl`` and messages, e.g. ``rate limited (429)``."""
    retry_after_s: float | None = None
    """What the server asked us to wait (Retry-After), if it said."""


def parse_retry_after(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date)."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(moment.timestamp() - (time.time() if now is None else now), 0.0)


def classify_status(status: int, *, headers: Mapping[str, str] | None = None) -> Failure:
    """The failure an HTTP error status means."""
    retry_after = parse_retry_after(headers)
    if status == 429:
        return Failure(True, "rate limited (429)", retry_after)
    if status >= 500 or status in TRANSIENT_STATUS:
        return Failure(True, f"server error ({status})", retry_after)
    if status in (401, 403):
        return Failure(False, f"not authorised ({status}): check the API key")
    if status == 404:
        return Failure(False, "not found (404): check the model name and base_url")
    return Failure(False, f"request rejected ({status})")


def classify_builtin(exc: BaseException) -> Failure:
    """The default for exceptions no SDK claimed: network-ish ones are transient."""
    if isinstance(exc, TimeoutError):
        return Failure(True, "timeout")
    if isinstance(exc, ConnectionError):
        return Failure(True, "connection error")
    return Failure(False, type(exc).__name__)


def describe(exc: BaseException) -> str:
    """One line about ``exc``: its class and the first line of its message."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def headers_of(exc: Any) -> Mapping[str, str] | None:
    """The response headers an SDK exception carries, if any."""
    response = getattr(exc, "response", None)
    return getattr(response, "headers", None)
