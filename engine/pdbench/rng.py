"""Seeded random streams derived by name from the run's seed, never from execution order.

``derive_seed(seed, "horizon", replicate)`` always gives the same number for the same
arguments, whatever ran before it, so matches can run in any order (or at once).
"""

from __future__ import annotations

import hashlib
import json
import random

__all__ = ["derive_seed", "stream"]

_Name = str | int | float | None


def derive_seed(seed: int, *names: _Name) -> int:
    """A 63-bit seed from ``seed`` and a path of names (sha256 of their canonical JSON)."""
    key = json.dumps([seed, *names], separators=(",", ":"), ensure_ascii=True)
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def stream(seed: int, *names: _Name) -> random.Random:
    """An independent ``random.Random`` for ``(seed, *names)``."""
    return random.Random(derive_seed(seed, *names))
