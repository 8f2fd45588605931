"""What the arena's two plans share (:mod:`pdbench.arena.power_elo`,
:mod:`pdbench.arena.power_score`): the marts' stretch of a bootstrap interval over questions,
bootstrap draws of many simulated tournaments at once, and the search for the fewest
questions whose simulated tournaments tell two players apart.

A plan is a :class:`Design`: given a number of questions, it plays that many simulated
tournaments and says in how many the run's own intervals tell the two players apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

import numpy as np

from pdbench.power.simulate import PowerPoint, curve_sizes, smallest_size
from pdbench.rng import derive_seed

__all__ = [
    "MAX_QUESTIONS",
    "MIN_QUESTIONS",
    "Design",
    "QuestionSearch",
    "arm_factor",
    "bootstrap_counts",
    "t_quantile_975",
]

MAX_QUESTIONS = 2_000
"""The most questions the arena planner simulates; past it, it says so."""
MIN_QUESTIONS = 3
"""The fewest questions simulated (an interval needs 2)."""
_CELLS = 3_000_000
"""Bootstrap draws held at once (simulations x replicates x questions)."""
_T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_quantile_975(df: int) -> float:
    """Student's t(0.975, df), as the DuckDB macro ``t_quantile_975``: the table to df 30,
    then the Cornish-Fisher expansion around z(0.975)."""
    if df < 1:
        raise ValueError("df must be at least 1")
    if df <= 30:
        return _T_975[df - 1]
    return (
        1.959963984540054
        + 2.372271230298562 / df
        + 2.8224986157396112 / df**2
        + 2.555849679507722 / df**3
        + 1.5895340533938225 / df**4
    )


def arm_factor(questions: int) -> float:
    """How far each arm of the marts' bootstrap interval over ``questions`` is stretched
    (``arena_interval_arm_factor``): sqrt(n / (n - 1)) t(0.975, n - 1) / 1.959964."""
    n = questions
    return round(math.sqrt(n / (n - 1)) * t_quantile_975(n - 1) / 1.959964, 9)


def bootstrap_counts(
    tournaments: int, replicates: int, questions: int, rng: np.random.Generator
) -> np.ndarray:
    """How often each question is drawn: (tournaments x replicates x questions), each
    replicate ``questions`` draws with replacement."""
    draws = rng.integers(0, questions, size=(tournaments * replicates, questions))
    rows = np.arange(tournaments * replicates)[:, None] * questions
    counts = np.bincount((rows + draws).ravel(), minlength=tournaments * replicates * questions)
    return counts.reshape(tournaments, replicates, questions)


class Design(Protocol):
    """A simulated tournament and the run's rule for telling two players apart."""

    @property
    def bootstrap_n(self) -> int: ...

    def found(self, questions: int, tournaments: int, rng: np.random.Generator) -> int:
        """Of ``tournaments`` simulated tournaments of ``questions``, how many the run's
        intervals tell the two players apart in."""
        ...


class QuestionSearch:
    """Simulated power of a :class:`Design` by questions, each size simulated once (its own
    stream of the seed, so a size gives the same power whenever it is asked)."""

    maximum = MAX_QUESTIONS

    def __init__(
        self,
        design: Design,
        *,
        simulations: int,
        seed: int,
        on_point: Callable[[PowerPoint], None] | None = None,
    ) -> None:
        self.design = design
        self.simulations = simulations
        self.seed = seed
        self.on_point = on_point
        self.points: dict[int, PowerPoint] = {}

    def power(self, questions: int) -> PowerPoint:
        """The share of simulated tournaments of ``questions`` that tell the two apart, and
        its binomial standard error."""
        found = self.points.get(questions)
        if found is not None:
            return found
        rng = np.random.default_rng(derive_seed(self.seed, "power", "arena", questions))
        chunk = max(1, _CELLS // (self.design.bootstrap_n * questions))
        hits = 0
        for start in range(0, self.simulations, chunk):
            hits += self.design.found(questions, min(chunk, self.simulations - start), rng)
        share = hits / self.simulations
        point = PowerPoint(questions, share, math.sqrt(share * (1 - share) / self.simulations))
        self.points[questions] = point
        if self.on_point is not None:
            self.on_point(point)
        return point

    def smallest(self, target: float, *, start: int) -> int | None:
        """The fewest questions whose simulated power reaches ``target``."""
        return smallest_size(
            self.power, target, start=start, minimum=MIN_QUESTIONS, maximum=MAX_QUESTIONS
        )

    def curve(self, needed: int) -> list[PowerPoint]:
        """The power around ``needed``."""
        return [
            self.power(n) for n in curve_sizes(needed, minimum=MIN_QUESTIONS, maximum=MAX_QUESTIONS)
        ]
