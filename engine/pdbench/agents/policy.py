"""The classic policies: small pure-Python strategies, one class each (Axelrod-style).

Each class has a readable ``name``, a docstring saying what it does and where it comes from,
a ``classifier`` and one method, ``act``. ``POLICIES`` maps the names used in configs to the
classes.
"""

from __future__ import annotations

import random
from typing import ClassVar, Literal

from pdbench.agents.base import POLICY_DECISION, Decision
from pdbench.core.payoff import PayoffView
from pdbench.core.types import Action, C, D, Observation

__all__ = [
    "POLICIES",
    "AllC",
    "AllD",
    "GenerousTitForTat",
    "Grim",
    "Policy",
    "TitForTat",
    "WinStayLoseShift",
    "default_generous_prob",
    "make_policy",
]


class Policy:
    """Base of the policies: no provider, always valid, zero attempts."""

    name: ClassVar[str] = "policy"
    kind: ClassVar[Literal["policy"]] = "policy"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 0, "stochastic": False}
    history_needed: int | None = 1
    last_decision: Decision = POLICY_DECISION

    def reset(self, seed: int | None = None) -> None:
        """Forget the previous match (stateless policies have nothing to forget)."""

    def act(self, obs: Observation) -> Action:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class AllC(Policy):
    """Always cooperates."""

    name = "ALLC"
    history_needed = 0

    def act(self, obs: Observation) -> Action:
        return C


class AllD(Policy):
    """Always defects."""

    name = "ALLD"
    history_needed = 0

    def act(self, obs: Observation) -> Action:
        return D


class TitForTat(Policy):
    """Cooperates first, then copies the opponent's previous action (Rapoport; Axelrod 1980)."""

    name = "TFT"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 1, "stochastic": False}

    def act(self, obs: Observation) -> Action:
        if not obs.history:
            return C
        return obs.history[-1].opponent_action


class Grim(Policy):
    """Cooperates until the opponent defects once, then defects forever (Friedman 1971).

    Remembers the trigger itself, so it needs only the last round of history.
    """

    name = "GRIM"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": float("inf"), "stochastic": False}

    def __init__(self) -> None:
        self._triggered = False

    def reset(self, seed: int | None = None) -> None:
        self._triggered = False

    def act(self, obs: Observation) -> Action:
        if obs.history and obs.history[-1].opponent_action == D:
            self._triggered = True
        return D if self._triggered else C


def default_generous_prob(payoffs: PayoffView) -> float:
    """Nowak and Sigmund's forgiveness: min(1 - (T-R)/(R-S), (R-P)/(T-P)); 1/3 for 3/0/5/1."""
    R, S, T, P = payoffs.R, payoffs.S, payoffs.T, payoffs.P
    if R <= S or T <= P:
        return 0.0  # not a PD: no forgiveness is defined, so none is given
    return min(max(min(1 - (T - R) / (R - S), (R - P) / (T - P)), 0.0), 1.0)


class GenerousTitForTat(Policy):
    """Tit-for-tat that forgives a defection with probability ``generous_prob`` (Nowak and
    Sigmund 1992): cooperates first; after a C, plays C; after a D, plays C with probability
    ``generous_prob``, else D. The forgiveness draws come from the seed given to ``reset``.
    """

    name = "GTFT"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 1, "stochastic": True}

    def __init__(self, *, generous_prob: float) -> None:
        if not 0 <= generous_prob <= 1:
            raise ValueError(f"generous_prob must be in [0, 1], got {generous_prob}")
        self.generous_prob = generous_prob
        self._rng = random.Random(0)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(0 if seed is None else seed)

    def act(self, obs: Observation) -> Action:
        if not obs.history or obs.history[-1].opponent_action == C:
            return C
        return C if self._rng.random() < self.generous_prob else D


class WinStayLoseShift(Policy):
    """Win-stay lose-shift (Pavlov; Nowak and Sigmund 1993): cooperates first; then repeats
    its last action if its last payoff was >= ``win_threshold`` (default R), else switches.
    """

    name = "WSLS"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 1, "stochastic": False}

    def __init__(self, *, win_threshold: float) -> None:
        self.win_threshold = win_threshold

    def act(self, obs: Observation) -> Action:
        if not obs.history:
            return C
        last = obs.history[-1]
        if last.own_payoff >= self.win_threshold:
            return last.own_action
        return Action(last.own_action).flip()


POLICIES: dict[str, type[Policy]] = {
    cls.name: cls for cls in (AllC, AllD, TitForTat, Grim, GenerousTitForTat, WinStayLoseShift)
}
"""Config name -> policy class."""


def make_policy(
    name: str,
    *,
    payoffs: PayoffView,
    generous_prob: float | None = None,
    win_threshold: float | None = None,
) -> Policy:
    """A fresh policy by config name; parameters default from the player's own payoffs."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r} (known: {', '.join(POLICIES)})")
    if name == "GTFT":
        prob = default_generous_prob(payoffs) if generous_prob is None else generous_prob
        return GenerousTitForTat(generous_prob=prob)
    if name == "WSLS":
        return WinStayLoseShift(win_threshold=payoffs.R if win_threshold is None else win_threshold)
    return POLICIES[name]()
