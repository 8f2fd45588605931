"""What the arena planner reads from a pilot run (or the config played once on the mock):
the per-question answer scores of every pair of players (:func:`score_pool`) and the design
of the scored pairwise verdicts (:func:`elo_design`)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import duckdb
import numpy as np

from pdbench.arena.power_elo import EloDesign
from pdbench.arena.power_score import centred_pair_rows
from pdbench.errors import RunDirError
from pdbench.power.sign_flip import Floats
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.storage.manifest import read_manifest

__all__ = ["elo_design", "score_pool"]

_SCORED_VERDICTS = (
    "from read_json_auto($path, format = 'newline_delimited', ignore_errors = true) "
    "where is_valid and not is_named and judge not in (first_player, second_player)"
)
"""The verdicts Bradley-Terry counts (``is_scored`` of ``int_arena_pairwise_outcomes``):
valid, blind, by a judge who wrote neither answer."""


def _check_arena(run_dir: Path) -> None:
    manifest = read_manifest(run_dir)
    if manifest.game != "arena":
        raise RunDirError(f"{run_dir}: --pilot reads an arena run here; this is {manifest.game}")


def score_pool(run_dir: Path) -> tuple[Floats, float]:
    """The centred per-question scores of every pair of players of an aggregated arena run
    (:func:`pdbench.arena.power_score.centred_pair_rows`), and the mean common questions of
    a pair."""
    _check_arena(run_dir)
    scores_path = run_dir / "answer_scores.parquet"
    if not scores_path.is_file():
        raise RunDirError(f"{run_dir}: no answer_scores.parquet; aggregate it (pdbench aggregate)")
    with duckdb.connect() as con:
        rows = con.execute(
            "select question_id, answerer, score from read_parquet($path) "
            "where is_scored and score is not null",
            {"path": duckdb_path(scores_path)},
        ).fetchall()
    found = centred_pair_rows([(str(q), str(p), float(s)) for q, p, s in rows])
    if found is None:
        raise RunDirError(f"{run_dir}: no two players answered two questions in common")
    return found


def elo_design(run_dir: Path, *, effect: float) -> tuple[EloDesign, int]:
    """The design of an aggregated pairwise arena run's scored verdicts (blind, valid, by a
    judge who wrote neither answer; ``int_arena_pairwise_outcomes``' ``is_scored``): the
    verdicts per pair of players and question, the tie and strong shares, the strong weight,
    bootstrap replicates and baseline of its ``bradley_terry.parquet``, and the pair studied
    (the pair with the most verdicts, first in name order); with the questions holding
    scored verdicts."""
    _check_arena(run_dir)
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
            f" count(distinct question_id) {_SCORED_VERDICTS} group by all",
            {"path": duckdb_path(judgments)},
        ).fetchall()
        questions = con.execute(
            f"select count(distinct question_id) {_SCORED_VERDICTS}",
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
