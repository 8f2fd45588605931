"""The classic policies: small pure-Python strategies, one class each (Axelrod-style).

Each class has a readable ``name``, a docstring saying what it does and where it comes from,
a ``classifier`` and one method, ``act``. ``POLICIES`` maps the names used in configs to the
classes.
"""

from __future__ import annotations

import random
from typing import ClassVar, Final, Literal

from pdbench.errors import unknown
from pdbench.pd.actions import Action, C, D, Observation
from pdbench.pd.agents.base import POLICY_DECISION, Decision
from pdbench.pd.payoff import PayoffView

__all__ = [
    "POLICIES",
    "AllC",
    "AllD",
    "Alternator",
    "DefectOnce",
    "GenerousTitForTat",
    "Grim",
    "Policy",
    "RandomCooperator",
    "TitForTat",
    "WinStayLoseShift",
    "default_generous_prob",
    "make_policy",
]


class Policy:
    """Base of the policies: no provider, always valid, zero attempts.

    A policy answers two questions, in plain ``"C"``/``"D"`` strings so the runner's hot loop
    never builds an observation: ``first_action()`` (round 1) and ``next_action(own, opponent,
    own_payoff)`` (every later round, given the last round as executed). ``act`` answers the
    ``Agent`` protocol through the same two methods, so both paths play identically.
    """

    name: ClassVar[str] = "policy"
    kind: ClassVar[Literal["policy"]] = "policy"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 0, "stochastic": False}
    history_needed: int | None = 1
    last_decision: Decision = POLICY_DECISION

    def reset(self, seed: int | None = None) -> None:
        """Forget the previous match (stateless policies have nothing to forget)."""

    def first_action(self) -> str:
        """The action of round 1."""
        return _C

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        """The action after a round in which this policy played ``own`` (as executed), the
        opponent played ``opponent`` and this policy was paid ``own_payoff``."""
        raise NotImplementedError

    def act(self, obs: Observation) -> Action:
        """The ``Agent`` protocol: the action for ``obs`` (reads the last round only)."""
        if not obs.history:
            return _ACTION[self.first_action()]
        last = obs.history[-1]
        return _ACTION[self.next_action(last.own_action, last.opponent_action, last.own_payoff)]

    def __repr__(self) -> str:
        return self.name


_C: Final = "C"
_D: Final = "D"
_ACTION: Final[dict[str, Action]] = {"C": C, "D": D}


class AllC(Policy):
    """Always cooperates."""

    name = "ALLC"
    history_needed = 0

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        return _C


class AllD(Policy):
    """Always defects."""

    name = "ALLD"
    history_needed = 0

    def first_action(self) -> str:
        return _D

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        return _D


class TitForTat(Policy):
    """Cooperates first, then copies the opponent's previous action (Rapoport; Axelrod 1980)."""

    name = "TFT"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 1, "stochastic": False}

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        return _D if opponent == _D else _C


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

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        if self._triggered or opponent == _D:
            self._triggered = True
            return _D
        return _C


def default_generous_prob(payoffs: PayoffView) -> float:
    """Nowak and Sigmund's forgiveness: min(1 - (T-R)/(R-S), (R-P)/(T-P)); 1/3 for 3/0/5/1."""
    R, S, T, P = payoffs.R, payoffs.S, payoffs.T, payoffs.P
    if R <= S or T <= P:
        return 0.0  # not a PD: no forgiveness is defined, so none is given
    return min(max(min(1 - (T - R) / (R - S), (R - P) / (T - P)), 0.0), 1.0)


class GenerousTitForTat(Policy):
    """Tit-for-tat that forgives a defection with probability ``generous_prob`` (Nowak and
    Sigmund 1992): cooperates first; after a C, plays C; after a D, plays C with probability
    ``generous_prob``, else D. The forgiveness draws come from the seed given to ``reset``;
    a draw is made only after a defection, and none when ``generous_prob`` is 0 or 1.
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

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        if opponent != _D:
            return _C
        prob = self.generous_prob
        if prob <= 0:
            return _D
        if prob >= 1:
            return _C
        return _C if self._rng.random() < prob else _D


class WinStayLoseShift(Policy):
    """Win-stay lose-shift (Pavlov; Nowak and Sigmund 1993): cooperates first; then repeats
    its last action if its last payoff was >= ``win_threshold`` (default R), else switches.
    """

    name = "WSLS"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 1, "stochastic": False}

    def __init__(self, *, win_threshold: float) -> None:
        self.win_threshold = win_threshold

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        if own_payoff >= self.win_threshold:
            return _C if own == _C else _D
        return _D if own == _C else _C


class RandomCooperator(Policy):
    """URND(alpha): cooperates with probability ``coop_prob`` in every round, whatever was
    played (the random opponent of Fontana et al., "Nicer than humans", ICWSM 2025). The
    draws come from the seed given to ``reset``, one per round."""

    name = "URND"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 0, "stochastic": True}
    history_needed = 0

    def __init__(self, *, coop_prob: float) -> None:
        if not 0 <= coop_prob <= 1:
            raise ValueError(f"coop_prob must be in [0, 1], got {coop_prob}")
        self.coop_prob = coop_prob
        self._rng = random.Random(0)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(0 if seed is None else seed)

    def first_action(self) -> str:
        return _C if self._rng.random() < self.coop_prob else _D

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        return self.first_action()


class Alternator(Policy):
    """Cooperates first, then plays the opposite of its own previous action: C, D, C, D, ...
    (Axelrod's Alternator; Akata et al.'s alternating opponent)."""

    name = "ALT"
    classifier: ClassVar[dict[str, object]] = {"memory_depth": 1, "stochastic": False}

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        return _C if own == _D else _D


class DefectOnce(Policy):
    """Defects in round 1, then cooperates forever (Akata et al.'s defect-once opponent)."""

    name = "DEFECT_ONCE"
    history_needed = 0

    def first_action(self) -> str:
        return _D

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        return _C


DEFAULT_COOP_PROB = 0.5
"""URND's cooperation probability when none is given (a mock playing URND)."""

POLICIES: dict[str, type[Policy]] = {
    cls.name: cls
    for cls in (
        AllC,
        AllD,
        TitForTat,
        Grim,
        GenerousTitForTat,
        WinStayLoseShift,
        RandomCooperator,
        Alternator,
        DefectOnce,
    )
}
"""Config name -> policy class."""


def make_policy(
    name: str,
    *,
    payoffs: PayoffView,
    generous_prob: float | None = None,
    win_threshold: float | None = None,
    coop_prob: float | None = None,
) -> Policy:
    """A fresh policy by config name; parameters default from the player's own payoffs.
    (Ashlock's probe, which needs its point, is built by :mod:`pdbench.pd.agents.probe`.)"""
    if name not in POLICIES:
        raise ValueError(unknown("policy", name, POLICIES))
    if name == "GTFT":
        prob = default_generous_prob(payoffs) if generous_prob is None else generous_prob
        return GenerousTitForTat(generous_prob=prob)
    if name == "WSLS":
        return WinStayLoseShift(win_threshold=payoffs.R if win_threshold is None else win_threshold)
    if name == "URND":
        return RandomCooperator(coop_prob=DEFAULT_COOP_PROB if coop_prob is None else coop_prob)
    return POLICIES[name]()
