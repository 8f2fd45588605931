"""Opaque ids and presentation order: what keeps raters and judges blind.

An id is ``q_`` or ``a_`` and 10 hex digits of a sha256 over the run seed and what the item
is; the author's name goes into the hash but can never be read back out of it, and no id is
ever shown in a prompt anyway. Each rater and judge sees the items in its own order, shuffled
from ``(seed, "order", phase, player)``, never from execution order.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from pdbench.rng import stream

__all__ = ["answer_id", "presentation_order", "question_id"]

_HEX_DIGITS = 10


def _digest(*parts: str | int) -> str:
    key = json.dumps(list(parts), separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:_HEX_DIGITS]


def question_id(*, seed: int, author: str, position: int) -> str:
    """The id of the ``position``-th (1-based) question kept from ``author``'s list."""
    return "q_" + _digest(seed, "question", author, position)


def answer_id(*, seed: int, question_id: str, answerer: str) -> str:
    """The id of ``answerer``'s answer to ``question_id``."""
    return "a_" + _digest(seed, "answer", question_id, answerer)


def presentation_order(items: Sequence[str], *, seed: int, phase: str, player: str) -> list[str]:
    """``items`` (ids) in the order ``player`` is shown them in ``phase``: sorted, then
    shuffled by the stream ``(seed, "order", phase, player)``."""
    order = sorted(items)
    stream(seed, "order", phase, player).shuffle(order)
    return order
