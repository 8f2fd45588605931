"""A tournament with self-assessment through ``pdbench run``, once per module, whose mock
players carry planted confidence: one expects 2.5 points more than its answers get, one is
calibrated, one expects 2 points less. Judges have no leniency, so an answer's expected
score is what a calibrated player predicts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles
from pdbench.arena.runner import run_arena
from pdbench.games import load_config
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import write_arena
from tests.e2e.played import PlayedArena, play_arena

PLANTED = {"boastful": 2.5, "honest": 0.0, "modest": -2.0}
QUESTIONS = 10


def _player(name: str, overconfidence: float) -> dict:
    mock = {"answer_skill": 0.55, "overconfidence": overconfidence}
    return {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": mock}}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PlayedArena:
    return play_arena(
        tmp_path_factory.mktemp("arena_calibration"),
        players=[_player(name, shift) for name, shift in PLANTED.items()],
        questions_per_player=QUESTIONS,
        self_assessment=True,
    )


def _jsonl(run: PlayedArena, name: str) -> list[dict]:
    return [json.loads(line) for line in (run.run_dir / name).read_text().splitlines()]


def _calibration(run: PlayedArena) -> dict[str, dict]:
    relation = duckdb.sql(f"select * from '{run.run_dir}/calibration.parquet'")
    rows = [dict(zip(relation.columns, r, strict=True)) for r in relation.fetchall()]
    return {row["player"]: row for row in rows}


def test_every_valid_answer_is_assessed_once_by_its_answerer(run: PlayedArena):
    answers = {a["answer_id"]: a for a in _jsonl(run, ArenaFiles.ANSWERS) if a["is_valid"]}
    assessments = _jsonl(run, ArenaFiles.SELF_ASSESSMENTS)
    assert sorted(s["answer_id"] for s in assessments) == sorted(answers)
    assert all(s["answerer"] == answers[s["answer_id"]]["answerer"] for s in assessments)
    assert all(s["is_valid"] and 0 <= s["predicted_score"] <= 10 for s in assessments)
    calls = [c for c in _jsonl(run, RunFiles.CALLS) if c["phase"] == "self_assess"]
    assert len(calls) == len(assessments)
    manifest = json.loads((run.run_dir / RunFiles.MANIFEST).read_text())
    assert manifest["phases_done"][-1] == "self_assess"
    assert manifest["counts"]["self_assessments"] == len(assessments)
    assert [p["overconfidence"] for p in manifest["scoring"]["players"]] == list(PLANTED.values())


def test_the_planted_confidence_is_found_with_intervals(run: PlayedArena):
    rows = _calibration(run)
    assert sorted(rows) == sorted(PLANTED)
    boastful, honest, modest = rows["boastful"], rows["honest"], rows["modest"]
    assert boastful["signed_error_ci_low"] > 0 and boastful["confidence"] == "overconfident"
    assert abs(boastful["mean_signed_error"] - PLANTED["boastful"]) < 0.5
    assert honest["signed_error_ci_low"] < 0 < honest["signed_error_ci_high"]
    assert honest["confidence"] == "calibrated"
    assert modest["signed_error_ci_high"] < 0 and modest["confidence"] == "underconfident"
    assert honest["mean_absolute_error"] < boastful["mean_absolute_error"]
    # every player sees the worked steps the judges count: predictions track the scores
    assert all(row["pearson_r_ci_low"] > 0.5 for row in rows.values())


def test_the_calibration_mart_recounts_the_raw_files(run: PlayedArena):
    judged: dict[str, list[int]] = {}
    for j in _jsonl(run, ArenaFiles.JUDGMENTS):
        if j["is_valid"]:
            judged.setdefault(j["answer_id"], []).append(j["score"])
    rows = _calibration(run)
    for player in PLANTED:
        mine = [
            s for s in _jsonl(run, ArenaFiles.SELF_ASSESSMENTS)
            if s["answerer"] == player and s["answer_id"] in judged
        ]  # fmt: skip
        errors = [
            s["predicted_score"] - sum(judged[s["answer_id"]]) / len(judged[s["answer_id"]])
            for s in mine
        ]
        row = rows[player]
        assert row["n"] == len(errors)
        assert row["mean_signed_error"] == pytest.approx(sum(errors) / len(errors))
        assert row["mean_absolute_error"] == pytest.approx(
            sum(abs(e) for e in errors) / len(errors)
        )


def test_the_dry_run_counts_the_self_assessment_calls(run: PlayedArena):
    result = CliRunner().invoke(cli.app, ["run", str(run.path), "--dry-run"])
    assert result.exit_code == 0, result.stderr
    kept = len(PLANTED) * QUESTIONS
    assert f"  self_assess: exactly {len(PLANTED) * kept}\n" in result.stdout
    assert "self-assessment: on\n" in result.stdout
    assert "boastful: mock/mock-arena, answer skill 0.55" in result.stdout
    assert ", overconfidence +2.5\n" in result.stdout and ", overconfidence -2\n" in result.stdout


def test_a_run_stopped_in_the_self_assessment_phase_resumes_it_alone(project: Path):
    path = write_arena(project / "configs", players=3, self_assessment=True)
    whole = run_arena(load_config(path), output_dir=project / "whole").run_dir
    stopped = project / "stopped"
    shutil.copytree(whole, stopped)
    # as a stop mid-phase leaves it: the phase not marked done, a torn file, some of its calls
    manifest = json.loads((stopped / RunFiles.MANIFEST).read_text())
    manifest.update(status="interrupted", phases_done=manifest["phases_done"][:-1])
    (stopped / RunFiles.MANIFEST).write_text(json.dumps(manifest))
    assessments = (stopped / ArenaFiles.SELF_ASSESSMENTS).read_text().splitlines()
    (stopped / ArenaFiles.SELF_ASSESSMENTS).write_text(assessments[0][:40])
    calls = (stopped / RunFiles.CALLS).read_text().splitlines()
    first = next(i for i, c in enumerate(calls) if '"phase":"self_assess"' in c)
    (stopped / RunFiles.CALLS).write_text("\n".join(calls[: first + 2]) + "\n")
    judged = (stopped / ArenaFiles.JUDGMENTS).read_text()

    resumed = run_arena(load_config(path), output_dir=stopped, resume=True)
    assert resumed.manifest.status == "completed"
    assert resumed.manifest.phases_done[-1] == "self_assess"
    assert (stopped / ArenaFiles.JUDGMENTS).read_text() == judged  # not played again
    assert _lines(stopped, ArenaFiles.SELF_ASSESSMENTS) == _lines(
        whole, ArenaFiles.SELF_ASSESSMENTS
    )
    phases = [json.loads(c)["phase"] for c in (stopped / RunFiles.CALLS).read_text().splitlines()]
    assert phases == [json.loads(c)["phase"] for c in calls]


def _lines(run_dir: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (run_dir / name).read_text().splitlines()]
