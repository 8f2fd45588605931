"""Style control recovers a planted length bias: configs/arena_style.yaml, played on the mock
and built with dbt. Five players of the same planted strength (1000) write answers of 60,
120, 180, 240 and 300 words on average; every judge adds 0.8 log-odds per 100 words of the
first answer's length over the second's (length_preference). So the planted truth is a
style-controlled Elo of 1000 for every player (the players' mean, no baseline) and a length
coefficient of 0.8 per 100 words. The plain Bradley-Terry Elo, blind to length, spreads the
players by it.

The SQL fit is also checked against an independent one: Newton's method on the same
verdicts with numpy, the words counted by ``str.split`` on the answers as written."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import numpy as np
import pytest
from pdbench.arena.runner import run_arena
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.games import load_config

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "configs" / "arena_style.yaml"
PLANTED_ELO, PLANTED_LENGTH = 1000.0, 0.8


def _rows(path: Path) -> list[dict]:
    relation = duckdb.sql(f"select * from '{path}'")
    return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("style") / "run"
    run_arena(load_config(CONFIG), output_dir=folder, use_cache=False)
    invoke_dbt(
        DbtRequest("run", run_dir=folder, select="+arena_bradley_terry +arena_pairwise_style")
    )
    return folder


@pytest.fixture(scope="module")
def ratings(run_dir: Path) -> dict[str, dict]:
    return {row["player"]: row for row in _rows(run_dir / "bradley_terry.parquet")}


@pytest.fixture(scope="module")
def style(run_dir: Path) -> dict[str, dict]:
    return {row["feature"]: row for row in _rows(run_dir / "pairwise_style.parquet")}


def _spread(rows: dict[str, dict], column: str) -> float:
    values = [row[column] for row in rows.values()]
    return max(values) - min(values)


def test_the_plain_elo_spreads_by_length_and_the_style_controlled_one_does_not(ratings):
    assert len(ratings) == 5
    plain = _spread(ratings, "elo")
    assert plain > 100
    # ordered by length: atlas (60 words) last, equinox (300 words) first
    assert sorted(ratings, key=lambda p: ratings[p]["elo"]) == [
        "atlas", "borealis", "cirrus", "dynamo", "equinox"
    ]  # fmt: skip
    assert _spread(ratings, "elo_style_controlled") < plain / 3


def test_the_style_controlled_intervals_hold_the_planted_equal_strengths(ratings):
    held = [
        row["elo_style_controlled_ci_low"] <= PLANTED_ELO <= row["elo_style_controlled_ci_high"]
        for row in ratings.values()
    ]
    assert sum(held) >= 4, ratings
    for row in ratings.values():
        assert row["rank_style_controlled_ci_low"] <= row["rank_style_controlled_ci_high"]
    # no baseline: the players' mean style-controlled Elo is the anchor, 1000
    mean = sum(row["elo_style_controlled"] for row in ratings.values()) / 5
    assert mean == pytest.approx(1000, abs=1e-6)


def test_the_length_coefficient_is_found_and_the_absent_markdown_is_not_fitted(style):
    length = style["answer_length"]
    assert length["feature_unit"] == "per 100 words"
    assert 0 < length["ci_low"] <= PLANTED_LENGTH <= length["ci_high"], length
    assert length["is_converged"] and length["style_note"] is None
    assert length["n_verdicts"] == 1800  # 30 questions x 10 pairs x 2 orders x 3 judges
    # the mock writes no markdown: no variation, no coefficient, and a note that says so
    for feature in ("headers", "list_items", "bold", "code_blocks"):
        assert style[feature]["coefficient"] is None
        assert style[feature]["style_note"].startswith("not fitted: no variation")


def _newton_fit(run_dir: Path) -> tuple[dict[str, float], float]:
    """Each player's theta (mean 0) and the length coefficient, by Newton's method on the
    verdicts of ``run_dir`` (every one scored here: no self or name arm, no ties)."""
    words = {}
    for line in (run_dir / "answers.jsonl").read_text().splitlines():
        answer = json.loads(line)
        words[answer["answer_id"]] = len((answer.get("shown_text") or answer["text"]).split())
    battles = [json.loads(line) for line in (run_dir / "pairwise_judgments.jsonl").open()]
    players = sorted({b["first_player"] for b in battles} | {b["second_player"] for b in battles})
    rows, outcomes = [], []
    for battle in battles:
        x = np.zeros(len(players))
        x[players.index(battle["first_player"])] += 1
        x[players.index(battle["second_player"])] -= 1
        length = (words[battle["first_answer_id"]] - words[battle["second_answer_id"]]) / 100
        rows.append(np.append(x[1:], length))  # the first player is the reference
        outcomes.append(1.0 if battle["verdict"].startswith("A>") else 0.0)
    design, y = np.array(rows), np.array(outcomes)
    estimate = np.zeros(design.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ estimate))
        hessian = design.T @ (design * (p * (1 - p))[:, None])
        estimate += np.linalg.solve(hessian, design.T @ (y - p))
    theta = np.append(0.0, estimate[:-1])
    return dict(zip(players, theta - theta.mean(), strict=True)), float(estimate[-1])


def test_the_sql_fit_is_the_maximum_newton_finds(run_dir, ratings, style):
    theta, length = _newton_fit(run_dir)
    assert style["answer_length"]["coefficient"] == pytest.approx(length, abs=1e-6)
    for player, value in theta.items():
        elo = 1000 + 400 / math.log(10) * value
        assert ratings[player]["elo_style_controlled"] == pytest.approx(elo, abs=1e-4)
