"""Execution noise: with probability ``noise`` an intended action is flipped before it is
played (as in Axelrod's ``Match(noise=...)``).

Each side of each match has its own stream, ``(seed, condition, replicate, "noise", side)``,
so flips do not depend on the other side, on the agents' own randomness, or on the order in
which matches run. Agents observe the executed (possibly flipped) actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from pdbench.rng import derive_seed

__all__ = ["FLIPPED", "noise_seed", "noisy"]

FLIPPED: dict[str, str] = {"C": "D", "D": "C"}
"""Action -> the other action (plain strings, for the hot loop)."""


def noise_seed(seed: int, *, condition: str, replicate: int, side: str) -> int:
    """The seed of one side's noise stream in one match."""
    return derive_seed(seed, condition, replicate, "noise", side)


def noisy(*, noise: float, seed: int) -> Callable[[str], str]:
    """A function that returns its action flipped with probability ``noise``.

    One uniform draw per call when ``0 < noise``; ``noise == 0`` is the identity (no draws).
    """
    if not 0 <= noise <= 1:
        raise ValueError(f"noise must be in [0, 1], got {noise}")
    if noise == 0:
        return _same
    draw = random.Random(seed).random
    flipped = FLIPPED

    def execute(action: str) -> str:
        return flipped[action] if draw() < noise else action

    return execute


def _same(action: str) -> str:
    return action
