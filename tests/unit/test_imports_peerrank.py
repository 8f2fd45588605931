"""``pdbench import peerrank``: PeerRank's three phase files become an arena run whose
judgements carry their mode as an arm; a bad file is one line naming it and the field, and
nothing is written."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles, JudgmentRecord
from pdbench.imports import FORMATS
from pdbench.storage.schema import RunFiles, RunManifest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "data" / "peerrank"
runner = CliRunner()


def _import(*args: str):
    return runner.invoke(cli.app, ["import", "peerrank", *args, "--no-aggregate"])


def _lines(run_dir: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (run_dir / name).read_text().splitlines()]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("peerrank") / "demo"
    result = _import(str(FIXTURE), "--output-dir", str(out))
    assert result.exit_code == 0, result.output
    # 3 judges x 3 questions x 3 answers x 3 modes = 81 scores, 27 of a judge's own answer
    assert (
        "imported 3 questions, 9 answers and 54 scores of 3 judges (18 plain, 18 named, 18 in "
        "a fixed order)"
    ) in result.output
    assert "27 scores of a judge's own answer left out" in result.output
    return out


def test_peerrank_is_an_arena_format_of_the_registry():
    assert FORMATS["peerrank"].game == "arena"


def test_questions_answers_and_judgments_go_through_the_record_contracts(run_dir: Path):
    questions = _lines(run_dir, ArenaFiles.QUESTIONS)
    assert [(q["author"], q["position"]) for q in questions] == [
        ("alpha-7b", 1),
        ("beta-13b", 1),
        ("gamma-70b", 1),
    ]
    answers = _lines(run_dir, ArenaFiles.ANSWERS)
    assert Counter(a["answerer"] for a in answers) == {"alpha-7b": 3, "beta-13b": 3, "gamma-70b": 3}
    judgments = _lines(run_dir, ArenaFiles.JUDGMENTS)
    for line in judgments:
        JudgmentRecord.model_validate(line)
    owners = {a["answer_id"]: a["answerer"] for a in answers}
    assert all(owners[j["answer_id"]] != j["judge"] for j in judgments)
    assert Counter(j["arm"] for j in judgments) == {"plain": 18, "named": 18, "fixed_order": 18}


def test_the_planted_scores_land_on_their_arm(run_dir: Path):
    answers = {a["answer_id"]: a for a in _lines(run_dir, ArenaFiles.ANSWERS)}
    questions = {q["question_id"]: q["author"] for q in _lines(run_dir, ArenaFiles.QUESTIONS)}
    skill = {"alpha-7b": 7, "beta-13b": 5, "gamma-70b": 3}
    offset = {"alpha-7b": 0, "beta-13b": 1, "gamma-70b": -1}
    for line in _lines(run_dir, ArenaFiles.JUDGMENTS):
        answerer = answers[line["answer_id"]]["answerer"]
        plain = skill[answerer] + offset[questions[line["question_id"]]]
        planted = {
            ("named", "beta-13b", "alpha-7b"): 2,
        }.get((line["arm"], line["judge"], answerer), 0)
        if line["arm"] == "fixed_order" and line["judge"] == "gamma-70b":
            planted = -1
        assert line["score"] == plain + planted, line
        assert line["is_valid"] is True
        assert json.loads(line["raw_reply"])["score"] == line["score"]


def test_the_blind_only_order_is_the_presentation_index(run_dir: Path):
    answers = {a["answer_id"]: a["answerer"] for a in _lines(run_dir, ArenaFiles.ANSWERS)}
    fixed = [j for j in _lines(run_dir, ArenaFiles.JUDGMENTS) if j["arm"] == "fixed_order"]
    order = {"alpha-7b": 0, "beta-13b": 1, "gamma-70b": 2}  # the fixture's fixed order
    assert all(j["presentation_index"] == order[answers[j["answer_id"]]] for j in fixed)


def test_the_manifest_records_the_three_phase_files(run_dir: Path):
    manifest = RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())
    assert manifest.source == "imported"
    assert manifest.imported.format == "peerrank"
    assert [Path(s.path).name for s in manifest.imported.sources] == [
        "phase1_questions_demo.json",
        "phase2_answers_demo.json",
        "phase3_rankings_demo.json",
    ]


def _broken_copy(tmp_path: Path, phase: str, edit) -> Path:
    folder = tmp_path / "peerrank"
    shutil.copytree(FIXTURE, folder)
    path = next(folder.glob(f"{phase}_*.json"))
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document))
    return folder


def _first_entry(document: dict) -> dict:
    by_question = document["evaluations_by_mode"]["shuffle_blind"]["alpha-7b"]
    return next(iter(by_question.values()))["beta-13b"]


@pytest.mark.parametrize(
    ("phase", "edit", "expected"),
    [
        (
            "phase3_rankings",
            lambda d: _first_entry(d).update(score=11),
            "phase3_rankings_demo.json: column evaluations_by_mode.shuffle_blind.alpha-7b."
            "A bat and a ball cost 1.10 in total;....beta-13b.score: 11 is outside 0..10",
        ),
        (
            "phase3_rankings",
            lambda d: _first_entry(d).update(score="seven"),
            "column evaluations_by_mode.shuffle_blind.alpha-7b.A bat and a ball cost 1.10 in "
            "total;....beta-13b.score: not a whole number",
        ),
        (
            "phase3_rankings",
            lambda d: d["evaluations_by_mode"].update(shuffle_twice={}),
            "column evaluations_by_mode.shuffle_twice: mode 'shuffle_twice' is not one of",
        ),
        (
            "phase3_rankings",
            lambda d: d["evaluations_by_mode"].pop("shuffle_blind"),
            "column evaluations_by_mode.shuffle_blind: missing (the scored mode)",
        ),
        (
            "phase2_answers",
            lambda d: d["questions"][1]["answers"]["gamma-70b"].pop("text"),
            "phase2_answers_demo.json: column questions[1].answers.gamma-70b.text: missing or "
            "not a text",
        ),
        (
            "phase1_questions",
            lambda d: d.pop("questions_by_model"),
            "phase1_questions_demo.json: column questions_by_model: missing",
        ),
    ],
)
def test_a_bad_field_is_one_line_naming_file_and_field_and_nothing_is_written(
    tmp_path: Path, phase: str, edit, expected: str
):
    folder = _broken_copy(tmp_path, phase, edit)
    result = _import(str(folder), "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert expected in " ".join(result.output.split())
    assert "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["peerrank"]


def test_a_folder_with_two_revisions_is_refused(tmp_path: Path):
    folder = tmp_path / "peerrank"
    shutil.copytree(FIXTURE, folder)
    shutil.copy(folder / "phase3_rankings_demo.json", folder / "phase3_rankings_V2.json")
    result = _import(str(folder), "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "needs exactly one phase3_rankings_*.json (found: phase3_rankings_V2.json, " in (
        " ".join(result.output.split())
    )
    assert not (tmp_path / "out").exists()
