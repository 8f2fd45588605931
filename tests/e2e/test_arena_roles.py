"""A tournament with roles through ``pdbench run``, once per module: three players, a
judge-only referee (a strong model that judges but does not compete: no leniency, little
noise) and an answerer-only participant. The players judge noisily, so the referee carries
the ranking; the planted answer skills come back in order."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.e2e.played import PlayedArena, play_arena

SKILLS = {"ada": 0.85, "bob": 0.5, "cal": 0.2}
"""The players (role ``player``) and their answer skills."""
ANSWERER, ANSWERER_SKILL = "ans", 0.65
REFEREE = "ref"
QUESTIONS = 6


def _entry(name: str, *, role: str | None = None, **mock: float) -> dict:
    overrides: dict = {"name": name, "mock": mock}
    if role is not None:
        overrides["role"] = role
    return {"ref": "agents/arena_player.yaml", "overrides": overrides}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PlayedArena:
    players = [_entry(name, answer_skill=skill, judge_noise=2.0) for name, skill in SKILLS.items()]
    players.insert(1, _entry(REFEREE, role="judge", answer_skill=1.0, judge_noise=0.1))
    players.append(_entry(ANSWERER, role="answerer", answer_skill=ANSWERER_SKILL))
    return play_arena(
        tmp_path_factory.mktemp("arena_roles"),
        players=players,
        questions_per_player=QUESTIONS,
        self_assessment=True,
        min_judgments=3,
    )


def _jsonl(run: PlayedArena, name: str) -> list[dict]:
    return [json.loads(line) for line in (run.run_dir / name).read_text().splitlines()]


def _mart(run: PlayedArena, name: str) -> list[dict]:
    relation = duckdb.sql(f"select * from '{run.run_dir}/{name}.parquet'")
    return [dict(zip(relation.columns, r, strict=True)) for r in relation.fetchall()]


def test_each_role_takes_part_only_in_its_phases(run: PlayedArena):
    questions = _jsonl(run, ArenaFiles.QUESTIONS)
    ratings = _jsonl(run, ArenaFiles.QUESTION_RATINGS)
    answers = _jsonl(run, ArenaFiles.ANSWERS)
    judgments = _jsonl(run, ArenaFiles.JUDGMENTS)
    assessments = _jsonl(run, ArenaFiles.SELF_ASSESSMENTS)
    assert {q["author"] for q in questions} == set(SKILLS)
    assert {r["rater"] for r in ratings} == {*SKILLS, REFEREE}
    assert {a["answerer"] for a in answers} == {*SKILLS, ANSWERER}
    assert {j["judge"] for j in judgments} == {*SKILLS, REFEREE}
    assert {s["answerer"] for s in assessments} == {*SKILLS, ANSWERER}
    # the referee rates every question and judges every valid answer
    assert sum(r["rater"] == REFEREE for r in ratings) == len(questions)
    valid = [a for a in answers if a["is_valid"]]
    assert sum(j["judge"] == REFEREE for j in judgments) == len(valid)
    # the answerer answers every question
    assert sum(a["answerer"] == ANSWERER for a in answers) == len(questions)
    calls = _jsonl(run, RunFiles.CALLS)
    assert {c["phase"] for c in calls if c["agent"] == REFEREE} == {"rate", "judge", "rationale"}
    assert {c["phase"] for c in calls if c["agent"] == ANSWERER} == {"answer", "self_assess"}


def test_no_one_rates_its_own_question_or_judges_its_own_answer(run: PlayedArena):
    author = {q["question_id"]: q["author"] for q in _jsonl(run, ArenaFiles.QUESTIONS)}
    answerer = {a["answer_id"]: a["answerer"] for a in _jsonl(run, ArenaFiles.ANSWERS)}
    assert all(
        r["rater"] != author[r["question_id"]] for r in _jsonl(run, ArenaFiles.QUESTION_RATINGS)
    )
    judgments = _jsonl(run, ArenaFiles.JUDGMENTS)
    assert judgments and all(j["judge"] != answerer[j["answer_id"]] for j in judgments)


def test_no_prompt_after_generation_names_a_participant(run: PlayedArena):
    names = [*SKILLS, REFEREE, ANSWERER]
    files = (ArenaFiles.QUESTION_RATINGS, ArenaFiles.ANSWERS, ArenaFiles.JUDGMENTS,
             ArenaFiles.SELF_ASSESSMENTS)  # fmt: skip
    prompts = [record["prompt"] for name in files for record in _jsonl(run, name)]
    assert len(prompts) > 400
    for prompt in prompts:
        words = set(prompt.casefold().replace(".", " ").replace(",", " ").split())
        assert not words & set(names), prompt


def test_the_manifest_records_the_roles(run: PlayedArena):
    manifest = json.loads((run.run_dir / RunFiles.MANIFEST).read_text())
    roles = {p["name"]: p["role"] for p in manifest["scoring"]["players"]}
    assert roles == {"ada": "player", REFEREE: "judge", "bob": "player", "cal": "player",
                     ANSWERER: "answerer"}  # fmt: skip
    assert {p["name"]: p["role"] for p in manifest["config"]["players"]} == roles


def test_the_planted_skills_come_back_in_order_and_the_referee_is_unranked(run: PlayedArena):
    rows = {row["player"]: row for row in _mart(run, "leaderboard")}
    assert rows[REFEREE]["role"] == "judge" and rows[REFEREE]["status"] == "judge only"
    assert rows[REFEREE]["rank"] is None and rows[REFEREE]["score"] is None
    assert rows[ANSWERER]["role"] == "answerer" and rows[ANSWERER]["status"] == "ranked"
    skills = {**SKILLS, ANSWERER: ANSWERER_SKILL}
    by_skill = sorted(skills, key=skills.get, reverse=True)
    assert [rows[p]["rank"] for p in by_skill] == [1, 2, 3, 4]
    assert all(rows[p]["role"] == "player" for p in SKILLS)
    # the printed leaderboard lists the referee last, as a referee
    lines = run.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("leaderboard ("))
    last_row = lines[lines.index("", start) - 1]
    assert last_row.split()[:3] == ["-", REFEREE, "-"]
    assert last_row.split()[3:7] == ["judge", "only", "(not", "ranked)"]


def test_judge_tables_include_the_referee_and_question_stats_only_writers(run: PlayedArena):
    judges = {row["judge"]: row for row in _mart(run, "judge_stats")}
    assert set(judges) == {*SKILLS, REFEREE}
    assert {name: row["role"] for name, row in judges.items()} == {
        **dict.fromkeys(SKILLS, "player"),
        REFEREE: "judge",
    }
    # the referee judges every valid answer, the players all but their own
    assert judges[REFEREE]["n_valid"] > max(judges[p]["n_valid"] for p in SKILLS)
    authors = {row["author"] for row in _mart(run, "question_quality")}
    assert authors == set(SKILLS)


def test_the_dry_run_counts_equal_the_calls_made(run: PlayedArena):
    result = CliRunner().invoke(cli.app, ["run", str(run.path), "--dry-run"])
    assert result.exit_code == 0, result.stderr
    made: dict[str, int] = {}
    for call in _jsonl(run, RunFiles.CALLS):
        if call["attempt"] == 1:
            made[call["phase"]] = made.get(call["phase"], 0) + 1
    # P = 3 players, J = 1 judge, A' = 1 answerer, Q = 6: generate 3, rate 3*6*(4-1) = 54,
    # answer (3+1)*18 = 72, judge 18*((3+1)*4 - 3) = 234, self_assess 72
    assert "  generate: exactly 3\n  rate: exactly 54\n" in result.stdout
    assert "  answer: exactly 72\n  judge: exactly 234\n" in result.stdout
    assert "  self_assess: exactly 72\n" in result.stdout
    assert f"  {REFEREE} (judge only): mock/mock-arena" in result.stdout
    assert f"  {ANSWERER} (answerer only): mock/mock-arena" in result.stdout
    for phase, planned in {"generate": 3, "rate": 54, "answer": 72, "judge": 234,
                           "self_assess": 72}.items():  # fmt: skip
        assert made[phase] == planned, phase


def test_fixed_effects_ranks_when_judges_and_answerers_differ(run: PlayedArena, tmp_path: Path):
    # the fixed-effects fit (answer effect + judge offset) with a judge that answers nothing
    # and an answerer that judges nothing: still connected through the players and the referee
    config = run.path.read_text().replace(
        "game: arena", "game: arena\nnormalization: fixed_effects"
    )
    path = run.path.with_name("fixed_effects.yaml")
    path.write_text(config)
    result = CliRunner().invoke(cli.app, ["run", str(path), "--output-dir", str(tmp_path / "fe")])
    assert result.exit_code == 0, result.stderr
    relation = duckdb.sql(
        f"select player, rank, normalization from '{tmp_path}/fe/leaderboard.parquet'"
    )
    rows = {player: (rank, method) for player, rank, method in relation.fetchall()}
    assert rows == {"ada": (1, "fixed_effects"), ANSWERER: (2, "fixed_effects"),
                    "bob": (3, "fixed_effects"), "cal": (4, "fixed_effects"),
                    REFEREE: (None, "fixed_effects")}  # fmt: skip
