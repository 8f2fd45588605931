"""``pdbench power`` for an arena config: the questions per player that let the run tell apart
two players whose scores (the leaderboard's 0-10 answer score, ``--metric score``) lie a
given number of points apart, or whose Bradley-Terry strengths lie a given number of Elo
points apart (``--metric elo``, a pairwise arena), and what that tournament costs.

- The rule is the run's own: two players are told apart when their 95% intervals do not
  overlap, the intervals of ``leaderboard.parquet`` (score) or ``bradley_terry.parquet``
  (Elo), each a bootstrap over questions stretched for their number.
- The pool: a pilot run (``--pilot``), or the config played once on the mock (its planted
  abilities) into a temporary run directory; a config with a paid provider needs a pilot.
  Score: every pair of players' centred per-question scores (:mod:`pdbench.arena.power_score`).
  Elo: the design of the scored verdicts (:func:`pdbench.arena.power_pool.elo_design`), with
  strengths planted D apart on two players (:mod:`pdbench.arena.power_elo`).
- Questions per player: the pool's questions (common to a pair, or holding scored verdicts)
  per question each player writes convert the questions needed into
  ``questions_per_player``; the cost is ``run --dry-run``'s estimate at that value.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist

import numpy as np

from pdbench.arena.config import ArenaConfig
from pdbench.arena.plan import estimate_arena
from pdbench.arena.power_bootstrap import MIN_QUESTIONS, Design, QuestionSearch
from pdbench.arena.power_pool import elo_design, score_pool
from pdbench.arena.power_score import ScoreDesign
from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError
from pdbench.power.simulate import PowerPoint
from pdbench.power.text import PowerRequest, point_text, result_lines

__all__ = [
    "DEFAULT_POOL_QUESTIONS",
    "ELO_SIMULATIONS",
    "SCORE_SIMULATIONS",
    "arena_power_lines",
    "interval_approximation",
]

DEFAULT_POOL_QUESTIONS = 30
"""Questions per player of the tournament played once on the mock, at least, without
``--pool``: the spread of a per-question score read from one tournament of 10 questions per
player was off by enough to plan 27 common questions where one of 40 per player planned 33
(``benchmarks/bench_power_arena.py``)."""
SCORE_SIMULATIONS = 1000
"""Simulated tournaments per size of the score plan without ``--simulations``."""
ELO_SIMULATIONS = 400
"""Simulated tournaments per size of the Elo plan without ``--simulations`` (each refits
Bradley-Terry on every bootstrap replicate)."""


@dataclass(frozen=True)
class PoolRun:
    """The run a plan draws from: its directory, its words, its questions per player."""

    run_dir: Path
    source: str
    questions_per_player: int


@contextlib.contextmanager
def _pool_run(
    loaded: LoadedConfig,
    pilot: Path | None,
    on_line: Callable[[str], None],
    *,
    pool: int | None = None,
) -> Iterator[tuple[Path, str, int]]:
    """The run the plan draws from, its words and its questions per player: the pilot (at
    the config's questions per player), or the config played once on the mock, at ``pool``
    questions per player (default: the config's, at least :data:`DEFAULT_POOL_QUESTIONS`),
    into a temporary run directory and aggregated."""
    config: ArenaConfig = loaded.config
    if pilot is not None:
        yield pilot, f"the pilot run {pilot}", config.questions_per_player
        return
    from pdbench.aggregate import aggregate_run
    from pdbench.arena.runner import run_arena

    paid = [p.name for p in config.players if p.provider != "mock"]
    if paid:
        raise ConfigError(
            f"players on a paid provider ({', '.join(paid)}); the planner plays only the mock: "
            "give a pilot run of this config (--pilot RUN_DIR)",
            path=loaded.path,
        )
    with tempfile.TemporaryDirectory(prefix="pdbench-power-") as folder:
        run_dir = Path(folder) / config.run_id
        per_player = pool or max(config.questions_per_player, DEFAULT_POOL_QUESTIONS)
        played = replace(
            loaded, config=config.model_copy(update={"questions_per_player": per_player})
        )
        on_line("playing the tournament once on the mock (its planted abilities)...")
        run_arena(played, output_dir=run_dir, overwrite=False, resume=False, use_cache=False)
        aggregate_run(run_dir)
        yield run_dir, "the config played once on the mock", per_player


def arena_power_lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    *,
    pilot: Path | None,
    on_line: Callable[[str], None],
) -> list[str]:
    """What ``pdbench power`` prints for an arena config."""
    metric = _check_request(loaded, request)
    with _pool_run(loaded, pilot, on_line, pool=request.pool) as (run_dir, source, per_player):
        pool = PoolRun(run_dir, source, per_player)
        if metric == "elo":
            return _elo_lines(loaded, request, pool=pool, on_line=on_line)
        return _score_lines(loaded, request, pool=pool, on_line=on_line)


def _check_request(loaded: LoadedConfig, request: PowerRequest) -> str:
    """The metric planned (score or elo), after the checks that need no play."""
    config: ArenaConfig = loaded.config
    metric = request.metric or "score"
    if metric not in ("score", "elo"):
        raise ConfigError(
            f"the arena planner plans the 0-10 answer score (--metric score) or the "
            f"Bradley-Terry Elo (--metric elo); {metric!r} is not planned",
            path=loaded.path,
            field="--metric",
        )
    if metric == "elo" and config.judging == "absolute":
        raise ConfigError(
            "--metric elo plans the Bradley-Terry ranking of pairwise verdicts; this arena "
            "judges answers alone (judging: absolute): set judging: pairwise or both, or plan "
            "--metric score",
            path=loaded.path,
            field="--metric",
        )
    if metric == "score" and config.judging == "pairwise":
        raise ConfigError(
            "--metric score plans the leaderboard's 0-10 answer score; this arena judges pairs "
            "only (judging: pairwise): plan --metric elo, or set judging: both",
            path=loaded.path,
            field="--metric",
        )
    unit = "Elo points, e.g. 100" if metric == "elo" else "score points of 0-10, e.g. 1"
    if not request.effect > 0:
        raise ConfigError(
            f"the effect must be above 0 ({unit}); got {request.effect:g}",
            path=loaded.path,
            field="--effect",
        )
    for name, value in (("--power", request.power), ("--alpha", request.alpha)):
        if not 0 < value < 1:
            raise ConfigError(
                f"must be between 0 and 1, got {value:g}", path=loaded.path, field=name
            )
    if request.alpha != 0.05:
        mart = "bradley_terry.parquet" if metric == "elo" else "leaderboard.parquet"
        raise ConfigError(
            f"the arena plan reads the run's 95% intervals ({mart}), which no level "
            f"changes; leave --alpha at 0.05 (got {request.alpha:g})",
            path=loaded.path,
            field="--alpha",
        )
    return metric


def _score_lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    *,
    pool: PoolRun,
    on_line: Callable[[str], None],
) -> list[str]:
    config: ArenaConfig = loaded.config
    rows, common = score_pool(pool.run_dir)
    source = pool.source
    per_question_each = common / pool.questions_per_player
    design = ScoreDesign(rows=rows, effect=request.effect, bootstrap_n=config.bootstrap.n)
    sd_first, sd_second = np.std(rows, axis=0, ddof=1)
    sd_difference = float(np.std(rows[:, 0] - rows[:, 1], ddof=1))
    approximation = interval_approximation(
        sds=(float(sd_first), float(sd_second)),
        sd_difference=sd_difference,
        effect=request.effect,
        power=request.power,
    )

    search = _search(
        design, request.simulations or SCORE_SIMULATIONS, config.seed, "common question", on_line
    )
    needed = search.smallest(request.power, start=approximation)
    lines = [
        f"power to separate two players {request.effect:.2f} points apart (answer score, 0-10), "
        "planted on two players' per-question scores (every pair of the pool's players, each "
        "score less what its judges' means take, the players judging one another)",
        f"analysis: as leaderboard.parquet ({design.bootstrap_n} bootstrap replicates over "
        "questions; each 95% score interval the percentile interval stretched for the "
        "questions); found when the two intervals do not overlap, the planted upper above",
        f"variation: {source}; SD of a per-question score so taken {sd_first:.2f} points, of "
        f"the difference of two {sd_difference:.2f}; {common:.1f} common questions per pair "
        f"at {pool.questions_per_player} questions per player",
        *result_lines(
            search,
            request=request,
            needed=needed,
            unit="common question",
            approximation=approximation,
        ),
    ]
    if needed is None:
        return lines
    return lines + _sized_lines(
        loaded, needed / per_question_each, f"{per_question_each:.2f} common questions"
    )


def _search(
    design: Design, simulations: int, seed: int, unit: str, on_line: Callable[[str], None]
) -> QuestionSearch:
    """The search over questions of ``design``, each size simulated told on a line."""

    def progress(point: PowerPoint) -> None:
        on_line(f"simulated {point_text(point, unit=unit)}")

    return QuestionSearch(design, simulations=simulations, seed=seed, on_point=progress)


def interval_approximation(
    *, sds: tuple[float, float], sd_difference: float, effect: float, power: float
) -> int:
    """Questions at which two means D apart, with per-question SDs ``sds``, have disjoint 95%
    normal intervals with ``power``: the gap must exceed z(0.975) (s1 + s2) / sqrt(n), and
    the difference of the means varies by ``sd_difference`` / sqrt(n): n = ((z(0.975) (s1 +
    s2) + z(power) sd_difference) / D)^2."""
    normal = NormalDist()
    z_power = normal.inv_cdf(power)
    root = (1.959963984540054 * sum(sds) + z_power * sd_difference) / effect
    return max(MIN_QUESTIONS, math.ceil(root**2 - 1e-9))


def _sized_lines(loaded: LoadedConfig, per_player: float, ratio: str) -> list[str]:
    """``questions per player needed: N`` and the tournament's cost at N."""
    config: ArenaConfig = loaded.config
    needed = max(1, math.ceil(per_player - 1e-9))
    sized = replace(loaded, config=config.model_copy(update={"questions_per_player": needed}))
    return [
        f"questions per player needed: {needed} (questions_per_player; {ratio} per question "
        "each player writes)",
        f"cost of the tournament at {needed} questions per player (as pdbench run --dry-run "
        "counts it):",
        *estimate_arena(sized).lines(),
    ]


def _elo_lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    *,
    pool: PoolRun,
    on_line: Callable[[str], None],
) -> list[str]:
    config: ArenaConfig = loaded.config
    design, n_questions = elo_design(pool.run_dir, effect=request.effect)
    source = pool.source
    per_question_each = n_questions / pool.questions_per_player

    search = _search(
        design, request.simulations or ELO_SIMULATIONS, config.seed, "question", on_line
    )
    needed = search.smallest(request.power, start=max(4, n_questions))
    upper, lower = design.players[design.upper], design.players[design.lower]
    verdicts = sum(design.verdicts_per_pair)
    lines = [
        f"power to separate two players {request.effect:.0f} Elo points apart (Bradley-Terry, "
        f"pairwise verdicts): {upper} planted at {1000 + request.effect / 2:.0f} Elo and "
        f"{lower} at {1000 - request.effect / 2:.0f}, the other "
        f"{len(design.players) - 2} of the {len(design.players)} players at 1000",
        "analysis: as bradley_terry.parquet (Bradley-Terry fit, a tie half a win to each side, "
        f"a strong verdict {design.strong_weight:g} verdicts; {design.bootstrap_n} bootstrap "
        "replicates over questions; each 95% Elo interval reflected and stretched for the "
        "questions); found when the two intervals do not overlap, the planted upper above"
        + (
            "; the run fits Davidson's ties (tie_model: davidson), the simulation counts a tie "
            "half a win"
            if config.pairwise.tie_model == "davidson"
            else ""
        ),
        f"design: {source}; {verdicts:.1f} scored verdicts per question "
        f"({max(design.verdicts_per_pair):.1f} per pair); ties {100 * design.tie_share:.1f}%, "
        f"strong {100 * design.strong_share:.1f}% of the others; {n_questions} questions at "
        f"{pool.questions_per_player} questions per player",
        *result_lines(search, request=request, needed=needed, unit="question", approximation=None),
    ]
    if needed is None:
        return lines
    return lines + _sized_lines(
        loaded, needed / per_question_each, f"{per_question_each:.2f} questions judged"
    )
