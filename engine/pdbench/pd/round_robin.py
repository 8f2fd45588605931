"""Round robins: which pairings a list of agents makes, and what each pairing is called.

``round_robin: {agents: [...], self_play: false}`` in an experiment becomes one condition per
pairing (``ExperimentConfig`` appends them to ``conditions``), so pairings follow exactly the
replicate, horizon and seed rules of hand-written conditions. Pairings are in list order:
agent i is side A against every later agent j (and itself, with ``self_play``).
"""

from __future__ import annotations

import re

__all__ = ["pairing_name", "pairings", "safe_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def pairings(count: int, *, self_play: bool) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)`` with ``i < j`` (``i <= j`` with self-play), row by row:
    n(n-1)/2 pairings, n(n+1)/2 with self-play."""
    return [(i, j) for i in range(count) for j in range(i if self_play else i + 1, count)]


def pairing_name(name_a: str, name_b: str) -> str:
    """``<a>_vs_<b>``, each name with characters a condition name cannot hold replaced by
    ``_`` (``axelrod:Grudger`` -> ``axelrod_Grudger``)."""
    return f"{safe_name(name_a)}_vs_{safe_name(name_b)}"


def safe_name(name: str) -> str:
    """``name`` with the characters a condition name cannot hold replaced by ``_``."""
    cleaned = _UNSAFE.sub("_", name).lstrip("_.-").rstrip("_")
    return cleaned or "agent"
