"""``pdbench power`` for an arena config: the questions per player that separate two players
whose scores (the leaderboard's 0-10 answer score, ``--metric score``) lie a given number of
points apart, or whose Bradley-Terry strengths lie a given number of Elo points apart
(``--metric elo``, a pairwise arena: :mod:`pdbench.arena.power_elo`).

- The pool: the per-question answer scores (``answer_scores.parquet``, scored answers) of a
  pilot run (``--pilot``), or of the config played once on the mock (its planted abilities)
  into a temporary run directory; a config with a paid provider needs a pilot.
- Two players answer the same kept questions, so their scores differ by the mean of their
  per-question differences. Every pair of players gives its differences over the questions
  both answered, centred on the pair's mean; the pool stacks them (the spread of a paired
  difference between two players of this tournament). The effect is planted on the centred
  differences, and a simulated pair of players is separated when the paired sign-flip test
  over their common questions gives p <= alpha in the planted direction (one pair: no
  Benjamini-Hochberg). The leaderboard's own bootstrap intervals are not simulated: two
  non-overlapping intervals ask more than this test.
- Questions per player: a pair's common questions per question each player writes, as the
  pool has it (kept share and authors included), converts the questions needed into
  ``questions_per_player``; the cost is ``run --dry-run``'s estimate at that value.
- Elo: the design of the pool's scored verdicts (verdicts per pair and question, tie and
  strong shares; :func:`elo_design`), strengths planted D apart on two of its players, and
  the marts' own criterion, disjoint 95% Elo intervals of ``bradley_terry.parquet``.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import duckdb
import numpy as np

from pdbench.arena.config import ArenaConfig
from pdbench.arena.plan import estimate_arena
from pdbench.arena.power_elo import EloDesign, EloSearch
from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError, RunDirError
from pdbench.power.simulate import (
    PairedTest,
    PowerPoint,
    PowerSearch,
    Study,
    normal_approximation,
)
from pdbench.power.text import DEFAULT_SIMULATIONS, PowerRequest, point_text, result_lines
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.storage.manifest import read_manifest

__all__ = [
    "ELO_SIMULATIONS",
    "arena_power_lines",
    "centred_pair_differences",
    "elo_design",
    "paired_question_differences",
]

ELO_SIMULATIONS = 400
"""Simulated tournaments per size of the Elo plan without ``--simulations`` (each refits
Bradley-Terry on every bootstrap replicate)."""


def paired_question_differences(run_dir: Path) -> tuple[np.ndarray, float]:
    """The centred per-question score differences of every pair of players of an aggregated
    arena run, stacked, and the mean common questions of a pair."""
    manifest = read_manifest(run_dir)
    if manifest.game != "arena":
        raise RunDirError(f"{run_dir}: --pilot reads an arena run here; this is {manifest.game}")
    scores_path = run_dir / "answer_scores.parquet"
    if not scores_path.is_file():
        raise RunDirError(f"{run_dir}: no answer_scores.parquet; aggregate it (pdbench aggregate)")
    with duckdb.connect() as con:
        rows = con.execute(
            "select question_id, answerer, score from read_parquet($path) "
            "where is_scored and score is not null",
            {"path": duckdb_path(scores_path)},
        ).fetchall()
    by_player: dict[str, dict[str, float]] = defaultdict(dict)
    for question, player, score in rows:
        by_player[str(player)][str(question)] = float(score)
    found = centred_pair_differences(by_player)
    if found is None:
        raise RunDirError(f"{run_dir}: no two players answered two questions in common")
    return found


def centred_pair_differences(
    by_player: dict[str, dict[str, float]],
) -> tuple[np.ndarray, float] | None:
    """Every pair of players' score differences (first minus second, players in name order)
    over the questions both answered, each pair centred on its mean, stacked; and the mean
    common questions of a pair. None when no pair shares two questions."""
    players = sorted(by_player)
    stacked, common_counts = [], []
    for i, first in enumerate(players):
        for second in players[i + 1 :]:
            common = sorted(set(by_player[first]) & set(by_player[second]))
            if len(common) < 2:
                continue
            d = np.array([by_player[first][q] - by_player[second][q] for q in common])
            stacked.append(d - d.mean())
            common_counts.append(len(common))
    if not stacked:
        return None
    return np.concatenate(stacked), float(np.mean(common_counts))


@contextlib.contextmanager
def _pool_run(
    loaded: LoadedConfig, pilot: Path | None, on_line: Callable[[str], None]
) -> Iterator[tuple[Path, str]]:
    """The run the plan draws from, and its words: the pilot, or the config played once on
    the mock into a temporary run directory and aggregated."""
    if pilot is not None:
        yield pilot, f"the pilot run {pilot}"
        return
    from pdbench.aggregate import aggregate_run
    from pdbench.arena.runner import run_arena

    config: ArenaConfig = loaded.config
    paid = [p.name for p in config.players if p.provider != "mock"]
    if paid:
        raise ConfigError(
            f"players on a paid provider ({', '.join(paid)}); the planner plays only the mock: "
            "give a pilot run of this config (--pilot RUN_DIR)",
            path=loaded.path,
        )
    with tempfile.TemporaryDirectory(prefix="pdbench-power-") as folder:
        run_dir = Path(folder) / config.run_id
        on_line("playing the tournament once on the mock (its planted abilities)...")
        run_arena(loaded, output_dir=run_dir, overwrite=False, resume=False, use_cache=False)
        aggregate_run(run_dir)
        yield run_dir, "the config played once on the mock"


def arena_power_lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    *,
    pilot: Path | None,
    on_line: Callable[[str], None],
) -> list[str]:
    """What ``pdbench power`` prints for an arena config."""
    metric = _check_request(loaded, request)
    with _pool_run(loaded, pilot, on_line) as (run_dir, source):
        if metric == "elo":
            return _elo_lines(loaded, request, run_dir=run_dir, source=source, on_line=on_line)
        return _score_lines(loaded, request, run_dir=run_dir, source=source, on_line=on_line)


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
    if metric == "elo" and request.alpha != 0.05:
        raise ConfigError(
            "the Elo plan uses the run's 95% intervals (bradley_terry.parquet), which no "
            f"level changes; leave --alpha at 0.05 (got {request.alpha:g})",
            path=loaded.path,
            field="--alpha",
        )
    return metric


def _score_lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    *,
    run_dir: Path,
    source: str,
    on_line: Callable[[str], None],
) -> list[str]:
    config: ArenaConfig = loaded.config
    differences, common = paired_question_differences(run_dir)
    per_question_each = common / config.questions_per_player
    study = Study(
        tests=[PairedTest("two players", differences, planted=True)],
        effect=request.effect,
        alpha=request.alpha,
        n_tests=1,
        bootstrap_n=config.bootstrap.n,
        simulations=request.simulations or DEFAULT_SIMULATIONS,
        seed=config.seed,
    )
    sd = float(np.std(differences, ddof=1))
    approximation = normal_approximation(
        sd=sd, effect=request.effect, alpha=request.alpha, power=request.power
    )

    def progress(point: PowerPoint) -> None:
        on_line(f"simulated {point_text(point, unit='common question')}")

    search = PowerSearch(study, on_point=progress)
    needed = search.smallest(request.power, start=approximation)
    lines = [
        f"power to separate two players {request.effect:.2f} points apart (answer score, 0-10), "
        "planted on the centred per-question differences of every pair of players",
        f"analysis: the paired sign-flip test over the questions both answer, found when p <= "
        f"{request.alpha:g} in the planted direction; not the leaderboard's own rule (disjoint "
        "95% score intervals), which needs more questions (docs/planning.md)",
        f"variation: {source}; SD of a per-question difference {sd:.2f} points; "
        f"{common:.1f} common questions per pair at {config.questions_per_player} questions "
        "per player",
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


def elo_design(run_dir: Path, *, effect: float) -> tuple[EloDesign, int]:
    """The design of an aggregated pairwise arena run's scored verdicts (blind, valid, by a
    judge who wrote neither answer; ``int_arena_pairwise_outcomes``' ``is_scored``): the
    verdicts per pair of players and question, the tie and strong shares, the strong weight,
    bootstrap replicates and baseline of its ``bradley_terry.parquet``, and the pair studied
    (the pair with the most verdicts, first in name order); with the questions holding
    scored verdicts."""
    manifest = read_manifest(run_dir)
    if manifest.game != "arena":
        raise RunDirError(f"{run_dir}: --pilot reads an arena run here; this is {manifest.game}")
    judgments = run_dir / "pairwise_judgments.jsonl"
    ratings = run_dir / "bradley_terry.parquet"
    if not judgments.is_file() or not ratings.is_file():
        raise RunDirError(
            f"{run_dir}: no pairwise verdicts with bradley_terry.parquet; a pairwise run "
            "(judging: pairwise or both), aggregated (pdbench aggregate)"
        )
    with duckdb.connect() as con:
        rows = con.execute(
            "select least(first_player, second_player), greatest(first_player, second_player),"
            " count(*), count(*) filter (where verdict = 'A=B'),"
            " count(*) filter (where verdict in ('A>>B', 'B>>A')),"
            " count(distinct question_id) "
            "from read_json_auto($path, format = 'newline_delimited', ignore_errors = true) "
            "where is_valid and not is_named and judge not in (first_player, second_player) "
            "group by all",
            {"path": duckdb_path(judgments)},
        ).fetchall()
        questions = con.execute(
            "select count(distinct question_id) from read_json_auto($path, "
            "format = 'newline_delimited', ignore_errors = true) where is_valid and not "
            "is_named and judge not in (first_player, second_player)",
            {"path": duckdb_path(judgments)},
        ).fetchone()
        weight, baseline, bootstrap_n = con.execute(
            "select any_value(strong_weight), any_value(baseline), any_value(bootstrap_n) "
            "from read_parquet($path)",
            {"path": duckdb_path(ratings)},
        ).fetchone() or (3, None, 1000)
    n_questions = int(questions[0]) if questions else 0
    if n_questions < 2 or not rows:
        raise RunDirError(f"{run_dir}: fewer than two questions hold scored pairwise verdicts")
    players = tuple(sorted({str(row[0]) for row in rows} | {str(row[1]) for row in rows}))
    counts = {(str(a), str(b)): int(n) for a, b, n, *_ in rows}
    per_pair = [counts.get(pair, 0) / n_questions for pair in combinations(players, 2)]
    total = sum(int(row[2]) for row in rows)
    ties = sum(int(row[3]) for row in rows)
    strong = sum(int(row[4]) for row in rows)
    upper, lower = list(combinations(range(len(players)), 2))[int(np.argmax(per_pair))]
    design = EloDesign(
        players=players,
        verdicts_per_pair=tuple(per_pair),
        effect=effect,
        upper=upper,
        lower=lower,
        tie_share=ties / total,
        strong_share=strong / (total - ties) if total > ties else 0.0,
        strong_weight=float(weight or 3),
        bootstrap_n=int(bootstrap_n or 1000),
        anchor=players.index(baseline) if baseline in players else None,
    )
    return design, n_questions


def _elo_lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    *,
    run_dir: Path,
    source: str,
    on_line: Callable[[str], None],
) -> list[str]:
    config: ArenaConfig = loaded.config
    design, n_questions = elo_design(run_dir, effect=request.effect)
    per_question_each = n_questions / config.questions_per_player

    def progress(point: PowerPoint) -> None:
        on_line(f"simulated {point_text(point, unit='question')}")

    search = EloSearch(
        design,
        simulations=request.simulations or ELO_SIMULATIONS,
        seed=config.seed,
        on_point=progress,
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
        "questions); found when the two intervals do not overlap, the planted upper above",
        f"design: {source}; {verdicts:.1f} scored verdicts per question "
        f"({max(design.verdicts_per_pair):.1f} per pair); ties {100 * design.tie_share:.1f}%, "
        f"strong {100 * design.strong_share:.1f}% of the others; {n_questions} questions at "
        f"{config.questions_per_player} questions per player",
        *result_lines(search, request=request, needed=needed, unit="question", approximation=None),
    ]
    if needed is None:
        return lines
    return lines + _sized_lines(
        loaded, needed / per_question_each, f"{per_question_each:.2f} questions judged"
    )
