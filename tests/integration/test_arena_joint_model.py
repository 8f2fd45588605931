"""The joint model of absolute judging (``joint_model.parquet``) on mock tournaments with
planted truth: four players of equal skill whose answers differ in length only, judged by
judges of planted leniency. Every player's quality is the same, length earns nothing (the mock
judge scores worked steps, and padding adds none), and each judge's leniency is planted."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
import yaml
from pdbench.arena.runner import run_arena
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.games import load_config

REPO = Path(__file__).resolve().parents[2]
LENIENCY = {"ash": -1.0, "birch": 0.0, "cedar": 0.5, "dune": 1.0}
WORDS = {"ash": 60, "birch": 140, "cedar": 220, "dune": 300}


def _play(folder: Path) -> Path:
    for sub in ("agents", "prompts"):
        shutil.copytree(REPO / "configs" / sub, folder / sub)
    arena = {
        "game": "arena",
        "run_id": "joint-mock",
        "seed": 20261129,
        "dev": True,
        "questions_per_player": 10,
        "categories": ["math", "logic", "ethics", "science"],
        "question_filter": {"kind": "none"},
        "rationales": None,
        "bootstrap": {"n": 200},
        "anomaly": {"permutations": 10},
        "store_prompts": False,
        "players": [
            {
                "ref": "agents/arena_player.yaml",
                "overrides": {
                    "name": name,
                    "mock": {
                        "answer_skill": 0.7,
                        "judge_leniency": LENIENCY[name],
                        "judge_noise": 0.7,
                        "answer_words": WORDS[name],
                    },
                },
            }
            for name in LENIENCY
        ],
    }
    path = folder / "joint.yaml"
    path.write_text(yaml.safe_dump(arena, sort_keys=False), encoding="utf-8")
    run_dir = folder / "run"
    run_arena(load_config(path), output_dir=run_dir, use_cache=False)
    invoke_dbt(DbtRequest("run", run_dir=run_dir, select="+arena_joint_model +arena_leaderboard"))
    return run_dir


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _play(tmp_path_factory.mktemp("joint"))


@pytest.fixture(scope="module")
def effects(run_dir: Path) -> dict[tuple[str, str], dict]:
    relation = duckdb.sql(f"select * from '{run_dir / 'joint_model.parquet'}'")
    rows = [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]
    return {(row["effect_kind"], row["effect_name"]): row for row in rows}


def _covers(row: dict, value: float) -> bool:
    return row["joint_effect_ci_low"] <= value <= row["joint_effect_ci_high"]


def test_every_judge_leniency_is_found_against_the_mean_judge(effects):
    mean = sum(LENIENCY.values()) / len(LENIENCY)  # 0.125
    for judge, planted in LENIENCY.items():
        row = effects[("leniency", judge)]
        assert _covers(row, planted - mean), (judge, row)
    # the harshest and the most lenient judge are told apart
    assert effects[("leniency", "ash")]["joint_effect_ci_high"] < 0
    assert effects[("leniency", "dune")]["joint_effect_ci_low"] > 0


def test_equal_players_stay_equal_whatever_the_length_of_their_answers(effects):
    covered = [_covers(effects[("quality", player)], 0.0) for player in LENIENCY]
    assert sum(covered) >= 3, covered
    assert _covers(effects[("style", "answer_length")], 0.0)


def test_what_the_data_cannot_give_has_no_value_and_says_why(effects):
    named = effects[("named", "ash")]
    assert named["joint_effect"] is None and not named["is_estimable"]
    assert named["joint_note"] == "the judge gave no judgement in this arm"
    bold = effects[("style", "bold")]
    assert bold["joint_effect"] is None and "no answer uses it" in bold["joint_note"]
    # 40 questions, each answered by the 4 players and judged by the 3 who did not write it
    assert {row["n_judgments"] for row in effects.values()} == {40 * 4 * 3}


def test_the_leaderboard_gives_each_score_with_style_held_on_the_scores_scale(run_dir, effects):
    """score_style_controlled is the players' mean score plus the joint model's quality against
    the mean player, interval and all: over the players it averages to the plain mean."""
    relation = duckdb.sql(
        "select player, score, score_style_controlled, score_style_controlled_ci_low, "
        f"score_style_controlled_ci_high from '{run_dir / 'leaderboard.parquet'}'"
    )
    rows = {row[0]: row[1:] for row in relation.fetchall()}
    assert set(rows) == set(LENIENCY)
    mean = sum(score for score, *_ in rows.values()) / len(rows)
    for player, (_, held, low, high) in rows.items():
        quality = effects[("quality", player)]
        assert held == pytest.approx(mean + quality["joint_effect"], abs=1e-9)
        assert low == pytest.approx(mean + quality["joint_effect_ci_low"], abs=1e-9)
        assert high == pytest.approx(mean + quality["joint_effect_ci_high"], abs=1e-9)
    assert sum(held for _, held, *_ in rows.values()) / len(rows) == pytest.approx(mean, abs=1e-9)
