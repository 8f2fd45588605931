"""A tournament with trick questions through ``pdbench run``, once per module, whose mock
players carry planted trick traits: a trickster whose tricks carry every decoy, a gullible
answerer that sees through none of them, a robust one that sees through all, and a middling
one. The marts must find the trickster's tricks biting most, the gullible answerer's
robustness gap below 0 and the robust one's interval around 0, never calling the gullible
one robust."""

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

PLANTED = {
    "trickster": {"trick_bite": 1.0},
    "gullible": {"trick_bite": 0.2, "trick_robustness": 0.0},
    "robust": {"trick_bite": 0.2, "trick_robustness": 1.0},
    "middling": {"trick_bite": 0.2},
}
QUESTIONS = 10
SHARE = 0.4


def _player(name: str, traits: dict) -> dict:
    mock = {"answer_skill": 0.75, **traits}
    return {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": mock}}


def _players() -> list[dict]:
    return [_player(name, traits) for name, traits in PLANTED.items()]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PlayedArena:
    return play_arena(
        tmp_path_factory.mktemp("arena_tricks"),
        players=_players(),
        questions_per_player=QUESTIONS,
        tricks={"share": SHARE},
        rationales=None,
    )


def _jsonl(run_dir: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (run_dir / name).read_text().splitlines()]


def _mart(run: PlayedArena, name: str, key: str) -> dict[str, dict]:
    relation = duckdb.sql(f"select * from '{run.run_dir}/{name}'")
    rows = [dict(zip(relation.columns, r, strict=True)) for r in relation.fetchall()]
    return {row[key]: row for row in rows}


def test_each_player_writes_its_seeded_share_of_tricks_with_notes(run: PlayedArena):
    questions = _jsonl(run.run_dir, ArenaFiles.QUESTIONS)
    for name in PLANTED:
        mine = [q for q in questions if q["author"] == name]
        tricks = [q for q in mine if q["trick_kind"] is not None]
        assert len(mine) == QUESTIONS and len(tricks) == round(SHARE * QUESTIONS)
        assert all(q["trick_note"] for q in tricks)
        assert all(q["trick_note"] is None for q in mine if q["trick_kind"] is None)
    kinds = {q["trick_kind"] for q in questions} - {None}
    assert kinds <= {"false_premise", "unanswerable", "ambiguous", "misleading"}
    manifest = json.loads((run.run_dir / RunFiles.MANIFEST).read_text())
    assert manifest["scoring"]["tricks"] == {"share": SHARE, "fell_below": 3.0}
    truth = {p["name"]: p for p in manifest["scoring"]["players"]}
    assert truth["trickster"]["trick_bite"] == 1.0
    assert truth["gullible"]["trick_robustness"] == 0.0


def test_answerers_are_not_told_and_raters_and_judges_see_the_note(run: PlayedArena):
    questions = {q["question_id"]: q for q in _jsonl(run.run_dir, ArenaFiles.QUESTIONS)}
    for answer in _jsonl(run.run_dir, ArenaFiles.ANSWERS):
        assert "trick" not in answer["prompt"].casefold()
        assert "note" not in answer["prompt"].casefold()
    judgments = _jsonl(run.run_dir, ArenaFiles.JUDGMENTS)
    ratings = _jsonl(run.run_dir, ArenaFiles.QUESTION_RATINGS)
    for record in judgments + ratings:
        question = questions[record["question_id"]]
        shown = "deliberate trick" in record["prompt"]
        assert shown == (question["trick_kind"] is not None)
        if shown:
            assert question["trick_note"] in record["prompt"]
        assert not any(name in record["prompt"] for name in PLANTED)


def test_the_trickster_s_tricks_bite_most(run: PlayedArena):
    authors = _mart(run, "trick_authors.parquet", "author")
    assert sorted(authors) == sorted(PLANTED)
    shares = {name: row["share_fell"] for name, row in authors.items()}
    assert max(shares, key=shares.get) == "trickster"
    assert shares["trickster"] > 0.5
    assert all(shares[name] < shares["trickster"] - 0.2 for name in PLANTED if name != "trickster")
    # counts are whole numbers in the file too (a DuckDB sum of integers is a HUGEINT)
    assert all(
        type(row[c]) is int for row in authors.values() for c in ("n_fell", "n_trick_answers")
    )
    outcomes = _mart(run, "trick_outcomes.parquet", "question_id")
    assert len(outcomes) == len(PLANTED) * round(SHARE * QUESTIONS)
    for row in outcomes.values():
        assert row["n_answerers"] == len(PLANTED) - 1
        expected = (
            "nobody_fell" if row["n_fell"] == 0
            else "everybody_fell" if row["n_fell"] == row["n_answerers"]
            else "discriminating"
        )  # fmt: skip
        assert row["outcome"] == expected


def test_the_gullible_answerer_has_a_gap_and_the_robust_one_none(run: PlayedArena):
    rows = _mart(run, "robustness.parquet", "answerer")
    gullible, robust = rows["gullible"], rows["robust"]
    tricks = (len(PLANTED) - 1) * round(SHARE * QUESTIONS)
    assert gullible["n_trick_answers"] == tricks
    assert gullible["n_ordinary_answers"] == (len(PLANTED) - 1) * QUESTIONS - tricks
    assert gullible["gap_ci_high"] < 0 and gullible["robustness"] == "caught by tricks"
    assert robust["gap_ci_low"] < 0 < robust["gap_ci_high"]
    # "robust" is claimed only when the interval rules out a loss of more than the margin;
    # 12 trick answers leave it wider than that here, so the honest verdict is inconclusive
    claimed = "robust" if robust["gap_ci_low"] >= -robust["label_margin"] else "inconclusive"
    assert robust["robustness"] == claimed
    assert gullible["robustness"] != "robust"
    assert gullible["robustness_gap"] < rows["middling"]["robustness_gap"] < 0.5
    assert gullible["share_fell"] > robust["share_fell"]


def test_the_robustness_mart_recounts_the_raw_files(run: PlayedArena):
    questions = {q["question_id"]: q for q in _jsonl(run.run_dir, ArenaFiles.QUESTIONS)}
    answers = {a["answer_id"]: a for a in _jsonl(run.run_dir, ArenaFiles.ANSWERS)}
    judged: dict[str, list[int]] = {}
    for j in _jsonl(run.run_dir, ArenaFiles.JUDGMENTS):
        if j["is_valid"]:
            judged.setdefault(j["answer_id"], []).append(j["score"])
    trick_answers = [
        a for a in answers.values()
        if a["answer_id"] in judged and questions[a["question_id"]]["trick_kind"]
        and a["answerer"] != questions[a["question_id"]]["author"]
    ]  # fmt: skip
    rows = _mart(run, "robustness.parquet", "answerer")
    for name in PLANTED:
        assert rows[name]["n_trick_answers"] == sum(a["answerer"] == name for a in trick_answers)


def test_the_dry_run_and_validate_name_the_tricks(run: PlayedArena):
    result = CliRunner().invoke(cli.app, ["run", str(run.path), "--dry-run"])
    assert result.exit_code == 0, result.stderr
    assert "tricks: 4 of 10 questions per player" in result.stdout
    assert "trickster: mock/mock-arena, answer skill 0.75" in result.stdout
    assert ", trick bite 1, trick robustness 0.5\n" in result.stdout
    assert ", trick bite 0.2, trick robustness 0\n" in result.stdout


def test_without_tricks_nothing_changes(project: Path):
    off = write_arena(project / "configs", "off.yaml", players=_players())
    zero = write_arena(project / "configs", "zero.yaml", players=_players(), tricks={"share": 0})
    runs = [run_arena(load_config(p), output_dir=project / p.stem).run_dir for p in (off, zero)]
    questions = [_jsonl(r, ArenaFiles.QUESTIONS) for r in runs]
    assert all(q["trick_kind"] is None and q["trick_note"] is None for q in questions[1])
    assert questions[0] == questions[1]
    calls = [[(c["phase"], c["prompt_sha256"]) for c in _jsonl(r, RunFiles.CALLS)] for r in runs]
    assert calls[0] == calls[1]
    assert not any("trick" in q["prompt"].casefold() for q in questions[1])


def test_a_run_stopped_while_generating_re_derives_the_trick_slots(project: Path):
    path = write_arena(project / "configs", players=_players(), tricks={"share": 0.34})
    whole = run_arena(load_config(path), output_dir=project / "whole").run_dir
    stopped = project / "stopped"
    shutil.copytree(whole, stopped)
    manifest = json.loads((stopped / RunFiles.MANIFEST).read_text())
    manifest.update(status="interrupted", phases_done=[])
    (stopped / RunFiles.MANIFEST).write_text(json.dumps(manifest))
    for name in (ArenaFiles.QUESTION_RATINGS, ArenaFiles.ANSWERS, ArenaFiles.JUDGMENTS):
        (stopped / name).unlink(missing_ok=True)
    lines = (stopped / ArenaFiles.QUESTIONS).read_text().splitlines()
    (stopped / ArenaFiles.QUESTIONS).write_text(lines[0][:40])
    calls = (stopped / RunFiles.CALLS).read_text().splitlines()
    (stopped / RunFiles.CALLS).write_text(calls[0] + "\n")

    resumed = run_arena(load_config(path), output_dir=stopped, resume=True)
    assert resumed.manifest.status == "completed"
    again = _jsonl(stopped, ArenaFiles.QUESTIONS)
    assert again == _jsonl(whole, ArenaFiles.QUESTIONS)
    assert sum(q["trick_kind"] is not None for q in again) == len(PLANTED)
