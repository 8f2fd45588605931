"""``pdbench power`` for an arena config: the questions per player that separate two players
whose scores (the leaderboard's 0-10 answer score) lie a given number of points apart.

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
- ``--metric elo`` is not planned yet: the planner says so.
"""

from __future__ import annotations

import math
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import duckdb
import numpy as np

from pdbench.arena.config import ArenaConfig
from pdbench.arena.plan import estimate_arena
from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError, RunDirError
from pdbench.power.simulate import (
    PairedTest,
    PowerPoint,
    PowerSearch,
    Study,
    normal_approximation,
)
from pdbench.power.text import PowerRequest, point_text, result_lines
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.storage.manifest import read_manifest

__all__ = ["arena_power_lines", "centred_pair_differences", "paired_question_differences"]


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


def _played_differences(
    loaded: LoadedConfig, on_line: Callable[[str], None]
) -> tuple[np.ndarray, float]:
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
        return paired_question_differences(run_dir)


def arena_power_lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    *,
    pilot: Path | None,
    on_line: Callable[[str], None],
) -> list[str]:
    """What ``pdbench power`` prints for an arena config."""
    config: ArenaConfig = loaded.config
    if request.metric not in (None, "score"):
        raise ConfigError(
            f"the arena planner plans the 0-10 answer score (--metric score); "
            f"{request.metric!r} is not planned",
            path=loaded.path,
            field="--metric",
        )
    if not request.effect > 0:
        raise ConfigError(
            f"the effect must be above 0 (score points of 0-10, e.g. 1); got {request.effect:g}",
            path=loaded.path,
            field="--effect",
        )
    if pilot is not None:
        differences, common = paired_question_differences(pilot)
        source = f"the pilot run {pilot}"
    else:
        differences, common = _played_differences(loaded, on_line)
        source = "the config played once on the mock"
    per_question_each = common / config.questions_per_player
    study = Study(
        tests=[PairedTest("two players", differences, planted=True)],
        effect=request.effect,
        alpha=request.alpha,
        n_tests=1,
        bootstrap_n=config.bootstrap.n,
        simulations=request.simulations,
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
        f"{request.alpha:g} in the planted direction (the leaderboard's intervals ask more)",
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
    per_player = max(1, math.ceil(needed / per_question_each - 1e-9))
    sized = replace(loaded, config=config.model_copy(update={"questions_per_player": per_player}))
    return [
        *lines,
        f"questions per player needed: {per_player} (questions_per_player; "
        f"{per_question_each:.2f} common questions per question each player writes)",
        f"cost of the tournament at {per_player} questions per player (as pdbench run "
        "--dry-run counts it):",
        *estimate_arena(sized).lines(),
    ]
