"""A tournament with the diversity section through ``pdbench run``, once per module, with a
planted repetitive question writer: ``parrot`` rewords its first question in every other
one; the other writers draw their questions as usual. The marts must find parrot the least
diverse, its pairs as near duplicates and nobody else's, and report the bonus next to the
plain score by the documented formula."""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.arena.marts import ArenaMart
from pdbench.arena.records import ArenaFiles
from pdbench.arena.runner import run_arena
from pdbench.arena.summary import leaderboard_table
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.games import load_config
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import write_arena
from tests.e2e.played import PlayedArena, play_arena

PLANTED = {"parrot": 1.0, "quill": 0.0, "sage": 0.0, "tern": 0.0}
QUESTIONS = 8
WEIGHT = 0.5
NEAR = 0.95


def _player(name: str, repetitive: float) -> dict:
    mock = {"answer_skill": 0.6, "repetitive": repetitive}
    return {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": mock}}


def _diversity(weight: float = WEIGHT) -> dict:
    return {"embedding": {"provider": "mock", "model": "mock-ngram"},
            "near_duplicate": NEAR, "weight": weight}  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PlayedArena:
    return play_arena(
        tmp_path_factory.mktemp("arena_diversity"),
        players=[_player(name, share) for name, share in PLANTED.items()],
        questions_per_player=QUESTIONS,
        diversity=_diversity(),
    )


def _jsonl(run_dir: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (run_dir / name).read_text().splitlines()]


def _mart(run_dir: Path, name: str) -> list[dict]:
    relation = duckdb.sql(f"select * from '{run_dir}/{name}'")
    return [dict(zip(relation.columns, r, strict=True)) for r in relation.fetchall()]


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def test_every_question_and_valid_answer_is_embedded_once(run: PlayedArena):
    embeddings = _jsonl(run.run_dir, ArenaFiles.EMBEDDINGS)
    questions = _jsonl(run.run_dir, ArenaFiles.QUESTIONS)
    answers = [a for a in _jsonl(run.run_dir, ArenaFiles.ANSWERS) if a["is_valid"]]
    assert sorted(e["item_id"] for e in embeddings if e["kind"] == "question") == sorted(
        q["question_id"] for q in questions
    )
    assert sorted(e["item_id"] for e in embeddings if e["kind"] == "answer") == sorted(
        a["answer_id"] for a in answers
    )
    assert {(e["provider"], e["embedding_model"], e["dim"]) for e in embeddings} == {
        ("mock", "mock-ngram", 256)
    }
    assert all(len(e["vector"]) == 256 for e in embeddings)
    calls = [c for c in _jsonl(run.run_dir, RunFiles.CALLS) if c["phase"] == "embed"]
    assert len(calls) == math.ceil(len(embeddings) / 64)
    assert all(c["status"] == "ok" and c["cost_usd"] == 0 for c in calls)
    manifest = json.loads((run.run_dir / RunFiles.MANIFEST).read_text())
    assert manifest["phases_done"][-1] == "embed"
    assert manifest["counts"]["embeddings"] == len(embeddings)
    assert [p["repetitive"] for p in manifest["scoring"]["players"]] == list(PLANTED.values())


def test_the_repetitive_writer_is_the_least_diverse_and_its_pairs_are_found(run: PlayedArena):
    rows = {row["player"]: row for row in _mart(run.run_dir, "diversity.parquet")}
    assert sorted(rows) == sorted(PLANTED)
    parrot = rows.pop("parrot")
    assert parrot["diversity_score"] < 0.1
    assert all(parrot["diversity_score"] < 0.5 * row["diversity_score"] for row in rows.values())
    assert parrot["n_near_duplicate_pairs"] == QUESTIONS * (QUESTIONS - 1) // 2
    assert all(row["n_near_duplicate_pairs"] == 0 for row in rows.values())
    pairs = _mart(run.run_dir, "near_duplicates.parquet")
    own = [p for p in pairs if p["is_same_player"]]
    assert len(own) == parrot["n_near_duplicate_pairs"]
    assert all(p["player_a"] == p["player_b"] == "parrot" for p in own)
    assert all(p["similarity"] >= NEAR for p in pairs)
    # a pair across players is flagged only when two writers drew the same template: the
    # same sentences but for the number in the stem
    for pair in (p for p in pairs if not p["is_same_player"]):
        assert "parrot" not in (pair["player_a"], pair["player_b"])
        assert _template(pair["question_text_a"]) == _template(pair["question_text_b"])


def _template(text: str) -> list[str]:
    sentences = re.split(r"(?<=[.?])\s+", text.strip())
    return sorted(re.sub(r"\d+", "#", sentence) for sentence in sentences)


def test_the_diversity_mart_recounts_the_raw_embeddings(run: PlayedArena):
    vectors: dict[str, list[list[float]]] = {}
    for e in _jsonl(run.run_dir, ArenaFiles.EMBEDDINGS):
        if e["kind"] == "question":
            vectors.setdefault(e["player"], []).append(e["vector"])
    rows = {row["player"]: row for row in _mart(run.run_dir, "diversity.parquet")}
    for player, own in vectors.items():
        sims = [_cosine(a, b) for a, b in itertools.combinations(own, 2)]
        assert rows[player]["question_diversity"] == pytest.approx(1 - sum(sims) / len(sims))
        assert rows[player]["n_near_duplicate_pairs"] == sum(s >= NEAR for s in sims)
    answers: dict[str, list[tuple[str, list[float]]]] = {}
    for e in _jsonl(run.run_dir, ArenaFiles.EMBEDDINGS):
        if e["kind"] == "answer":
            answers.setdefault(e["question_id"], []).append((e["player"], e["vector"]))
    others: dict[str, list[float]] = {}
    for answered in answers.values():
        for (p, a), (q, b) in itertools.combinations(answered, 2):
            others.setdefault(p, []).append(_cosine(a, b))
            others.setdefault(q, []).append(_cosine(a, b))
    for player, sims in others.items():
        assert rows[player]["answer_originality"] == pytest.approx(1 - sum(sims) / len(sims))


def test_the_bonus_is_reported_next_to_the_unchanged_plain_score(run: PlayedArena):
    rows = _mart(run.run_dir, "diversity.parquet")
    board = {row["player"]: row for row in _mart(run.run_dir, "leaderboard.parquet")}
    scores = [row["diversity_score"] for row in rows]
    mean = sum(scores) / len(scores)
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
    for row in rows:
        assert row["score"] == board[row["player"]]["score"]
        assert row["rank"] == board[row["player"]]["rank"]
        z = (row["diversity_score"] - mean) / sd
        assert row["score_with_bonus"] == pytest.approx(row["score"] + WEIGHT * z)
    parrot = next(row for row in rows if row["player"] == "parrot")
    assert parrot["score_with_bonus"] < parrot["score"]
    assert "score_with_bonus" not in board["parrot"]


def test_the_printed_leaderboard_shows_the_bonus_beside_the_plain_score(run: PlayedArena):
    lines = run.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("diversity of each"))
    assert f"score with bonus = score + {WEIGHT:g} x z" in lines[start]
    assert lines[start + 1].split()[:5] == ["player", "score", "diversity", "z", "with"]
    rows = sorted(_mart(run.run_dir, "diversity.parquet"), key=lambda r: (r["rank"], r["player"]))
    printed = [line.split() for line in lines[start + 2 : start + 2 + len(rows)]]
    for cells, row in zip(printed, rows, strict=True):
        assert cells == [
            row["player"], f"{row['score']:.3f}", f"{row['diversity_score']:.3f}",
            f"{row['diversity_z']:.3f}", f"{row['score_with_bonus']:.3f}",
            f"{row['n_near_duplicate_pairs']},", str(row["n_cross_near_duplicates"]),
        ]  # fmt: skip


def test_the_dry_run_counts_the_embedding_requests(run: PlayedArena):
    result = CliRunner().invoke(cli.app, ["run", str(run.path), "--dry-run"])
    assert result.exit_code == 0, result.stderr
    texts = len(PLANTED) * QUESTIONS * (1 + len(PLANTED))
    assert f"  embed: at most {math.ceil(texts / 64)}\n" in result.stdout
    assert "diversity: mock/mock-ngram embeddings, near duplicate at cosine >= 0.95" in (
        result.stdout
    )
    assert "parrot: mock/mock-arena, answer skill 0.6" in result.stdout
    assert ", repetitive 1\n" in result.stdout


def test_with_weight_zero_the_bonus_column_is_the_plain_score(project: Path):
    path = write_arena(project / "configs", players=3, diversity=_diversity(weight=0.0))
    run_dir = run_arena(load_config(path), output_dir=project / "run").run_dir
    _build(run_dir)
    rows = _mart(run_dir, "diversity.parquet")
    assert len(rows) == 3
    assert all(row["score_with_bonus"] == row["score"] for row in rows)


def test_without_the_section_nothing_is_embedded(project: Path):
    path = write_arena(project / "configs", players=3)
    run_dir = run_arena(load_config(path), output_dir=project / "run").run_dir
    assert not (run_dir / ArenaFiles.EMBEDDINGS).exists()
    assert all(c["phase"] != "embed" for c in _jsonl(run_dir, RunFiles.CALLS))
    _build(run_dir)
    assert _mart(run_dir, "diversity.parquet") == [] or all(
        row["player"] is None for row in _mart(run_dir, "diversity.parquet")
    )
    printed = leaderboard_table(run_dir, {ArenaMart.LEADERBOARD: 1, ArenaMart.DIVERSITY: 0})
    assert printed[0].startswith("leaderboard (") and not any("diversity" in p for p in printed)


def test_a_run_stopped_in_the_embedding_phase_resumes_it_alone(project: Path):
    path = write_arena(project / "configs", players=3, diversity=_diversity())
    whole = run_arena(load_config(path), output_dir=project / "whole").run_dir
    stopped = project / "stopped"
    shutil.copytree(whole, stopped)
    manifest = json.loads((stopped / RunFiles.MANIFEST).read_text())
    manifest.update(status="interrupted", phases_done=manifest["phases_done"][:-1])
    (stopped / RunFiles.MANIFEST).write_text(json.dumps(manifest))
    (stopped / ArenaFiles.EMBEDDINGS).write_text('{"run_id": "sm')
    judged = (stopped / ArenaFiles.JUDGMENTS).read_text()

    resumed = run_arena(load_config(path), output_dir=stopped, resume=True)
    assert resumed.manifest.status == "completed"
    assert resumed.manifest.phases_done[-1] == "embed"
    assert (stopped / ArenaFiles.JUDGMENTS).read_text() == judged  # not played again
    assert _jsonl(stopped, ArenaFiles.EMBEDDINGS) == _jsonl(whole, ArenaFiles.EMBEDDINGS)
    phases = [c["phase"] for c in _jsonl(stopped, RunFiles.CALLS)]
    assert phases == [c["phase"] for c in _jsonl(whole, RunFiles.CALLS)]


def _build(run_dir: Path) -> None:
    invoke_dbt(DbtRequest("build", run_dir=run_dir, select="tag:arena", unit_tests=False))
