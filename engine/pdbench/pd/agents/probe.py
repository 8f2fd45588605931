"""Ashlock's fingerprint probe: tit-for-tat under a Joss-Ann transformation.

The probe at the point ``(x, y)`` of the unit square (Ashlock and Kim 2008; Axelrod's
``AshlockFingerprint`` with its default probe, ``TitForTat``):

- ``x + y < 1``: each round it cooperates with probability ``x``, defects with probability
  ``y``, and otherwise plays tit-for-tat (cooperate first, then copy the opponent);
- ``x + y >= 1``: the dual of the probe at ``(1 - x, 1 - y)`` (the moves it would play,
  reversed): it defects with probability ``1 - x``, cooperates with probability ``1 - y``, and
  otherwise plays the dual of tit-for-tat ("Psycho"), which defects first and then plays the
  opposite of the opponent's last move.

The corners are four classic strategies: ``(0, 0)`` tit-for-tat, ``(1, 0)`` always
cooperate, ``(0, 1)`` always defect, ``(1, 1)`` Psycho. One uniform draw per round, from the
seed given to ``reset``.
"""

from __future__ import annotations

import random
from typing import ClassVar

from pdbench.pd.agents.policy import Policy

__all__ = ["PROBE", "AshlockProbe"]

PROBE = "PROBE"
"""The probe's policy name in configs."""


class AshlockProbe(Policy):
    """Tit-for-tat under the Joss-Ann transformation of the fingerprint point ``(x, y)``."""

    name = PROBE
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 1, "stochastic": True}

    def __init__(self, *, x: float, y: float) -> None:
        if not (0 <= x <= 1 and 0 <= y <= 1):
            raise ValueError(f"a probe's point is in the unit square, got ({x}, {y})")
        self.x, self.y = x, y
        self._dual = x + y >= 1
        if self._dual:
            self._p_cooperate, self._p_defect = 1 - y, 1 - x
        else:
            self._p_cooperate, self._p_defect = x, y
        self._rng = random.Random(0)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(0 if seed is None else seed)

    def _transformed(self, own_rule: str) -> str:
        draw = self._rng.random()
        if draw < self._p_cooperate:
            return "C"
        if draw < self._p_cooperate + self._p_defect:
            return "D"
        return own_rule

    def first_action(self) -> str:
        return self._transformed("D" if self._dual else "C")

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        if self._dual:
            return self._transformed("C" if opponent == "D" else "D")
        return self._transformed(opponent)

    def __repr__(self) -> str:
        return f"{PROBE}({self.x:g}, {self.y:g})"
