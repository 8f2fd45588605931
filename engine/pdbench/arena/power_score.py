"""The simulated power of an arena to tell two players D score points apart (the leaderboard's
0-10 answer score), with the analysis ``leaderboard.parquet`` makes of the finished run.

The pool: per question, the answer scores of every player who answered it
(``answer_scores.parquet``), each less the part a judge's normalisation takes out. Under
``shift`` a judge's mean over the questions is subtracted from its scores, and a replicate of
the leaderboard's bootstrap takes that mean again over the questions it drew; with the
players judging one another (every answerer judges every other answer), a question's k
answers with total T put, on average over player p's k - 1 judges, c_p = ((k - 2) T + s_p) /
(k - 1)^2 into the judges' means (each judge's mean over the k - 1 answers it scores), so the
value of p's answer as the leaderboard sees it is s_p - c_p: what makes a question hard for
everyone cancels, and p's own answer weighs in its judges' means. Every pair of players gives
its rows (one per question both answered: the two values), each column centred on its own
mean; the pool stacks them. A simulated tournament of n questions draws n rows, the first
player's values raised by D/2 and the second's lowered by D/2 (a true difference of D, each
player's spread as the pool's), and runs the leaderboard's analysis: each player's score the
mean over the questions, ``bootstrap_n`` replicates over questions, and each 95% interval
the percentile interval with each arm stretched by sqrt(n / (n - 1)) t(0.975, n - 1) /
1.959964. The run tells the two apart when the intervals do not overlap, the planted upper
above.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from pdbench.arena.power_bootstrap import arm_factor, bootstrap_counts
from pdbench.power.sign_flip import Floats

__all__ = ["ScoreDesign", "centred_pair_rows", "percentile_separated"]


def centred_pair_rows(
    scores: list[tuple[str, str, float]],
) -> tuple[Floats, float] | None:
    """From (question, player, score) rows: every pair of players' rows over the questions
    both answered (the two scores, each less c_p = ((k - 2) T + s_p) / (k - 1)^2 of its
    question's k answers with total T; a question with one answer gives none),
    each column centred on its mean over the pair's questions, stacked (rows x 2); and the
    mean common questions of a pair. None when no pair shares two questions."""
    by_question: dict[str, dict[str, float]] = defaultdict(dict)
    for question, player, score in scores:
        by_question[question][player] = score
    centred: dict[str, dict[str, float]] = defaultdict(dict)
    for question, players in by_question.items():
        k, total = len(players), sum(players.values())
        if k < 2:
            continue
        for player, score in players.items():
            centred[player][question] = score - ((k - 2) * total + score) / (k - 1) ** 2
    names = sorted(centred)
    stacked, common_counts = [], []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            common = sorted(set(centred[first]) & set(centred[second]))
            if len(common) < 2:
                continue
            rows = np.array([[centred[first][q], centred[second][q]] for q in common])
            stacked.append(rows - rows.mean(axis=0))
            common_counts.append(len(common))
    if not stacked:
        return None
    return np.concatenate(stacked), float(np.mean(common_counts))


def percentile_separated(observed: Floats, replicates: Floats, *, factor: float) -> np.ndarray:
    """Whether the leaderboard's 95% intervals of the first player (column 0) and the second
    (column 1) do not overlap, the first above: ``observed`` (tournaments x 2) the scores,
    ``replicates`` (tournaments x bootstrap replicates x 2) the bootstrap's; each interval
    [s - f (s - q2.5), s + f (q97.5 - s)]."""
    q025, q975 = np.quantile(replicates, [0.025, 0.975], axis=1)
    low = observed - factor * (observed - q025)
    high = observed + factor * (q975 - observed)
    result: np.ndarray = low[:, 0] > high[:, 1]
    return result


@dataclass(frozen=True)
class ScoreDesign:
    """Two players' centred per-question scores (the pool's rows), D points apart."""

    rows: Floats
    effect: float
    bootstrap_n: int = 1000

    def found(self, questions: int, tournaments: int, rng: np.random.Generator) -> int:
        """Of ``tournaments`` simulated tournaments of ``questions``, how many the
        leaderboard's intervals tell the two players apart in."""
        drawn = self.rows[rng.integers(0, len(self.rows), size=(tournaments, questions))]
        values = drawn + np.array([self.effect / 2, -self.effect / 2])
        observed = values.mean(axis=1)
        counts = bootstrap_counts(tournaments, self.bootstrap_n, questions, rng)
        replicates = np.einsum("sbq,sqp->sbp", counts, values) / questions
        separated = percentile_separated(observed, replicates, factor=arm_factor(questions))
        return int(separated.sum())
