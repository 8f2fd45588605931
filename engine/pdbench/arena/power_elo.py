"""The simulated power of a pairwise arena to tell two players D Elo points apart, with the
analysis ``bradley_terry.parquet`` makes of the finished run.

A simulated tournament of n questions plants Bradley-Terry strengths on the field of the
config's players: the two players studied (:attr:`EloDesign.upper`, :attr:`EloDesign.lower`)
D Elo apart around 1000, every other player at 1000. On each question every pair of players
gets its scored verdicts (as many per question as the pool had: judges who wrote neither
answer, both orders), each a tie with the pool's tie share, else a win of the first with
probability 1 / (1 + 10^((elo_second - elo_first) / 400)), strong (counting ``strong_weight``
verdicts, as the marts count A>>B) with the pool's strong share. Then the marts' analysis:
Bradley-Terry fitted to the weighted wins (a tie half a win to each side), Elo on the marts'
scale (1000 + 400 log10 of the strength over the baseline's, or over the geometric mean),
``bootstrap_n`` replicates over questions, each refitted, and the 95% interval of each Elo
the marts give (``arena_bradley_terry``): the basic interval with each arm stretched by
sqrt(n / (n - 1)) t(0.975, n - 1) / 1.959964. The run tells the two apart when their
intervals do not overlap: the upper player's low end above the lower player's high end.

The fit is Newton's method on the log-likelihood (the marts' fit is MM steps; both find the
maximum). A player who won or lost every verdict has no finite strength; here its ln-strength
stops at -+ :data:`LN_STRENGTH_LIMIT` (the marts floor a strength at 1e-12, and give such a
player a one-sided bound rather than an interval; their MM fit stops after its steps). A
bootstrap replicate in which the upper player wins every verdict puts its Elo far up, and the
reflected interval's low end as far down: where nearly every verdict goes one way (a gap of
several hundred Elo over a few questions) the planner and the marts both find the two apart
less often than the gap would suggest, and by how much depends on where each fit stops.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from pdbench.arena.power_bootstrap import arm_factor, bootstrap_counts
from pdbench.power.sign_flip import Floats

__all__ = ["LN_STRENGTH_LIMIT", "EloDesign", "fit_elo", "interval_separated"]

LN_STRENGTH_LIMIT = 27.6
"""ln(1e12): how far a ln-strength may run from the field's centre (the marts' floor)."""
ELO_PER_LN = 400 / math.log(10)
_NEWTON_STEPS = 25


def fit_elo(wins: Floats, games: Floats, *, n_players: int, anchor: int | None = None) -> Floats:
    """Bradley-Terry Elo of many tables at once. ``wins`` and ``games`` are (..., pairs),
    pairs in ``itertools.combinations(range(n_players), 2)`` order: the first player's
    weighted wins and the weighted verdicts. Elo 1000 + 400 log10(p / p_anchor), p_anchor
    the strength of player ``anchor``, or the geometric mean of the strengths."""
    pairs = np.array(list(combinations(range(n_players), 2)))
    first, second = pairs[:, 0], pairs[:, 1]
    shape = wins.shape[:-1]
    flat_wins = wins.reshape(-1, len(pairs))
    flat_games = games.reshape(-1, len(pairs))
    theta = np.zeros((flat_wins.shape[0], n_players))
    # one column per pair: +1 for its first player, -1 for its second
    incidence = np.zeros((len(pairs), n_players))
    incidence[np.arange(len(pairs)), first] = 1.0
    incidence[np.arange(len(pairs)), second] = -1.0
    centring = np.full((n_players, n_players), 1.0 / n_players)
    for _ in range(_NEWTON_STEPS):
        p = 1 / (1 + np.exp(theta[:, second] - theta[:, first]))
        gradient = (flat_wins - flat_games * p) @ incidence
        curvature = flat_games * p * (1 - p)
        hessian = np.einsum("mk,ki,kj->mij", curvature, incidence, incidence) + centring
        step = np.linalg.solve(hessian, gradient[..., None])[..., 0]
        theta = np.clip(theta + np.clip(step, -5, 5), -LN_STRENGTH_LIMIT, LN_STRENGTH_LIMIT)
        theta -= theta.mean(axis=1, keepdims=True)
    reference = theta.mean(axis=1, keepdims=True) if anchor is None else theta[:, [anchor]]
    elo: Floats = 1000 + ELO_PER_LN * (theta - reference)
    return elo.reshape(*shape, n_players)


def interval_separated(
    observed: Floats, replicates: Floats, *, factor: float, upper: int, lower: int
) -> np.ndarray:
    """Whether the marts' 95% Elo intervals of ``upper`` and ``lower`` do not overlap, the
    upper's above: ``observed`` (simulations x players) the fits, ``replicates``
    (simulations x bootstrap replicates x players) the bootstrap's; each interval
    [e - f (q97.5 - e), e + f (e - q2.5)]."""
    q025, q975 = np.quantile(replicates, [0.025, 0.975], axis=1)
    low = observed - factor * (q975 - observed)
    high = observed + factor * (observed - q025)
    result: np.ndarray = low[:, upper] > high[:, lower]
    return result


@dataclass(frozen=True)
class EloDesign:
    """A pairwise tournament as the planner simulates it."""

    players: tuple[str, ...]
    verdicts_per_pair: tuple[float, ...]
    """Scored verdicts per question of each pair (``combinations`` order)."""
    effect: float
    """Elo points between the two players studied."""
    upper: int
    lower: int
    tie_share: float = 0.0
    """Of the scored verdicts, the share that are ties (A=B)."""
    strong_share: float = 0.0
    """Of the other verdicts, the share that are strong (A>>B, B>>A)."""
    strong_weight: float = 3.0
    bootstrap_n: int = 1000
    anchor: int | None = None
    """The baseline player (None: the geometric mean of the strengths is 1000)."""

    @property
    def planted_elo(self) -> Floats:
        """Every player at 1000 but the two studied, at 1000 + D/2 and 1000 - D/2."""
        elo = np.full(len(self.players), 1000.0)
        elo[self.upper] += self.effect / 2
        elo[self.lower] -= self.effect / 2
        return elo

    def tournaments(
        self, questions: int, simulations: int, rng: np.random.Generator
    ) -> tuple[Floats, Floats]:
        """Per simulated tournament and question, each pair's weighted wins of its first
        player and weighted verdicts: two arrays (simulations x questions x pairs)."""
        pairs = list(combinations(range(len(self.players)), 2))
        elo = self.planted_elo
        p_first = np.array([1 / (1 + 10 ** ((elo[j] - elo[i]) / 400)) for i, j in pairs])
        per_pair = np.array(self.verdicts_per_pair)
        most = int(np.ceil(per_pair.max()))
        shape = (simulations, questions, len(pairs), most)
        slots = np.arange(most)[None, None, None, :]
        whole = np.floor(per_pair)[None, None, :, None]
        fraction = (per_pair - np.floor(per_pair))[None, None, :, None]
        present = (slots < whole) | ((slots == whole) & (rng.random((*shape[:3], 1)) < fraction))
        tie = rng.random(shape) < self.tie_share
        first_wins = rng.random(shape) < p_first[None, None, :, None]
        strong = rng.random(shape) < self.strong_share
        weight = np.where(tie | ~strong, 1.0, self.strong_weight) * present
        score = np.where(tie, 0.5, first_wins.astype(np.float64))
        return (weight * score).sum(axis=3), weight.sum(axis=3)

    def found(self, questions: int, tournaments: int, rng: np.random.Generator) -> int:
        """Of ``tournaments`` simulated tournaments of ``questions``, how many the marts'
        intervals tell the two studied players apart in."""
        wins, games = self.tournaments(questions, tournaments, rng)
        return int(self.separated(wins, games, rng).sum())

    def separated(self, wins: Floats, games: Floats, rng: np.random.Generator) -> np.ndarray:
        """For each simulated tournament (``wins``, ``games``: simulations x questions x
        pairs), whether the marts' intervals tell the two studied players apart."""
        simulations, questions, _ = wins.shape
        n = len(self.players)
        observed = fit_elo(wins.sum(axis=1), games.sum(axis=1), n_players=n, anchor=self.anchor)
        counts = bootstrap_counts(simulations, self.bootstrap_n, questions, rng)
        replicate_wins = np.einsum("sbq,sqp->sbp", counts, wins)
        replicate_games = np.einsum("sbq,sqp->sbp", counts, games)
        replicates = fit_elo(replicate_wins, replicate_games, n_players=n, anchor=self.anchor)
        return interval_separated(
            observed,
            replicates,
            factor=arm_factor(questions),
            upper=self.upper,
            lower=self.lower,
        )
