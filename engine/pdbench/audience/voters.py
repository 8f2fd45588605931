"""Who votes: a voter id the page issues and signs, which a browser cannot choose or forge.

The page gives every new browser session a random voter id with an HMAC signature under a key
that lives only in the page's server process (``<id>.<signature>``, kept in the address as
``?voter=`` so that a reload keeps it). An id the server did not sign (typed, guessed, or
signed by an earlier server of the page) is never used: the session gets a new one. So the
one way to more voter ids is more sessions, and the page issues at most
:data:`MAX_NEW_VOTERS_PER_HOUR` new ids per client address per hour. Restarting the page
starts a new key: earlier addresses get new voter ids.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
import uuid
from collections import defaultdict, deque

__all__ = ["MAX_NEW_VOTERS_PER_HOUR", "VoterDesk"]

MAX_NEW_VOTERS_PER_HOUR = 30
"""New voter ids the page issues to one client address within an hour."""


class VoterDesk:
    """Issues and checks voter tokens (one desk per page server: its key never leaves it)."""

    def __init__(self, *, key: bytes | None = None, per_hour: int = MAX_NEW_VOTERS_PER_HOUR):
        self._key = key or secrets.token_bytes(32)
        self._per_hour = per_hour
        self._issued: defaultdict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _signature(self, voter: str) -> str:
        return hmac.new(self._key, voter.encode(), hashlib.sha256).hexdigest()[:32]

    def voter_of(self, token: str | None) -> str | None:
        """The voter id of a token this desk signed, else None."""
        voter, _, signature = (token or "").partition(".")
        if len(voter) != 32 or not signature:
            return None
        return voter if hmac.compare_digest(signature, self._signature(voter)) else None

    def issue(self, *, address: str | None, now: float | None = None) -> str | None:
        """A new signed token for a session from ``address``; None when that address had
        its :data:`MAX_NEW_VOTERS_PER_HOUR` already."""
        moment = time.monotonic() if now is None else now
        with self._lock:
            issued = self._issued[address or "unknown"]
            while issued and issued[0] <= moment - 3600:
                issued.popleft()
            if len(issued) >= self._per_hour:
                return None
            issued.append(moment)
        voter = uuid.uuid4().hex
        return f"{voter}.{self._signature(voter)}"
