"""Whole tournaments on mock players: call counts, blindness, determinism, invalid replies,
the question filter (in Python, and through the dbt question models)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from pdbench.arena.filter import kept_question_ids
from pdbench.arena.marts import ArenaMart
from pdbench.arena.records import (
    AnswerRecord,
    ArenaFiles,
    JudgmentRecord,
    QuestionRatingRecord,
    QuestionRecord,
)
from pdbench.arena.runner import run_arena
from pdbench.games import load_config
from pdbench.providers import mock
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import CallRecord, RunFiles, RunManifest

from tests.conftest import write_arena

RECORD_TYPES = {
    ArenaFiles.QUESTIONS: QuestionRecord,
    ArenaFiles.QUESTION_RATINGS: QuestionRatingRecord,
    ArenaFiles.ANSWERS: AnswerRecord,
    ArenaFiles.JUDGMENTS: JudgmentRecord,
    RunFiles.CALLS: CallRecord,
}


def _rows(run_dir: Path, name: str) -> list[dict]:
    return list(read_jsonl(run_dir / name))


def _play(path: Path, out: str = "out", **kwargs) -> Path:
    return run_arena(load_config(path), output_dir=out, **kwargs).run_dir


@pytest.fixture
def recorded_prompts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every (system, prompt) any mock player is sent."""
    seen: list[tuple[str, str]] = []
    real_build = mock.build

    class Recording:
        def __init__(self, inner) -> None:
            self.inner = inner
            self.last_usage = None

        def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int):
            seen.append((system, prompt))
            return self.inner.complete(
                system=system, prompt=prompt, temperature=temperature, max_tokens=max_tokens
            )

    monkeypatch.setattr(mock, "build", lambda **kw: Recording(real_build(**kw)))
    return seen


def test_exact_calls_per_phase_for_4_players_and_3_questions(project: Path):
    run_dir = _play(write_arena(project / "configs", players=4))
    phases = Counter(c["phase"] for c in _rows(run_dir, RunFiles.CALLS))
    # N = 4, Q = 3, K = N * Q = 12 (filter none): N, N*Q*(N-1), N*K, K*N*(N-1), and one
    # rationale per judgement of 0 or 10 (the default rationales)
    judgments = _rows(run_dir, ArenaFiles.JUDGMENTS)
    extreme = sum(j["score"] in (0, 10) for j in judgments)
    assert extreme > 0
    assert phases == {
        "generate": 4, "rate": 36, "answer": 48, "judge": 144, "rationale": extreme
    }  # fmt: skip
    assert len(_rows(run_dir, ArenaFiles.QUESTIONS)) == 12
    assert len(_rows(run_dir, ArenaFiles.QUESTION_RATINGS)) == 36
    assert len(_rows(run_dir, ArenaFiles.ANSWERS)) == 48
    assert len(judgments) == 144
    assert [j["rationale_asked"] for j in judgments] == [j["score"] in (0, 10) for j in judgments]
    manifest = RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())
    assert (manifest.game, manifest.status) == ("arena", "completed")
    assert manifest.counts["calls"] == 4 + 36 + 48 + 144 + extreme
    assert manifest.scoring["question_filter"]["kind"] == "none"


def test_every_line_matches_its_record_type(project: Path):
    run_dir = _play(write_arena(project / "configs", players=3))
    for name, record_type in RECORD_TYPES.items():
        rows = _rows(run_dir, name)
        assert rows, name
        for row in rows:
            record_type.model_validate(row)


def test_calls_after_the_filter(project: Path):
    # rationales: null asks for none
    path = write_arena(project / "configs", players=3, questions_per_player=4, rationales=None)
    run_dir = _play(path, kept_questions=lambda run_dir: kept_question_ids(run_dir)[:5])
    phases = Counter(c["phase"] for c in _rows(run_dir, RunFiles.CALLS))
    # N = 3, Q = 4, K = 5: 3, 3*4*2, 3*5, 5*3*2
    assert phases == {"generate": 3, "rate": 24, "answer": 15, "judge": 30}
    assert not any(j["rationale_asked"] for j in _rows(run_dir, ArenaFiles.JUDGMENTS))
    kept = sorted(q["question_id"] for q in _rows(run_dir, ArenaFiles.QUESTIONS))[:5]
    assert {a["question_id"] for a in _rows(run_dir, ArenaFiles.ANSWERS)} == set(kept)


def test_nobody_rates_or_judges_its_own_work_and_everybody_else_does(project: Path):
    run_dir = _play(write_arena(project / "configs", players=4))
    players = {"p0", "p1", "p2", "p3"}
    author = {q["question_id"]: q["author"] for q in _rows(run_dir, ArenaFiles.QUESTIONS)}
    raters: dict[str, set[str]] = {}
    for rating in _rows(run_dir, ArenaFiles.QUESTION_RATINGS):
        assert rating["rater"] != author[rating["question_id"]]
        raters.setdefault(rating["question_id"], set()).add(rating["rater"])
    assert all(raters[q] == players - {author[q]} for q in author)
    answerer = {a["answer_id"]: a["answerer"] for a in _rows(run_dir, ArenaFiles.ANSWERS)}
    judges: dict[str, set[str]] = {}
    for judgment in _rows(run_dir, ArenaFiles.JUDGMENTS):
        assert judgment["judge"] != answerer[judgment["answer_id"]]
        judges.setdefault(judgment["answer_id"], set()).add(judgment["judge"])
    assert all(judges[a] == players - {answerer[a]} for a in answerer)
    for call in _rows(run_dir, RunFiles.CALLS):
        if call["phase"] == "rate":
            assert call["agent"] != author[call["item_id"]]
        if call["phase"] == "judge":
            assert call["agent"] != answerer[call["item_id"]]


def test_no_prompt_after_generation_names_a_player_or_an_id(project: Path, recorded_prompts):
    # the demo's ember signs some answers with its name; identity_leaks: scrub hides it
    run_dir = _play(project / "configs/arena.yaml")
    assert any(a["leaked_identities"] for a in _rows(run_dir, ArenaFiles.ANSWERS))
    names = ["atlas", "borealis", "cirrus", "dynamo", "ember", "fathom", "gale"]
    later = [p for s, p in recorded_prompts if "Write exactly" not in p]
    assert len(later) >= 150 + 1  # ratings at least, and the later phases
    ids = [q["question_id"] for q in _rows(run_dir, ArenaFiles.QUESTIONS)]
    ids += [a["answer_id"] for a in _rows(run_dir, ArenaFiles.ANSWERS)]
    for prompt in later:
        lowered = prompt.lower()
        assert not [n for n in names if n in lowered], prompt
        assert not re.search(r"\b[qa]_[0-9a-f]{10}\b", prompt), prompt
    assert all(s == "" for s, _ in recorded_prompts)
    # the ids do not carry a name either
    assert not [i for i in ids for n in names if n in i]


def _without_times(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in {"timestamp_utc", "latency_ms"}} for r in rows]


def test_concurrency_1_and_16_give_identical_rows(project: Path):
    # every player a little slow and sometimes invalid, so that 16 calls at once finish out
    # of order and re-asks happen
    players = [
        {"ref": "agents/arena_player.yaml",
         "overrides": {"name": f"p{i}", "mock": {"answer_skill": 0.9 - 0.2 * i,
                                                 "invalid_rate": 0.1, "latency_ms": 2}}}
        for i in range(3)
    ]  # fmt: skip
    one = _play(write_arena(project / "configs", "one.yaml", players=players,
                            max_concurrency=1), "one")  # fmt: skip
    sixteen = _play(write_arena(project / "configs", "sixteen.yaml", players=players,
                                max_concurrency=16), "sixteen")  # fmt: skip
    for name in (ArenaFiles.QUESTIONS, ArenaFiles.QUESTION_RATINGS, ArenaFiles.ANSWERS,
                 ArenaFiles.JUDGMENTS, RunFiles.CALLS):  # fmt: skip
        assert _without_times(_rows(one, name)) == _without_times(_rows(sixteen, name)), name
    calls = _rows(sixteen, RunFiles.CALLS)
    assert any(c["attempt"] > 1 for c in calls)  # re-asks were exercised
    other_seed = _play(write_arena(project / "configs", "b.yaml", players=3, seed=12), "three")
    assert _rows(other_seed, ArenaFiles.JUDGMENTS) != _rows(one, ArenaFiles.JUDGMENTS)


def test_invalid_scores_are_re_asked_then_recorded_invalid(project: Path):
    players = [
        {"ref": "agents/arena_player.yaml", "overrides": {"name": "p0"}},
        {"ref": "agents/arena_player.yaml", "overrides": {"name": "p1"}},
        {"ref": "agents/arena_player.yaml",
         "overrides": {"name": "p2", "mock": {"invalid_rate": 1.0}}},
    ]  # fmt: skip
    path = write_arena(project / "configs", players=players, dev=False, max_retries=1)
    run_dir = _play(path)
    calls = _rows(run_dir, RunFiles.CALLS)
    # p2 never writes a usable list: 2 attempts, no questions
    assert [c["status"] for c in calls if c["agent"] == "p2" and c["phase"] == "generate"] == [
        "invalid", "invalid",
    ]  # fmt: skip
    questions = _rows(run_dir, ArenaFiles.QUESTIONS)
    assert Counter(q["author"] for q in questions) == {"p0": 3, "p1": 3}
    ratings = _rows(run_dir, ArenaFiles.QUESTION_RATINGS)
    by_p2 = [r for r in ratings if r["rater"] == "p2"]
    assert len(by_p2) == 6
    assert all((r["is_valid"], r["score"], r["attempts"]) == (False, None, 2) for r in by_p2)
    assert all(r["is_valid"] and 0 <= r["score"] <= 10 for r in ratings if r["rater"] != "p2")
    p2_rate_calls = [c for c in calls if c["agent"] == "p2" and c["phase"] == "rate"]
    assert len(p2_rate_calls) == 12 and {c["status"] for c in p2_rate_calls} == {"invalid"}
    judged_by_p2 = [j for j in _rows(run_dir, ArenaFiles.JUDGMENTS) if j["judge"] == "p2"]
    assert judged_by_p2 and not any(j["is_valid"] for j in judged_by_p2)


def test_the_demo_plants_what_scoring_should_recover(project: Path):
    path = project / "configs/arena.yaml"
    path.write_text(
        path.read_text().replace("{kind: bottom_fraction, fraction: 0.33}", "{kind: none}")
    )
    run_dir = _play(path)
    config = load_config(path).config
    judgments = [j for j in _rows(run_dir, ArenaFiles.JUDGMENTS) if j["is_valid"]]
    answerer = {a["answer_id"]: a["answerer"] for a in _rows(run_dir, ArenaFiles.ANSWERS)}

    def mean(values: list[int]) -> float:
        return sum(values) / len(values)

    competitors = [p for p in config.players if p.answers]  # not the judge-only referee
    received = {
        p.name: mean([j["score"] for j in judgments if answerer[j["answer_id"]] == p.name])
        for p in competitors
    }
    by_skill = sorted(competitors, key=lambda p: -p.mock.answer_skill)
    assert sorted(received, key=lambda n: -received[n]) == [p.name for p in by_skill]
    given = {p.name: mean([j["score"] for j in judgments if j["judge"] == p.name])
             for p in config.players if p.evaluates}  # fmt: skip
    assert max(given, key=given.get) == "cirrus"

    # dynamo favours borealis: its scores sit above the other judges' on borealis's answers
    # (and only there)
    by_answer: dict[str, list[dict]] = {}
    for j in judgments:
        by_answer.setdefault(j["answer_id"], []).append(j)
    excess: dict[str, list[float]] = {}
    for answer, scores in by_answer.items():
        mine = [j["score"] for j in scores if j["judge"] == "dynamo"]
        rest = [j["score"] for j in scores if j["judge"] != "dynamo"]
        if mine and rest:
            excess.setdefault(answerer[answer], []).append(mine[0] - mean(rest))
    bias = {player: mean(values) for player, values in excess.items()}
    assert bias["borealis"] > max(v for p, v in bias.items() if p != "borealis") + 1.5


def test_the_filter_reads_the_dbt_question_models(project: Path):
    path = write_arena(
        project / "configs",
        players=4,
        question_filter={"kind": "bottom_fraction", "fraction": 0.33},
        rationales=None,
    )
    run_dir = _play(path)
    questions = _rows(run_dir, ArenaFiles.QUESTIONS)
    # 12 questions, floor(0.33 * 12) = 3 dropped: K = 9
    answered = {a["question_id"] for a in _rows(run_dir, ArenaFiles.ANSWERS)}
    assert len(questions) == 12 and len(answered) == 9
    phases = Counter(c["phase"] for c in _rows(run_dir, RunFiles.CALLS))
    assert phases == {"generate": 4, "rate": 36, "answer": 36, "judge": 108}
    import duckdb

    kept = duckdb.sql(
        f"select question_id from '{run_dir / ArenaMart.QUESTION_QUALITY}' where is_kept"
    ).fetchall()
    assert {q for (q,) in kept} == answered
    assert kept_question_ids(run_dir) == sorted(answered)
