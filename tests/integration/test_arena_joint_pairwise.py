"""The joint model of pairwise judging finds what configs/arena_joint.yaml plants: played on
the mock and built with dbt. The mock's preferences are planted in log-odds, the model's own
terms (tests/integration/joint_pairwise_runs.py reads the truths from the config): ann prefers
the answer shown first, cyd the second, ben his own answers, every judge dan's answer when the
names are shown, every judge the longer answer.

The SQL is also checked against an independent fit of the same verdicts read from the run's
files: Newton's method in numpy for the estimates, and the sandwich clustered by question for
the standard errors."""

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

from tests.integration.joint_pairwise_runs import CONFIG, ELO_PER_LOG_ODDS, planted_truths

PLANTED = (("position", "ann"), ("position", "cyd"), ("self", "ben"), ("name", "dan"))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("joint") / "run"
    run_arena(load_config(CONFIG), output_dir=folder, use_cache=False)
    invoke_dbt(DbtRequest("run", run_dir=folder, select="+arena_joint_model"))
    return folder


@pytest.fixture(scope="module")
def effects(run_dir: Path) -> dict[tuple[str, str], dict]:
    relation = duckdb.sql(
        f"select * from '{run_dir / 'joint_model.parquet'}' where judging = 'pairwise'"
    )
    rows = [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]
    return {(row["effect_kind"], row["effect_name"]): row for row in rows}


def test_each_planted_bias_is_found_and_its_interval_holds_the_planted_value(effects):
    truths = planted_truths()
    for key in PLANTED:
        row = effects[key]
        assert row["is_clear_of_zero"], key
        assert row["joint_effect_ci_low"] <= truths[key] <= row["joint_effect_ci_high"], key
    # the judges' other position and self terms were planted at 0, and no interval leaves it out
    for key in (("position", "ben"), ("self", "ann"), ("self", "cyd")):
        assert not effects[key]["is_clear_of_zero"], key


def test_the_strengths_hold_the_planted_ones_and_length_is_found(effects):
    truths = planted_truths()
    for player in ("ann", "ben", "cyd", "dan"):
        row = effects["strength", player]
        assert (
            row["joint_effect_ci_low"] <= truths["strength", player] <= row["joint_effect_ci_high"]
        )
    length = effects["style", "answer_length"]
    assert length["joint_effect_ci_low"] > 0
    assert length["effect_unit"] == "Elo points per 100 words"
    # the mock writes no markdown: those features have no value and say why
    assert not effects["style", "headers"]["is_estimable"]
    assert "no variation" in effects["style", "headers"]["joint_note"]


def _design(run_dir: Path) -> tuple[np.ndarray, np.ndarray, list[str], list[tuple[str, str]]]:
    """The joint model's design read from the run's files: one row per valid verdict, the
    parameters (kind, name) in the mart's terms, and each verdict's question."""
    answers = [json.loads(line) for line in (run_dir / "answers.jsonl").open()]
    words = {a["answer_id"]: len((a.get("shown_text") or a["text"]).split()) for a in answers}
    verdicts = [json.loads(line) for line in (run_dir / "pairwise_judgments.jsonl").open()]
    verdicts = [v for v in verdicts if v["is_valid"]]
    assert {v["verdict"] for v in verdicts} <= {"A>B", "B>A"}  # no ties, none strong
    players = sorted({v["first_player"] for v in verdicts} | {v["second_player"] for v in verdicts})
    judges = sorted({v["judge"] for v in verdicts})
    own = sorted(
        {v["judge"] for v in verdicts if v["judge"] in (v["first_player"], v["second_player"])}
    )
    named = sorted(
        {p for v in verdicts if v["is_named"] for p in (v["first_player"], v["second_player"])}
    )
    parameters = [
        *(("strength", p) for p in players[1:]),  # the first by name is the reference
        ("style", "answer_length"),
        *(("position", j) for j in judges),
        *(("self", j) for j in own),
        *(("name", p) for p in named[1:]),
    ]
    index = {parameter: i for i, parameter in enumerate(parameters)}
    rows = np.zeros((len(verdicts), len(parameters)))
    for row, v in zip(rows, verdicts, strict=True):
        for player, sign in ((v["first_player"], 1), (v["second_player"], -1)):
            if ("strength", player) in index:
                row[index["strength", player]] += sign
            if v["is_named"] and ("name", player) in index:
                row[index["name", player]] += sign
            if v["judge"] == player:
                row[index["self", player]] += sign
        row[index["style", "answer_length"]] = (
            words[v["first_answer_id"]] - words[v["second_answer_id"]]
        ) / 100
        row[index["position", v["judge"]]] = 1
    outcomes = np.array([1.0 if v["verdict"] == "A>B" else 0.0 for v in verdicts])
    return rows, outcomes, [v["question_id"] for v in verdicts], parameters


def test_the_sql_fit_and_its_sandwich_are_those_numpy_computes(run_dir, effects):
    design, y, questions, parameters = _design(run_dir)
    theta = np.zeros(design.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ theta))
        information = design.T @ (design * (p * (1 - p))[:, None])
        theta += np.linalg.solve(information, design.T @ (y - p))
    inverse = np.linalg.inv(information)
    scores = design * (y - p)[:, None]
    meat = sum(
        np.outer(s, s)
        for s in (
            scores[[q == question for q in questions]].sum(axis=0) for question in set(questions)
        )
    )
    covariance = inverse @ meat @ inverse
    ratios = []
    for kind in ("strength", "style", "position", "self", "name"):
        names = [name for k, name in parameters if k == kind]
        centred = kind in ("strength", "name")
        group = [
            effect for effect in effects if effect[0] == kind and effects[effect]["is_estimable"]
        ]
        for key in group:
            contrast = np.zeros(len(parameters))
            if key in parameters:
                contrast[parameters.index(key)] = 1.0
            if centred:  # against the mean over the group, the reference (theta 0) included
                for name in names:
                    contrast[parameters.index((kind, name))] -= 1 / len(group)
            value = ELO_PER_LOG_ODDS * contrast @ theta
            row = effects[key]
            assert row["joint_effect"] == pytest.approx(value, abs=1e-3), key
            error = ELO_PER_LOG_ODDS * math.sqrt(contrast @ covariance @ contrast)
            ratios.append((row["joint_effect_ci_high"] - row["joint_effect"]) / error)
    # every half-width is the same multiple of numpy's standard error: sqrt(G / (G - 1))
    # t(0.975, G - 1) for G = 21 questions, 2.086 x 1.025 = 2.138
    assert max(ratios) - min(ratios) < 1e-4
    assert ratios[0] == pytest.approx(math.sqrt(21 / 20) * 2.085963, abs=1e-4)
