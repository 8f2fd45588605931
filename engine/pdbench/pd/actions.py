"""The action type and what an agent sees before it moves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

__all__ = ["Action", "C", "D", "Observation", "Turn"]


class Action(StrEnum):
    """A move in the Prisoner's Dilemma; a ``str``, so it serialises as ``"C"``/``"D"``."""

    C = "C"
    D = "D"

    def flip(self) -> Action:
        """The other action."""
        return D if self is C else C


C = Action.C
D = Action.D


class Turn(NamedTuple):
    """One past round, seen from one agent's side."""

    own_action: Action
    opponent_action: Action
    own_payoff: float
    opponent_payoff: float


@dataclass(slots=True)
class Observation:
    """What an agent knows when it chooses the action of ``round_index``.

    ``history`` holds past rounds oldest first. It is at least as long as the agent's
    declared ``history_needed`` (or the whole match when that is shorter); the runner keeps
    only that many rounds, so an agent must read it during ``act`` and not keep a reference.
    """

    round_index: int
    """The round about to be played, 1-based."""
    history: Sequence[Turn]
    """Past rounds from this agent's side, oldest first (possibly truncated, see above)."""
    own_total: float = 0.0
    """This agent's payoff summed over all past rounds."""
    opponent_total: float = 0.0
    """The opponent's payoff summed over all past rounds."""
