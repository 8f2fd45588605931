"""How a provider says what went wrong: a transient failure (retry) or a fatal one (stop).

Providers never retry: each only *classifies* the exceptions of its SDK into a
:class:`Failure`; the one retry loop (:mod:`pdbench.providers.retry`) acts on it.

- transient: timeouts (the per-request deadline included), connection errors,
  408/409/425/429, 5xx, a malformed reply (:class:`MalformedReply`: a body that is not JSON,
  not UTF-8, an HTML page, a JSON body without the fields the API promises, such as an empty
  ``choices`` list);
- fatal: bad key (401/403), unknown model (404), bad request (400/422), quota exhausted,
  anything the classifier does not recognise.

A malformed body counts as transient: proxies and overloaded servers do send truncated or
garbled replies, and a retry costs one call; the retries are bounded (``max_retries``), and
when they run out the run fails like any other persistent error, with a ``calls.jsonl`` line.

Headers are read defensively: a ``Retry-After`` that is not a finite number of seconds or an
HTTP date (``nan``, ``1e999``, garbage) is ignored, and any wait it asks for is clamped to
:data:`MAX_RETRY_AFTER_S`.

Exceptions::

    Exception
     +-- MalformedReply      a reply body that is not what the API promises (transient)
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_RETRY_AFTER_S",
    "TRANSIENT_STATUS",
    "Failure",
    "MalformedReply",
    "classify_builtin",
    "classify_status",
    "describe",
    "headers_of",
    "parse_retry_after",
    "reading_reply",
]

TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
"""HTTP statuses below 500 worth retrying (every 5xx is too)."""
MAX_RETRY_AFTER_S = 300.0
"""The longest wait a server's ``Retry-After`` can ask for (a longer one is cut to this)."""


class MalformedReply(Exception):
    """A reply body that is not what the API promises (transient: see the module)."""


@contextmanager
def reading_reply() -> Iterator[None]:
    """Turn any error raised while reading a response into :class:`MalformedReply`: an
    adapter reads a body it did not check field by field (``choices[0]``, ``.content``), and
    whatever that trips on (an empty list, a missing field, a string where an object was
    promised) is a malformed reply, never an internal error."""
    try:
        yield
    except MalformedReply:
        raise
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
        raise MalformedReply(describe(exc)) from exc


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
    try:
        millis = _seconds(headers.get("retry-after-ms")) if headers else None
        if millis is not None:
            return _clamped(millis / 1000)
        value = headers.get("retry-after") if headers else None
        if not isinstance(value, str):
            return None
        seconds = _seconds(value)
        if seconds is not None:
            return _clamped(seconds)
        moment = email.utils.parsedate_to_datetime(value)
        return _clamped(moment.timestamp() - (time.time() if now is None else now))
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None


def _seconds(value: object) -> float | None:
    """A finite number of seconds from a header value, or None."""
    if not isinstance(value, str):
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) else None


def _clamped(seconds: float) -> float | None:
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S) if math.isfinite(seconds) else None


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
    if isinstance(exc, MalformedReply):
        return Failure(True, f"malformed reply ({exc})")
    if isinstance(exc, (UnicodeDecodeError, json.JSONDecodeError)):
        return Failure(True, "malformed reply body")
    return Failure(False, type(exc).__name__)


def describe(exc: BaseException) -> str:
    """One line about ``exc``: its class and the first line of its message."""
    try:
        text = str(exc).strip().splitlines()
    except Exception:  # an exception whose message itself fails to render
        text = []
    first = text[0][:300] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def headers_of(exc: Any) -> Mapping[str, str] | None:
    """The response headers an SDK exception carries, if any."""
    response = getattr(exc, "response", None)
    return getattr(response, "headers", None)
