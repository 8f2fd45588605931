"""The payoff matrix: who gets what for each pair of actions, and whether it is a PD."""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.pd.actions import Action

__all__ = ["PayoffMatrix", "PayoffView"]


@dataclass(frozen=True, slots=True)
class PayoffView:
    """The matrix from one player's side, in the classic letters.

    ``R`` both cooperate, ``S`` I cooperate and am defected on, ``T`` I defect on a
    cooperator, ``P`` both defect.
    """

    R: float
    S: float
    T: float
    P: float

    def payoff(self, own: Action, opponent: Action) -> float:
        """My payoff for ``(own, opponent)``."""
        if own == "C":
            return self.R if opponent == "C" else self.S
        return self.T if opponent == "C" else self.P

    def pd_violations(self) -> list[str]:
        """The inequalities of a Prisoner's Dilemma that this side breaks (empty: a PD)."""
        broken = []
        if not self.T > self.R > self.P > self.S:
            broken.append(f"T > R > P > S ({_n(self.T)}, {_n(self.R)}, {_n(self.P)}, {_n(self.S)})")
        if not 2 * self.R > self.T + self.S:
            broken.append(f"2R > T + S ({_n(2 * self.R)} vs {_n(self.T + self.S)})")
        return broken


@dataclass(frozen=True, slots=True)
class PayoffMatrix:
    """Payoffs ``(a, b)`` for agent A's and agent B's actions; may be asymmetric."""

    cc: tuple[float, float]
    cd: tuple[float, float]
    """A cooperates, B defects."""
    dc: tuple[float, float]
    """A defects, B cooperates."""
    dd: tuple[float, float]

    def score(self, a: Action, b: Action) -> tuple[float, float]:
        """``(payoff of A, payoff of B)`` for A playing ``a`` and B playing ``b``."""
        if a == "C":
            return self.cc if b == "C" else self.cd
        return self.dc if b == "C" else self.dd

    def table(self) -> dict[tuple[str, str], tuple[float, float]]:
        """A lookup ``{("C", "D"): (0, 5), ...}`` for the hot loop."""
        return {("C", "C"): self.cc, ("C", "D"): self.cd, ("D", "C"): self.dc, ("D", "D"): self.dd}

    def view(self, side: str) -> PayoffView:
        """The matrix from ``"agent_a"``'s or ``"agent_b"``'s side."""
        if side == "agent_a":
            return PayoffView(R=self.cc[0], S=self.cd[0], T=self.dc[0], P=self.dd[0])
        if side == "agent_b":
            return PayoffView(R=self.cc[1], S=self.dc[1], T=self.cd[1], P=self.dd[1])
        raise ValueError(f"unknown side {side!r}")

    def pd_violations(self) -> list[str]:
        """Why this is not a Prisoner's Dilemma, per side (empty: it is one)."""
        problems = []
        for side in ("agent_a", "agent_b"):
            problems += [f"{side}: {p}" for p in self.view(side).pd_violations()]
        return problems


def _n(x: float) -> str:
    return f"{x:g}"
