"""Pairwise verdicts as run directories, and an independent Bradley-Terry fit to check the
SQL against.

:func:`write_pairwise_run` writes the fewest files the arena's pairwise models read (a
manifest, an empty ``calls.jsonl`` and ``pairwise_judgments.jsonl``). :func:`newton_fit`
fits Bradley-Terry by Newton's method on the log-likelihood with numpy: another algorithm
than the SQL's MM steps, sharing only the counting rule (a tie is half a win to each side,
a strong verdict counts ``strong_weight`` times).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from pdbench.arena.records import ArenaFiles, PairwiseJudgmentRecord
from pdbench.storage.schema import RunFiles, RunManifest

STAMP = "2026-01-01T00:00:00Z"
FIRST_SCORE = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}
STYLE_TEST_PARENTS = " +stg_arena_audience_votes +stg_arena_judgments"
"""Models to add to a ``dbt build`` of a Bradley-Terry mart with its data tests: the mart
reads the answers' texts (its style control), and dbt then also runs the data tests that
join the answers to these two, which fail when they (and their parents) were not built."""


def scoring(*, bootstrap_n: int = 200, seed: int = 11, baseline: str | None = None) -> dict:
    """A manifest's ``scoring`` with the pairwise settings (the rest as the defaults)."""
    return {
        "normalization": "shift",
        "question_filter": {"kind": "none", "fraction": 0.0, "min_score": 0.0},
        "bootstrap": {"n": bootstrap_n, "seed": seed},
        "anomaly": {"permutations": 10, "seed": 13, "fdr": 0.1, "min_effect": 0.0},
        "min_judgments": 1,
        "identity_leaks": "flag",
        "rationales": None,
        "pairwise": {"strong_weight": 3, "baseline": baseline},
    }


def verdict(
    *,
    question_id: str,
    judge: str,
    first: str,
    second: str,
    choice: str | None,
    order_index: int = 0,
    is_named: bool = False,
    run_id: str = "pairwise",
) -> PairwiseJudgmentRecord:
    """One verdict line, its pair id made of the question and the two players."""
    low, high = sorted((first, second))
    return PairwiseJudgmentRecord(
        run_id=run_id,
        attempts=1,
        prompt_sha256="p",
        pair_id=f"{question_id}/{low}/{high}",
        question_id=question_id,
        judge=judge,
        first_player=first,
        second_player=second,
        first_answer_id=None,
        second_answer_id=None,
        order_index=order_index,
        is_named=is_named,
        verdict=choice,
        is_valid=choice is not None,
        raw_reply=choice or "no verdict",
    )


def write_pairwise_run(
    run_dir: Path, verdicts: Iterable[PairwiseJudgmentRecord], scoring_settings: dict
) -> Path:
    """A run directory holding ``verdicts`` and a manifest with ``scoring_settings``."""
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = RunManifest(
        run_id="pairwise",
        game="arena",
        status="completed",
        seed=5,
        config_path="configs/arena.yaml",
        config_sha256="0" * 64,
        config={"game": "arena"},
        scoring=scoring_settings,
        python="3.12",
        platform="test",
        started_at=STAMP,
    )
    (run_dir / RunFiles.MANIFEST).write_text(manifest.model_dump_json(indent=2))
    (run_dir / RunFiles.CALLS).write_text("")
    with (run_dir / ArenaFiles.PAIRWISE_JUDGMENTS).open("w", encoding="utf-8") as handle:
        for record in verdicts:
            handle.write(record.model_dump_json() + "\n")
    return run_dir


def planted_verdicts(
    strengths: dict[str, float], *, n_questions: int, seed: int, tie_rate: float = 0.1
) -> list[PairwiseJudgmentRecord]:
    """Every pair of players on every question, judged by a third player as Bradley-Terry
    with ``strengths`` says (ln-strengths), with ties at ``tie_rate``."""
    rng = random.Random(seed)
    players = sorted(strengths)
    records = []
    for index in range(n_questions):
        question_id = f"q{index:03d}"
        for i, first in enumerate(players):
            for second in players[i + 1 :]:
                judge = rng.choice([p for p in players if p not in (first, second)])
                if rng.random() < 0.5:
                    first, second = second, first
                p_first = 1 / (1 + math.exp(strengths[second] - strengths[first]))
                if rng.random() < tie_rate:
                    choice = "A=B"
                elif rng.random() < p_first:
                    choice = "A>>B" if rng.random() < 0.1 else "A>B"
                else:
                    choice = "B>>A" if rng.random() < 0.1 else "B>A"
                records.append(
                    verdict(
                        question_id=question_id,
                        judge=judge,
                        first=first,
                        second=second,
                        choice=choice,
                    )
                )
    return records


def newton_fit(
    battles: Iterable[tuple[str, str, str]], *, strong_weight: int = 3
) -> dict[str, float]:
    """Bradley-Terry ln-strengths with mean 0 by Newton's method, from (first, second,
    verdict) triples: the maximum of sum w * (s ln sigma(t_a - t_b) + (1 - s) ln sigma(t_b -
    t_a)) with s = 1, 0.5 or 0 and w = strong_weight for a strong verdict."""
    battles = list(battles)
    players = sorted({a for a, _, _ in battles} | {b for _, b, _ in battles})
    index = {p: i for i, p in enumerate(players)}
    first = np.array([index[a] for a, _, _ in battles])
    second = np.array([index[b] for _, b, _ in battles])
    score = np.array([FIRST_SCORE[v] for _, _, v in battles])
    weight = np.array([strong_weight if ">>" in v else 1 for _, _, v in battles], dtype=float)
    theta = np.zeros(len(players))
    for _ in range(100):
        p = 1 / (1 + np.exp(theta[second] - theta[first]))
        residual = weight * (score - p)
        gradient = np.bincount(first, residual, len(players)) - np.bincount(
            second, residual, len(players)
        )
        curvature = weight * p * (1 - p)
        hessian = np.zeros((len(players), len(players)))
        np.add.at(hessian, (first, first), curvature)
        np.add.at(hessian, (second, second), curvature)
        np.add.at(hessian, (first, second), -curvature)
        np.add.at(hessian, (second, first), -curvature)
        step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        theta = theta + step
        theta -= theta.mean()
        if np.abs(step).max() < 1e-13:
            break
    return dict(zip(players, theta.tolist(), strict=True))


def p_beats(strengths: dict[str, float], player: str, opponent: str) -> float:
    """The planted probability that ``player``'s answer is preferred to ``opponent``'s."""
    return 1 / (1 + math.exp(strengths[opponent] - strengths[player]))


def biased_verdicts(
    strengths: dict[str, float],
    *,
    judges: dict[str, dict[str, float | str]],
    n_questions: int,
    seed: int,
) -> list[PairwiseJudgmentRecord]:
    """Every pair of players on every question, asked of every judge in both orders.

    A judge's traits (all optional): ``first`` (with that probability it prefers the answer
    shown first, whatever the answers), ``self`` (with that probability it prefers its own
    answer; a judge without it never judges a pair holding its own answer), ``favours`` and
    ``named`` (it is shown the authors' names on a ``named`` share of its pairs, and then
    prefers the favoured author's answer with probability ``favour``). Otherwise it prefers an
    answer as Bradley-Terry with ``strengths`` says."""
    rng = random.Random(seed)
    players = sorted(strengths)
    records = []
    for index in range(n_questions):
        question_id = f"q{index:03d}"
        for i, low in enumerate(players):
            for high in players[i + 1 :]:
                for judge, traits in judges.items():
                    own = judge in (low, high)
                    if own and "self" not in traits:
                        continue
                    is_named = rng.random() < float(traits.get("named", 0.0))
                    for order_index, (first, second) in enumerate(((low, high), (high, low))):
                        first_wins = _biased_choice(
                            rng, strengths, judge, traits, first, second, is_named=is_named
                        )
                        records.append(
                            verdict(
                                question_id=question_id,
                                judge=judge,
                                first=first,
                                second=second,
                                choice="A>B" if first_wins else "B>A",
                                order_index=order_index,
                                is_named=is_named,
                            )
                        )
    return records


def _biased_choice(
    rng: random.Random,
    strengths: dict[str, float],
    judge: str,
    traits: dict[str, float | str],
    first: str,
    second: str,
    *,
    is_named: bool,
) -> bool:
    """Whether the judge prefers the answer shown first."""
    if judge in (first, second) and rng.random() < float(traits.get("self", 0.0)):
        return first == judge
    favoured = traits.get("favours")
    if is_named and favoured in (first, second) and rng.random() < float(traits["favour"]):
        return first == favoured
    if rng.random() < float(traits.get("first", 0.0)):
        return True
    return rng.random() < p_beats(strengths, first, second)
