"""How many rounds a match lasts.

The length depends on ``(seed, replicate)`` only, so every condition of a replicate plays the
same number of rounds (common random numbers: paired comparisons across conditions).
"""

from __future__ import annotations

from pdbench.rng import stream

__all__ = ["fixed_length", "geometric_length"]


def fixed_length(n: int) -> int:
    """A fixed horizon: exactly ``n`` rounds."""
    if n < 1:
        raise ValueError(f"a fixed horizon needs n >= 1, got {n}")
    return n


def geometric_length(*, stop_prob: float, max_rounds: int, seed: int, replicate: int) -> int:
    """A geometric horizon: after each round, stop with probability ``stop_prob``.

    The first round is always played, so the length is Geometric(stop_prob) on 1, 2, ...
    (mean ``1 / stop_prob``), capped at ``max_rounds``. The coin flips come from the stream
    ``(seed, "horizon", replicate)``.
    """
    if not 0 < stop_prob <= 1:
        raise ValueError(f"stop_prob must be in (0, 1], got {stop_prob}")
    rng = stream(seed, "horizon", replicate)
    rounds = 1
    while rounds < max_rounds and rng.random() >= stop_prob:
        rounds += 1
    return rounds
